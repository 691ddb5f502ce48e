/// Writes evemu 1.3 text the way evemu-record lays it out: what `gestured record` writes and
/// TouchScript's recordings are; EvemuParser reads it back.
public enum EvemuWriter {
  /// How many bytes the kernel returns for EVIOCGBIT of each type on a 64-bit machine (whole
  /// longs over the type's *_CNT bits), which is how many 8-byte B: lines evemu writes. Types
  /// the kernel has no bitmap for (EV_PWR, EV_FF_STATUS, the unnamed ones) get no line.
  static let maskBytes: [(type: UInt16, bytes: Int)] = [
    (0x00, 8),  // EV_SYN: the event-type bitmap itself
    (0x01, 96),  // EV_KEY: KEY_CNT 0x300
    (0x02, 8),  // EV_REL
    (0x03, 8),  // EV_ABS: ABS_CNT 0x40
    (0x04, 8),  // EV_MSC
    (0x05, 8),  // EV_SW
    (0x11, 8),  // EV_LED
    (0x12, 8),  // EV_SND
    (0x14, 8),  // EV_REP
    (0x15, 16),  // EV_FF: FF_CNT 0x80
  ]

  /// The whole file: `header(device:comment:)`, then one E: line per event.
  public static func text(device: DeviceDescription, events: [RawEvent], comment: String? = nil)
    -> String
  {
    var text = header(device: device, comment: comment)
    var lastReport: Timestamp? = nil
    for event in events {
      text += eventLine(event, sinceLastReport: &lastReport) + "\n"
    }
    return text
  }

  /// Everything before the events: the commented header, the N:, I:, P:, B: and A: lines,
  /// and evemu's "Waiting for events" banner, each line ending in a newline.
  public static func header(device: DeviceDescription, comment: String? = nil) -> String {
    var lines: [String] = ["# EVEMU 1.3"]
    if let comment { lines.append("# " + comment.filter { !$0.isNewline }) }
    lines.append("# Input device name: \"\(device.name)\"")
    lines.append(
      "# Input device ID: bus 0x\(hex(device.bus)) vendor 0x\(hex(device.vendor)) "
        + "product 0x\(hex(device.product)) version 0x\(hex(device.version))")
    if let x = device.positionAxes?.x, let y = device.positionAxes?.y, x.resolution > 0,
      y.resolution > 0
    {
      let width = (Int64(x.maximum) - Int64(x.minimum)) / Int64(x.resolution)
      let height = (Int64(y.maximum) - Int64(y.minimum)) / Int64(y.resolution)
      lines.append("# Size in mm: \(width)x\(height)")
    }
    lines.append("# Supported events:")
    lines.append("#   Event type 0 (EV_SYN)")
    if !device.keys.isEmpty {
      lines.append("#   Event type 1 (EV_KEY)")
      for key in device.keys.sorted() {
        lines.append("#     Event code \(key) (\(codeName(type: EventType.key, code: key)))")
      }
    }
    if !device.axes.isEmpty {
      lines.append("#   Event type 3 (EV_ABS)")
      for (code, axis) in device.axes.sorted(by: { $0.key < $1.key }) {
        lines.append("#     Event code \(code) (\(codeName(type: EventType.abs, code: code)))")
        lines.append("#       Min \(pad(axis.minimum, 10))")
        lines.append("#       Max \(pad(axis.maximum, 10))")
        lines.append("#       Resolution \(pad(axis.resolution, 3))")
      }
    }
    lines.append("# Properties:")
    for property in device.properties.sorted() {
      lines.append(
        "#   Property  type \(property) (\(property == InputProperty.direct ? "INPUT_PROP_DIRECT" : "INPUT_PROP_\(property)"))"
      )
    }

    lines.append("N: " + device.name.filter { !$0.isNewline })
    lines.append(
      "I: \(hex(device.bus)) \(hex(device.vendor)) \(hex(device.product)) \(hex(device.version))")
    lines.append("P: " + bytes(of: Set(device.properties.map(Int.init)), count: 8))
    var types: Set<Int> = [Int(EventType.syn)]
    if !device.keys.isEmpty { types.insert(Int(EventType.key)) }
    if !device.axes.isEmpty { types.insert(Int(EventType.abs)) }
    for (type, count) in maskBytes {
      let bits: Set<Int>
      switch type {
      case 0x00: bits = types
      case EventType.key: bits = Set(device.keys.map(Int.init))
      case EventType.abs: bits = Set(device.axes.keys.map(Int.init))
      default: bits = []
      }
      for offset in stride(from: 0, to: count, by: 8) {
        let shifted = Set(bits.compactMap { $0 >= offset * 8 ? $0 - offset * 8 : nil })
        lines.append("B: \(hex(type, digits: 2)) " + bytes(of: shifted, count: 8))
      }
    }
    for (code, axis) in device.axes.sorted(by: { $0.key < $1.key }) {
      lines.append(
        "A: \(hex(code, digits: 2)) \(axis.minimum) \(axis.maximum) \(axis.fuzz) \(axis.flat) \(axis.resolution)"
      )
    }
    lines.append("################################")
    lines.append("#      Waiting for events      #")
    lines.append("################################")
    return lines.joined(separator: "\n") + "\n"
  }

