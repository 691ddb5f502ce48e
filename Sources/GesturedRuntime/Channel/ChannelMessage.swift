import GestureCore

/// The messages between the unprivileged recognizer and the root launcher, one per
/// SOCK_SEQPACKET datagram, and their codec: pure, no I/O.
///
/// The recognizer tells the launcher only which binding of which profile fired and the
/// gesture's values (numbers and enumerations), plus two bounded, checked strings that
/// become environment values (the device's name and node), never part of a command. The
/// launcher decodes with `decode(_:)` and then checks a firing against its own parsed config
/// (`ChannelFiring.check(against:generation:)`): a message that names a binding the
/// launcher's config does not have runs nothing.
///
/// Layout: a version byte, a kind byte, then the kind's fields in a fixed order, each a type
/// byte and its value (unsigned and signed integers and doubles: 8 bytes little-endian;
/// strings: a 2-byte little-endian length and UTF-8; absent: no value). A field of another
/// type than the kind expects is `wrongType`, so a string can never stand where a number
/// belongs.
public enum ChannelMessage: Hashable, Sendable {
  /// Recognizer → launcher: a binding fired.
  case fired(ChannelFiring)
  /// Recognizer → launcher: a touch woke a forwarded panel of `profile` (its `wake:` runs).
  case woke(ChannelWake)
  /// Recognizer → launcher: it is going away, and why; the launcher exits.
  case streamEnd(ChannelStreamEndReason)
  /// Recognizer → launcher: running config `generation` with `devices` touchscreens open.
  case ready(generation: UInt32, devices: Int)
  /// Launcher → recognizer, with the config file open passed along (SCM_RIGHTS): the
  /// launcher accepted the file's bytes (`identity`) as config `generation`; the recognizer
  /// reads the same file and agrees only if it finds the same bytes and accepts them too.
  case reloadRequest(generation: UInt32, identity: ConfigIdentity)
  /// Recognizer → launcher: it now runs config `generation`.
  case reloadAgreed(generation: UInt32)
  /// Recognizer → launcher: it keeps its config; so does the launcher.
  case reloadRefused(generation: UInt32, reason: ChannelRefusal)
  /// Launcher → recognizer with each systemd watchdog ping, and the recognizer's answer from
  /// its event loop (RecognizerLiveness): a recognizer silent for too long is taken for hung.
  case alive
  /// Launcher → recognizer, with `count` /dev/uinput descriptors passed along (SCM_RIGHTS),
  /// right before the `reloadRequest` of config `generation`, which makes a profile forward
  /// for the first time: the recognizer adds them to its pool if it agrees, closes them if
  /// it refuses.
  case uinputDescriptors(generation: UInt32, count: Int)

  /// The protocol's version: both processes are the same binary, so any other is a bug or
  /// an attack.
  public static let version: UInt8 = 1
  /// The most descriptors one message passes: the recognizer's whole pool
  /// (`Daemon.maximumPooledUinputDescriptors`).
  public static let maximumPassedDescriptors = 16
  /// No message is longer: the longest, a firing with both strings at their limit, fits.
  public static let maximumLength = 1024
  /// evdev names are at most 255 bytes (the kernel's EVIOCGNAME buffer in libevdev).
  public static let maximumDeviceNameLength = 255
  /// `/dev/input/eventN` with room to spare.
  public static let maximumDevnodeLength = 64

  enum Kind: UInt8 {
    case fired = 1
    case streamEnd = 2
    case ready = 3
    case reloadRequest = 4
    case reloadAgreed = 5
    case reloadRefused = 6
    case woke = 7
    case alive = 8
    case uinputDescriptors = 9
  }

  enum FieldType: UInt8 {
    case absent = 0
    case unsigned = 1
    case signed = 2
    case double = 3
    case string = 4
  }
}

