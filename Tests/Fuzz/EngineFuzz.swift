// libFuzzer target: a raw event stream into one device's engine, through DeviceEngine's
// public API only (init, handle, advance, finish, nextDeadline, tracing, takeTrace).
//
// The input is a device, then operations. Device: protocol (B, A, single touch by BTN_TOUCH
// or BTN_LEFT, none), ABS_MT_SLOT's maximum, X and Y ranges and resolutions as raw Int32s
// (any extreme), rotation, calibration (none, an axis swap, a mirror, or six entries from a table of usual and extreme ones), size,
// tracing, start time. Operations of 8 bytes: an event (any type, code and value, with a
// time step that may go backwards), SYN_DROPPED, advancing to the next deadline or to an
// arbitrary time, switching tracing.
import GestureCore
import GesturedConfig

private struct Input {
  var bytes: UnsafeBufferPointer<UInt8>
  var offset = 0

  var isEmpty: Bool { offset >= bytes.count }

  mutating func byte() -> UInt8 {
    guard offset < bytes.count else { return 0 }
    defer { offset += 1 }
    return bytes[offset]
  }

  mutating func int16() -> Int16 { Int16(bitPattern: UInt16(byte()) | UInt16(byte()) << 8) }

  mutating func int32() -> Int32 {
    var value: UInt32 = 0
    for shift in stride(from: 0, to: 32, by: 8) { value |= UInt32(byte()) << UInt32(shift) }
    return Int32(bitPattern: value)
  }
}

private func axis(_ input: inout Input) -> AxisInfo {
  AxisInfo(minimum: input.int32(), maximum: input.int32(), resolution: input.int32())
}

private let eventTypes: [UInt16] = [
  EventType.syn, EventType.abs, EventType.key, EventType.msc, EventType.rel, EventType.abs,
  EventType.syn, EventType.abs,
]
private let absCodes: [UInt16] = [
  AbsCode.mtSlot, AbsCode.mtTrackingID, AbsCode.mtPositionX, AbsCode.mtPositionY,
  AbsCode.mtToolType, AbsCode.mtTouchMajor, AbsCode.x, AbsCode.y,
]
private let keyCodes: [UInt16] = [
  KeyCode.btnTouch, KeyCode.btnLeft, KeyCode.btnToolFinger, KeyCode.btnToolPen,
]
/// Entries a fuzzed calibration is made of: the usual ones, the limits, and near-singular.
private let calibrationEntries: [Double] = [
  0, 1, -1, 0.5, -0.5, 2, 1000, -1000, 0.001, -0.001, 1e-6, 999.999, 0.25, 3, -2, 0.75,
]
private let startTimes: [Int64] = [1_000_000, 0, -5_000_000, Int64.max - 2_000_000_000, Int64.min + 10]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEngine(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  var input = Input(bytes: UnsafeBufferPointer(start: data, count: size))
  let kind = input.byte() % 5
  let slotMaximum = Int32(Int8(bitPattern: input.byte()))
  let x = axis(&input)
  let y = axis(&input)
  let flags = input.byte()

  var axes: [UInt16: AxisInfo] = [:]
  var keys: Set<UInt16> = []
  switch kind {
  case 0:
    axes[AbsCode.mtPositionX] = x
    axes[AbsCode.mtPositionY] = y
    axes[AbsCode.mtSlot] = AxisInfo(minimum: 0, maximum: slotMaximum)
    axes[AbsCode.mtTrackingID] = AxisInfo(minimum: 0, maximum: 65535)
  case 1:
    axes[AbsCode.mtPositionX] = x
    axes[AbsCode.mtPositionY] = y
  case 2, 3:
    axes[AbsCode.x] = x
    axes[AbsCode.y] = y
    keys.insert(kind == 2 ? KeyCode.btnTouch : KeyCode.btnLeft)
  default:
    axes[AbsCode.x] = x
  }
  let device = DeviceDescription(
    name: "fuzz", properties: [InputProperty.direct], keys: keys, axes: axes)

  var calibration: [Double]? = nil
  switch (flags >> 2) % 4 {
  case 1: calibration = [0, 1, 0, 1, 0, 0]
  case 2: calibration = (0..<6).map { _ in calibrationEntries[Int(input.byte()) % calibrationEntries.count] }
  case 3: calibration = [-1, 0, 1, 0, -1, 1]
  default: break
  }
  let size: (Double, Double)? =
    flags & 0x10 != 0 ? (Double(input.byte()) * 40 + 1, Double(input.byte()) * 40 + 1) : nil
  let configuration = FuzzProfiles.configuration(
    rotation: Int(flags % 4) * 90, calibration: calibration, size: size)
  guard var engine = DeviceEngine(device: device, profile: configuration.profiles[0]) else {
    return 0
  }
  engine.tracing = flags & 0x20 != 0
  var time = Timestamp(microseconds: startTimes[Int(flags >> 6) % startTimes.count])

  var output: [GestureEvent] = []
  while !input.isEmpty {
    let operation = input.byte()
    let code = input.byte()
    let step = input.int16()
    let value = input.int32()
    time = time + Microseconds(step) * (operation & 0x80 != 0 ? 1000 : 1)
    switch operation & 0x7F {
    case 0..<96:
      let type = eventTypes[Int(operation) % eventTypes.count]
      let eventCode: UInt16 =
        switch type {
        case EventType.abs: absCodes[Int(code) % absCodes.count]
        case EventType.key: keyCodes[Int(code) % keyCodes.count]
        case EventType.syn: code % 4 == 3 ? SynCode.report : UInt16(code % 3)
        default: UInt16(code)
        }
      engine.handle(RawEvent(time: time, type: type, code: eventCode, value: value), into: &output)
    case 96..<104:
      engine.handle(
        RawEvent(time: time, type: EventType.syn, code: SynCode.dropped, value: 0), into: &output)
    case 104..<116:
      if let due = engine.nextDeadline {
        time = due
        engine.advance(to: due, into: &output)
      }
    case 116..<124:
      engine.advance(to: time, into: &output)
    default:
      engine.tracing.toggle()
      _ = engine.takeTrace()
    }
    if output.count > 1024 { output.removeAll(keepingCapacity: true) }
  }
  engine.finish(at: time, into: &output)
  _ = engine.takeTrace()
  return 0
}