  /// `E: 0.080000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1`, as evemu prints it
  /// (`%lu.%06u %04x %04x %04d`).
  /// `sinceLastReport` is the previous SYN_REPORT's time, for the comment's "+Nms"; the
  /// call updates it.
  public static func eventLine(_ event: RawEvent, sinceLastReport: inout Timestamp?) -> String {
    let time = event.time.microseconds
    let seconds = time / 1_000_000
    let micros = String(time % 1_000_000)
    let stamp = "\(seconds)." + String(repeating: "0", count: 6 - micros.count) + micros
    var line = "E: \(stamp) \(hex(event.type)) \(hex(event.code)) \(decimal(event.value))\t# "
    if event.type == EventType.syn && event.code == SynCode.report {
      let elapsed = sinceLastReport.map { (event.time - $0) / 1000 } ?? 0
      line += "------------ SYN_REPORT (0) ---------- +\(elapsed)ms"
      sinceLastReport = event.time
    } else if event.type == EventType.syn {
      line +=
        "++++++++++++ \(codeName(type: event.type, code: event.code)) (\(event.code)) ++++++++++"
    } else {
      let name = codeName(type: event.type, code: event.code)
      let padded = name + String(repeating: " ", count: max(0, 20 - name.count))
      line += "\(typeName(event.type)) / \(padded) \(event.value)"
    }
    return line
  }

  /// C's `%04d`: at least four characters, zero padded after the sign.
  static func decimal(_ value: Int32) -> String {
    let digits = String(value.magnitude)
    let width = value < 0 ? 3 : 4
    let padding = String(repeating: "0", count: max(0, width - digits.count))
    return (value < 0 ? "-" : "") + padding + digits
  }

  static func hex<T: BinaryInteger>(_ value: T, digits: Int = 4) -> String {
    let text = String(value, radix: 16)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
  }

  static func pad<T: BinaryInteger>(_ value: T, _ width: Int) -> String {
    let text = String(value)
    return String(repeating: " ", count: max(0, width - text.count)) + text
  }

  /// `count` bytes, lowest bits first, as two-digit hex separated by spaces.
  static func bytes(of bits: Set<Int>, count: Int) -> String {
    var bytes = [UInt8](repeating: 0, count: count)
    for bit in bits where bit >= 0 && bit < count * 8 {
      bytes[bit / 8] |= UInt8(1) << UInt8(bit % 8)
    }
    return bytes.map { hex($0, digits: 2) }.joined(separator: " ")
  }

  static func typeName(_ type: UInt16) -> String {
    switch type {
    case EventType.syn: "EV_SYN"
    case EventType.key: "EV_KEY"
    case EventType.abs: "EV_ABS"
    case EventType.msc: "EV_MSC"
    default: "EV_\(type)"
    }
  }

  static func codeName(type: UInt16, code: UInt16) -> String {
    switch (type, code) {
    case (EventType.syn, SynCode.report): "SYN_REPORT"
    case (EventType.syn, SynCode.mtReport): "SYN_MT_REPORT"
    case (EventType.syn, SynCode.dropped): "SYN_DROPPED"
    case (EventType.key, KeyCode.btnTouch): "BTN_TOUCH"
    case (EventType.key, KeyCode.btnLeft): "BTN_LEFT"
    case (EventType.abs, AbsCode.x): "ABS_X"
    case (EventType.abs, AbsCode.y): "ABS_Y"
    case (EventType.abs, AbsCode.mtSlot): "ABS_MT_SLOT"
    case (EventType.abs, AbsCode.mtPositionX): "ABS_MT_POSITION_X"
    case (EventType.abs, AbsCode.mtPositionY): "ABS_MT_POSITION_Y"
    case (EventType.abs, AbsCode.mtTrackingID): "ABS_MT_TRACKING_ID"
    default: "0x\(hex(code))"
    }
  }
}