/// One firing as the recognizer reports it: indexes into the config both processes loaded
/// (`generation`), the gesture's values, and the device it came from.
public struct ChannelFiring: Hashable, Sendable {
  /// The config the recognizer recognized with; the launcher refuses any other.
  public var generation: UInt32
  public var profile: Int
  /// `event.binding` and `event.region` index into that profile.
  public var event: GestureEvent
  /// An environment value only (`GESTURED_DEVICE`).
  public var deviceName: String
  /// An environment value only (`GESTURED_DEVNODE`), and part of the runner's stream keys.
  public var devnode: String

  public init(generation: UInt32, profile: Int, event: GestureEvent, deviceName: String, devnode: String) {
    self.generation = generation
    self.profile = profile
    self.event = event
    self.deviceName = deviceName
    self.devnode = devnode
  }
}

/// A touch that woke a forwarded panel, as the recognizer reports it.
public struct ChannelWake: Hashable, Sendable {
  public var generation: UInt32
  public var profile: Int
  public var time: Timestamp
  /// Environment values only, as a firing's.
  public var deviceName: String
  public var devnode: String

  public init(generation: UInt32, profile: Int, time: Timestamp, deviceName: String, devnode: String) {
    self.generation = generation
    self.profile = profile
    self.time = time
    self.deviceName = deviceName
    self.devnode = devnode
  }

  /// The wake if the launcher's config (`hasWake`: whether each profile has `wake:` with
  /// something to run) has that profile and it wakes; `generation` is the one in force.
  public func validated(profileCount: Int, hasWake: (Int) -> Bool, generation current: UInt32) throws(ChannelError)
    -> ChannelWake
  {
    guard generation == current else { throw .staleConfig(generation: generation) }
    guard (0..<profileCount).contains(profile), hasWake(profile) else {
      throw .wrongProfile(profile: profile, binding: -1)
    }
    return self
  }
}

/// Why the recognizer stops.
public enum ChannelStreamEndReason: UInt8, Hashable, Sendable, CaseIterable {
  /// SIGTERM or SIGINT.
  case stopping = 1
  /// It cannot go on (the event loop or the udev monitor failed).
  case failed = 2
}

/// Why the recognizer refused a reload.
public enum ChannelRefusal: UInt8, Hashable, Sendable, CaseIterable {
  /// The file it read is not the one the launcher accepted (changed in between).
  case differentFile = 1
  /// It could not read the file or found errors in it.
  case invalid = 2
}

/// Which bytes a config was read from: length and FNV-1a, enough to notice that the file
/// changed between the launcher's read and the recognizer's (only root can change it).
public struct ConfigIdentity: Hashable, Sendable {
  public var length: UInt64
  public var hash: UInt64

  public init(length: UInt64, hash: UInt64) {
    self.length = length
    self.hash = hash
  }

  public init(of bytes: [UInt8]) {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes {
      hash ^= UInt64(byte)
      hash &*= 0x100_0000_01b3
    }
    self.init(length: UInt64(bytes.count), hash: hash)
  }
}

/// Why a message was refused. Each names the field, so the launcher's log says what was
/// wrong without echoing the message.
public enum ChannelError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Truncated, trailing bytes, an unknown version or kind, a value out of its range, a
  /// string that is not UTF-8 or holds control characters.
  case malformed(String)
  /// Longer than `ChannelMessage.maximumLength`, or a string beyond its limit.
  case oversized(String)
  /// A field of another type than its place expects (a string where a number belongs).
  case wrongType(String)
  /// The profile has no such binding or region.
  case unknownBinding(profile: Int, binding: Int)
  /// No such profile, or the firing does not fit the binding it names (another gesture).
  case wrongProfile(profile: Int, binding: Int)
  /// Recognized with another config than the one in force.
  case staleConfig(generation: UInt32)

  public var description: String {
    switch self {
    case .malformed(let what): "malformed message: \(what)"
    case .oversized(let what): "oversized message: \(what)"
    case .wrongType(let field): "wrong type for \(field)"
    case .unknownBinding(let profile, let binding): "profile \(profile) has no binding \(binding)"
    case .wrongProfile(let profile, let binding): "binding \(binding) is not one of profile \(profile)'s"
    case .staleConfig(let generation): "firing of config generation \(generation), not the one in force"
    }
  }
}

