// libFuzzer target: bytes as a datagram from the recognizer, decoded and checked against
// the fuzz profile as the launcher checks it against its own config. Whatever is accepted
// must encode back to the same bytes, and name a binding the profile has.
import GestureCore
import GesturedConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChannel(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let message = try? ChannelMessage.decode(bytes) else { return 0 }
  // Fields have one encoding each: any other accepted form is a decoder bug.
  guard message.encoded() == bytes else { fatalError("accepted a message that does not encode back: \(bytes)") }
  guard case .fired(let firing) = message,
    (try? firing.check(against: FuzzProfiles.plain, generation: firing.generation)) != nil
  else { return 0 }
  let profile = FuzzProfiles.plain.profiles[firing.profile]
  guard profile.bindings.indices.contains(firing.event.binding),
    profile.bindings[firing.event.binding].gesture == firing.event.gesture
  else { fatalError("a firing the profile does not bind passed the check") }
  return 0
}
