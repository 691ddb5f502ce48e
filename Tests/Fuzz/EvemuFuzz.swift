// libFuzzer target: bytes as an evemu recording (`make fuzz`, docs/testing.md). Whatever
// parses is also replayed through the default profile, so the reader's output always meets
// the engine.
import GestureCore
import GesturedConfig

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let recording = try? EvemuParser.parse(bytes, file: "fuzz.evemu"),
    let device = recording.device
  else { return 0 }
  _ = Replay.run(device: device, events: recording.events, configuration: FuzzProfiles.plain)
  return 0
}