// MARK: Encoding

extension ChannelMessage {
  /// The enumerations a firing sends by their index, listed once: `allCases` makes its
  /// array anew at every use.
  static let gestureKinds = GestureKind.allCases
  static let directions = Direction.allCases
  static let endReasons = EndReason.allCases

  /// The datagram. A firing's strings beyond their limits are the caller's bug and are
  /// encoded as they are: `decode` refuses them.
  public func encoded() -> [UInt8] {
    var writer = ChannelWriter()
    switch self {
    case .fired(let firing):
      writer.kind(.fired)
      let event = firing.event
      writer.unsigned(UInt64(firing.generation))
      writer.signed(firing.profile)
      writer.signed(event.binding)
      writer.unsigned(UInt64(Self.gestureKinds.firstIndex(of: event.gesture)!))
      switch event.phase {
      case .oneShot:
        writer.unsigned(0)
        writer.signed(0)
      case .step(let k):
        writer.unsigned(1)
        writer.signed(k)
      case .end(let steps):
        writer.unsigned(2)
        writer.signed(steps)
      }
      writer.signed(Int(event.time.microseconds))
      writer.signed(event.sequence)
      writer.signed(event.fingers)
      writer.signed(event.taps)
      writer.optionalUnsigned(event.direction.map { UInt64(Self.directions.firstIndex(of: $0)!) })
      writer.optionalDouble(event.scale)
      writer.optionalDouble(event.angle)
      writer.optionalDouble(event.dx)
      writer.optionalDouble(event.dy)
      writer.double(event.position.x)
      writer.double(event.position.y)
      writer.optionalSigned(event.region)
      writer.optionalUnsigned(event.endReason.map { UInt64(Self.endReasons.firstIndex(of: $0)!) })
      writer.string(firing.deviceName)
      writer.string(firing.devnode)
    case .woke(let wake):
      writer.kind(.woke)
      writer.unsigned(UInt64(wake.generation))
      writer.signed(wake.profile)
      writer.signed(Int(wake.time.microseconds))
      writer.string(wake.deviceName)
      writer.string(wake.devnode)
    case .streamEnd(let reason):
      writer.kind(.streamEnd)
      writer.unsigned(UInt64(reason.rawValue))
    case .ready(let generation, let devices):
      writer.kind(.ready)
      writer.unsigned(UInt64(generation))
      writer.signed(devices)
    case .reloadRequest(let generation, let identity):
      writer.kind(.reloadRequest)
      writer.unsigned(UInt64(generation))
      writer.unsigned(identity.length)
      writer.unsigned(identity.hash)
    case .reloadAgreed(let generation):
      writer.kind(.reloadAgreed)
      writer.unsigned(UInt64(generation))
    case .reloadRefused(let generation, let reason):
      writer.kind(.reloadRefused)
      writer.unsigned(UInt64(generation))
      writer.unsigned(UInt64(reason.rawValue))
    case .alive:
      writer.kind(.alive)
    case .uinputDescriptors(let generation, let count):
      writer.kind(.uinputDescriptors)
      writer.unsigned(UInt64(generation))
      writer.signed(count)
    }
    return writer.bytes
  }
}

struct ChannelWriter {
  var bytes: [UInt8] = []

  mutating func kind(_ kind: ChannelMessage.Kind) {
    // Room for the longest message the decoder takes, so that no such message grows it.
    bytes.reserveCapacity(ChannelMessage.maximumLength)
    bytes.append(ChannelMessage.version)
    bytes.append(kind.rawValue)
  }

  /// Least significant byte first, on any machine.
  private mutating func word(_ value: UInt64) {
    withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
  }

  mutating func unsigned(_ value: UInt64) {
    bytes.append(ChannelMessage.FieldType.unsigned.rawValue)
    word(value)
  }

  mutating func signed(_ value: Int) {
    bytes.append(ChannelMessage.FieldType.signed.rawValue)
    word(UInt64(bitPattern: Int64(value)))
  }

  mutating func double(_ value: Double) {
    bytes.append(ChannelMessage.FieldType.double.rawValue)
    word(value.bitPattern)
  }

  mutating func string(_ value: String) {
    bytes.append(ChannelMessage.FieldType.string.rawValue)
    let length = UInt16(truncatingIfNeeded: min(value.utf8.count, Int(UInt16.max)))
    bytes.append(UInt8(truncatingIfNeeded: length))
    bytes.append(UInt8(truncatingIfNeeded: length >> 8))
    // A string that fits goes in whole: the whole UTF-8 view is appended by a faster path
    // than a prefix of it.
    if Int(length) == value.utf8.count {
      bytes.append(contentsOf: value.utf8)
    } else {
      bytes.append(contentsOf: value.utf8.prefix(Int(length)))
    }
  }

  mutating func absent() { bytes.append(ChannelMessage.FieldType.absent.rawValue) }

  mutating func optionalUnsigned(_ value: UInt64?) { if let value { unsigned(value) } else { absent() } }
  mutating func optionalSigned(_ value: Int?) { if let value { signed(value) } else { absent() } }
  mutating func optionalDouble(_ value: Double?) { if let value { double(value) } else { absent() } }
}

// MARK: Decoding

extension ChannelMessage {
  /// The message, checked for shape: lengths, types, ranges, strings. A firing still has to
  /// be checked against the launcher's config (`ChannelFiring.check`).
  public static func decode(_ bytes: [UInt8]) throws(ChannelError) -> ChannelMessage {
    var names: DeviceNames? = nil
    return try decode(bytes, reusing: &names)
  }

  /// A device's name and node as a message carried them, checked.
  public struct DeviceNames: Sendable {
    public var deviceName: String
    public var devnode: String
  }

  /// As `decode(_:)`, for a receiver that keeps the last device's names (`names`): a message
  /// from that device again reuses them rather than making and checking its strings anew.
  public static func decode(_ bytes: [UInt8], reusing names: inout DeviceNames?) throws(ChannelError)
    -> ChannelMessage
  {
    guard bytes.count <= maximumLength else { throw .oversized("\(bytes.count) bytes") }
    var reader = ChannelReader(bytes: bytes)
    guard try reader.byte("version") == version else { throw .malformed("version") }
    let rawKind = try reader.byte("kind")
    guard let kind = Kind(rawValue: rawKind) else { throw .malformed("unknown kind \(rawKind)") }
    let message: ChannelMessage
    switch kind {
    case .fired: message = .fired(try decodeFiring(&reader, reusing: &names))
    case .woke:
      let generation = try reader.generation()
      let profile = try reader.signed("profile", in: 0...maximumCount)
      let time = try reader.signed("time", in: 0...Int.max)
      let (deviceName, devnode) = try decodeDevice(&reader, reusing: &names)
      message = .woke(
        ChannelWake(
          generation: generation, profile: profile, time: Timestamp(microseconds: Int64(time)),
          deviceName: deviceName, devnode: devnode))
    case .streamEnd:
      guard let reason = ChannelStreamEndReason(rawValue: UInt8(try reader.enumeration("reason", below: 256))) else {
        throw .malformed("reason")
      }
      message = .streamEnd(reason)
    case .ready:
      message = .ready(generation: try reader.generation(), devices: try reader.signed("devices", in: 0...1 << 20))
    case .reloadRequest:
      let generation = try reader.generation()
      let identity = ConfigIdentity(length: try reader.unsigned("length"), hash: try reader.unsigned("hash"))
      message = .reloadRequest(generation: generation, identity: identity)
    case .reloadAgreed:
      message = .reloadAgreed(generation: try reader.generation())
    case .reloadRefused:
      let generation = try reader.generation()
      guard let reason = ChannelRefusal(rawValue: UInt8(try reader.enumeration("reason", below: 256))) else {
        throw .malformed("reason")
      }
      message = .reloadRefused(generation: generation, reason: reason)
    case .alive:
      message = .alive
    case .uinputDescriptors:
      message = .uinputDescriptors(
        generation: try reader.generation(), count: try reader.signed("count", in: 1...maximumPassedDescriptors))
    }
    guard reader.isAtEnd else { throw .malformed("trailing bytes") }
    return message
  }

  /// Bounds on a firing's numbers: far beyond any real gesture, so that nothing derived
  /// from them (environment values, stream keys) can grow without bound.
  static let maximumCount = 1 << 20
  static let maximumMagnitude = 1e9

  /// The device's name and node, checked, or `names` when the bytes are theirs.
  private static func decodeDevice(_ reader: inout ChannelReader, reusing names: inout DeviceNames?)
    throws(ChannelError) -> (String, String)
  {
    let deviceName = try reader.string(
      "device name", maximumLength: maximumDeviceNameLength, reusing: names?.deviceName)
    let devnode = try reader.string("devnode", maximumLength: maximumDevnodeLength, reusing: names?.devnode)
    if let names, deviceName == names.deviceName, devnode == names.devnode { return (deviceName, devnode) }
    guard devnode.utf8.starts(with: "/dev/".utf8), !hasParentComponent(devnode) else { throw .malformed("devnode") }
    names = DeviceNames(deviceName: deviceName, devnode: devnode)
    return (deviceName, devnode)
  }

  /// Whether `path` has a ".." component, looked for in its bytes: the launcher checks
  /// every firing's devnode, and a substring search through String is far slower.
  static func hasParentComponent(_ path: String) -> Bool {
    var length = 0
    var dots = 0
    for byte in path.utf8 {
      if byte == UInt8(ascii: "/") {
        if length == 2 && dots == 2 { return true }
        length = 0
        dots = 0
      } else {
        length += 1
        if byte == UInt8(ascii: ".") { dots += 1 }
      }
    }
    return length == 2 && dots == 2
  }

  private static func decodeFiring(_ reader: inout ChannelReader, reusing names: inout DeviceNames?)
    throws(ChannelError) -> ChannelFiring
  {
    let generation = try reader.generation()
    let profile = try reader.signed("profile", in: 0...maximumCount)
    let binding = try reader.signed("binding", in: 0...maximumCount)
    let gesture = gestureKinds[
      Int(try reader.enumeration("gesture", below: UInt64(gestureKinds.count)))]
    let phaseKind = try reader.enumeration("phase", below: 3)
    let phaseCount = try reader.signed("phase count", in: 0...maximumCount)
    let phase: GestureEvent.Phase
    switch phaseKind {
    case 0:
      guard phaseCount == 0 else { throw .malformed("phase count") }
      phase = .oneShot
    case 1:
      guard phaseCount >= 1 else { throw .malformed("phase count") }
      phase = .step(phaseCount)
    default: phase = .end(steps: phaseCount)
    }
    let time = try reader.signed("time", in: 0...Int.max)
    let sequence = try reader.signed("sequence", in: 0...Int.max)
    let fingers = try reader.signed("fingers", in: 1...maximumCount)
    let taps = try reader.signed("taps", in: 1...maximumCount)
    let direction = try reader.optionalEnumeration("direction", below: UInt64(directions.count)).map {
      directions[Int($0)]
    }
    let scale = try reader.optionalDouble("scale", in: 0...maximumMagnitude)
    let angle = try reader.optionalDouble("angle", in: -maximumMagnitude...maximumMagnitude)
    let dx = try reader.optionalDouble("dx", in: -maximumMagnitude...maximumMagnitude)
    let dy = try reader.optionalDouble("dy", in: -maximumMagnitude...maximumMagnitude)
    let x = try reader.double("x", in: -maximumMagnitude...maximumMagnitude)
    let y = try reader.double("y", in: -maximumMagnitude...maximumMagnitude)
    let region = try reader.optionalSigned("region", in: 0...maximumCount)
    let endReason = try reader.optionalEnumeration("end reason", below: UInt64(endReasons.count)).map {
      endReasons[Int($0)]
    }
    // An end and only an end says why its steps ended.
    if case .end = phase {
      guard endReason != nil else { throw .malformed("end reason") }
    } else if endReason != nil {
      throw .malformed("end reason")
    }
    let (deviceName, devnode) = try decodeDevice(&reader, reusing: &names)
    let event = GestureEvent(
      time: Timestamp(microseconds: Int64(time)), binding: binding, gesture: gesture, phase: phase, sequence: sequence,
      fingers: fingers, taps: taps, direction: direction, scale: scale, angle: angle, dx: dx, dy: dy,
      position: Point(x: x, y: y), region: region, endReason: endReason)
    return ChannelFiring(
      generation: generation, profile: profile, event: event, deviceName: deviceName, devnode: devnode)
  }
}

struct ChannelReader {
  let bytes: [UInt8]
  var offset = 0

  var isAtEnd: Bool { offset == bytes.count }

  mutating func byte(_ field: String) throws(ChannelError) -> UInt8 {
    guard offset < bytes.count else { throw .malformed("truncated at \(field)") }
    defer { offset += 1 }
    return bytes[offset]
  }

  /// The next field's type: `expected`, or absent when `optional`.
  private mutating func type(_ field: String, _ expected: ChannelMessage.FieldType, optional: Bool = false)
    throws(ChannelError) -> Bool
  {
    let raw = try byte(field)
    guard let type = ChannelMessage.FieldType(rawValue: raw) else { throw .malformed("type of \(field)") }
    if type == .absent && optional { return false }
    guard type == expected else { throw .wrongType(field) }
    return true
  }

  private mutating func word(_ field: String) throws(ChannelError) -> UInt64 {
    guard bytes.count - offset >= 8 else { throw .malformed("truncated at \(field)") }
    var value: UInt64 = 0
    for index in 0..<8 { value |= UInt64(bytes[offset + index]) << UInt64(8 * index) }
    offset += 8
    return value
  }

  mutating func unsigned(_ field: String) throws(ChannelError) -> UInt64 {
    _ = try type(field, .unsigned)
    return try word(field)
  }

  mutating func generation() throws(ChannelError) -> UInt32 {
    let value = try unsigned("generation")
    guard value <= UInt64(UInt32.max) else { throw .malformed("generation out of range") }
    return UInt32(value)
  }

  mutating func enumeration(_ field: String, below limit: UInt64) throws(ChannelError) -> UInt64 {
    let value = try unsigned(field)
    guard value < limit else { throw .malformed("\(field) out of range") }
    return value
  }

  mutating func optionalEnumeration(_ field: String, below limit: UInt64) throws(ChannelError) -> UInt64? {
    guard try type(field, .unsigned, optional: true) else { return nil }
    let value = try word(field)
    guard value < limit else { throw .malformed("\(field) out of range") }
    return value
  }

  private mutating func signedValue(_ field: String, in range: ClosedRange<Int>) throws(ChannelError) -> Int {
    let value = Int64(bitPattern: try word(field))
    guard range.contains(Int(value)) else { throw .malformed("\(field) out of range") }
    return Int(value)
  }

  mutating func signed(_ field: String, in range: ClosedRange<Int>) throws(ChannelError) -> Int {
    _ = try type(field, .signed)
    return try signedValue(field, in: range)
  }

  mutating func optionalSigned(_ field: String, in range: ClosedRange<Int>) throws(ChannelError) -> Int? {
    guard try type(field, .signed, optional: true) else { return nil }
    return try signedValue(field, in: range)
  }

  private mutating func doubleValue(_ field: String, in range: ClosedRange<Double>) throws(ChannelError) -> Double {
    let value = Double(bitPattern: try word(field))
    // NaN is in no range.
    guard range.contains(value) else { throw .malformed("\(field) out of range") }
    return value
  }

  mutating func double(_ field: String, in range: ClosedRange<Double>) throws(ChannelError) -> Double {
    _ = try type(field, .double)
    return try doubleValue(field, in: range)
  }

  mutating func optionalDouble(_ field: String, in range: ClosedRange<Double>) throws(ChannelError) -> Double? {
    guard try type(field, .double, optional: true) else { return nil }
    return try doubleValue(field, in: range)
  }

  /// Non-empty UTF-8 without control characters (they would forge log lines or reach a
  /// terminal through the environment) and without NUL (which the environment cannot hold).
  /// `previous`, a string this check passed before, is returned when the bytes are its own.
  mutating func string(_ field: String, maximumLength: Int, reusing previous: String? = nil) throws(ChannelError)
    -> String
  {
    _ = try type(field, .string)
    let low = Int(try byte(field))
    let length = low | Int(try byte(field)) << 8
    guard length <= maximumLength else { throw .oversized("\(field) of \(length) bytes") }
    guard length > 0 else { throw .malformed("empty \(field)") }
    guard bytes.count - offset >= length else { throw .malformed("truncated at \(field)") }
    let utf8 = bytes[offset..<offset + length]
    offset += length
    if let previous, previous.utf8.count == length, previous.utf8.elementsEqual(utf8) { return previous }
    guard let text = String(validating: utf8, as: UTF8.self) else { throw .malformed("\(field) is not UTF-8") }
    guard !text.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) })
    else { throw .malformed("control character in \(field)") }
    return text
  }
}

// MARK: Checking against the launcher's config

extension ChannelFiring {
  /// Throws unless the firing names a binding (and region) that `configuration`, the
  /// launcher's own, has, and fits it (the same gesture); `generation` is the launcher's
  /// config in force. Reads the fields it checks in place: copying a profile or a binding
  /// would retain each of their arrays and strings.
  public func check(against configuration: Configuration, generation current: UInt32) throws(ChannelError) {
    guard generation == current else { throw .staleConfig(generation: generation) }
    guard configuration.profiles.indices.contains(profile) else {
      throw .wrongProfile(profile: profile, binding: event.binding)
    }
    guard configuration.profiles[profile].bindings.indices.contains(event.binding) else {
      throw .unknownBinding(profile: profile, binding: event.binding)
    }
    guard configuration.profiles[profile].bindings[event.binding].gesture == event.gesture else {
      throw .wrongProfile(profile: profile, binding: event.binding)
    }
    // Steps and ends belong to step bindings only.
    guard event.phase == .oneShot || configuration.profiles[profile].bindings[event.binding].step != nil else {
      throw .wrongProfile(profile: profile, binding: event.binding)
    }
    if let region = event.region, !configuration.profiles[profile].regions.indices.contains(region) {
      throw .unknownBinding(profile: profile, binding: event.binding)
    }
  }
}

extension ChannelFiring {
  /// `text` as the decoder accepts it: control characters escaped, cut to `maximumLength`
  /// bytes at a character's end, never empty.
  public static func sendable(_ text: String, maximumLength: Int) -> String {
    var kept = ""
    var length = 0
    for character in text.escapingControlCharacters() {
      length += character.utf8.count
      guard length <= maximumLength else { break }
      kept.append(character)
    }
    return kept.isEmpty ? "?" : kept
  }
}
