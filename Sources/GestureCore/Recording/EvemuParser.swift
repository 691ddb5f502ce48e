/// Reads what `evemu-describe` and `evemu-record` write: file formats 1.0 (no header), 1.1,
/// 1.2 and 1.3.
///
/// ```
/// # EVEMU 1.3                          comments: whole lines, or the tail of a data line
/// N: <device name>                     the rest of the line; a # is part of the name
/// I: <bus> <vendor> <product> <version>         hex
/// P: <8 hex bytes>                     INPUT_PROP bits; more P: lines continue the mask
/// B: <type> <8 hex bytes>              code bits of one event type; more B: lines of the
///                                      same type continue at the next byte (EV_KEY: 12)
/// A: <code> <min> <max> <fuzz> <flat> [<resolution>]     code hex, numbers decimal;
///                                      1.0/1.1 write no resolution (either form is
///                                      accepted, whatever the header says)
/// L: <code> <state>   S: <code> <state>  LED and switch states: checked, then ignored
/// E: <sec>.<usec> <type> <code> <value>  type and code hex, value decimal (`0001`, `-001`)
/// ```
///
/// Timestamps are whatever the file holds: absolute (1.1, 1.2) or relative to the first
/// event (1.3). Blank lines, tabs, CRLF line ends and a UTF-8 byte-order mark are accepted.
///
/// The whole file is checked; the first bad line throws, naming the line. Beyond what
/// evemu's own reader checks, these are errors (evemu silently skips or misreads them):
/// - A description line after the first `E:` line. A recording is one device, described
///   before its events; a description in the middle means two files were joined.
/// - Description lines out of evemu's order (N:, I:, P:, B:, A:, L:/S:), a second N: or I:,
///   a second A: line for one axis.
/// - An `A:` line for an axis whose bit is clear in the `B: 03` mask, or a set bit with no
///   `A:` line (every real recording agrees; evemu would drop the line or invent a 0..1
///   axis). Without any `B: 03` line the `A:` lines alone give the axes.
/// - Time going backwards (no real recording does; replay and the recognizers rely on it).
/// - `<usec>` is read like evemu reads it: an integer count of microseconds, at most six
///   digits (`evemu-record` always writes six).
public enum EvemuParser {
  /// Parses a whole file (bytes) before anything runs; the first bad line throws.
  public static func parse(_ bytes: [UInt8], file: String) throws(RecordingError) -> Recording {
    var events: [RawEvent] = []
    var lineCount = 1
    for byte in bytes where byte == ASCII.newline { lineCount &+= 1 }
    // Every line could be an event: one reservation instead of repeated growth.
    events.reserveCapacity(lineCount)
    var stream = EvemuStreamParser(file: file)
    try bytes.withUnsafeBufferPointer { (buffer) throws(RecordingError) in
      // In pieces, so that the parser's batch stays small.
      var start = 0
      while start < buffer.count {
        let end = min(start + 1 << 16, buffer.count)
        try stream.feed(UnsafeBufferPointer(rebasing: buffer[start..<end])) { events.append(contentsOf: $0) }
        start = end
      }
    }
    let device = try stream.finish { events.append(contentsOf: $0) }
    return Recording(device: device, events: events)
  }

  public static func parse(_ text: String, file: String) throws(RecordingError) -> Recording {
    try parse(Array(text.utf8), file: file)
  }
}

/// The same parser over a file read in pieces of any size, so that a recording of any
/// length is checked (and replayed) in constant memory: lines are numbered across pieces, a
/// line split between two pieces is put together first, and the errors are those of
/// `EvemuParser.parse`, naming the line. Events come out in batches after each piece.
public struct EvemuStreamParser {
  /// Longer lines are refused rather than buffered without bound (evemu-record's are under
  /// 100 bytes; a description line of 8-byte masks under 200).
  public static let maximumLineLength = 1 << 20
  /// The shortest event line evemu-record writes (`E: 0.000000 0000 0000 0` and its
  /// newline): a piece holds at most its size over this many events.
  static let shortestEventLine = 24
  /// Room kept for a line split between two pieces: longer than any line evemu-record writes.
  static let splitLineCapacity = 512

  private var parser: EvemuFileParser
  /// The start of a line the previous piece did not finish.
  private var partialLine: [UInt8] = []
  /// Until three bytes have come: whether the file starts with a UTF-8 byte-order mark.
  private var started = false

  /// `keepsEvents` false: every line is checked and the events counted (`eventCount`), none
  /// handed over (a first pass that only checks).
  public init(file: String, keepsEvents: Bool = true) {
    parser = EvemuFileParser(bytes: UnsafeBufferPointer(start: nil, count: 0), file: file)
    parser.keepsEvents = keepsEvents
  }

  /// Events read so far.
  public var eventCount: Int { parser.eventCount }

  /// The description, once the first `E:` line (or the end of the file) completed it.
  public var device: DeviceDescription? { parser.device }

  /// Parses every line `piece` completes and hands over the events found (a batch,
  /// reused: copy what outlives the call).
  public mutating func feed(
    _ piece: UnsafeBufferPointer<UInt8>, events: ([RawEvent]) -> Void
  ) throws(RecordingError) {
    try feed(piece, describedEvents: { batch, _ in events(batch) })
  }

  /// The same, handing each batch over with the description, which the first `E:` line
  /// completed (nil in a recording of events only): for a caller that runs the events
  /// while the file is still being read.
  public mutating func feed(
    _ piece: UnsafeBufferPointer<UInt8>, describedEvents events: ([RawEvent], DeviceDescription?) -> Void
  ) throws(RecordingError) {
    // The batch takes a whole piece's events without growing while it is parsed, so that
    // reading does not allocate between the frames already handed over.
    if parser.keepsEvents { parser.events.reserveCapacity(piece.count / Self.shortestEventLine + 1) }
    if !started {
      partialLine.append(contentsOf: piece)
      guard partialLine.count >= 3 else { return }
      started = true
      if partialLine[0] == 0xEF, partialLine[1] == 0xBB, partialLine[2] == 0xBF { partialLine.removeFirst(3) }
      let first = partialLine
      partialLine = []
      // The piece's last line, if split, is completed by the next piece in this room.
      partialLine.reserveCapacity(Self.splitLineCapacity)
      try first.withUnsafeBufferPointer { (buffer) throws(RecordingError) in try parse(buffer, final: false) }
    } else if !partialLine.isEmpty {
      // Complete the split line on its own, then go on in the piece itself.
      let newline = piece.firstIndex(of: ASCII.newline)
      partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: piece[..<(newline.map { $0 + 1 } ?? piece.count)]))
      guard let newline else { return try checkPartialLineLength() }
      // Swapped out while parsed (parse appends to `partialLine`), then back with its
      // capacity, not assigned: a second reference left in `line` would make the next
      // append copy the buffer, an allocation per piece.
      var line: [UInt8] = []
      swap(&line, &partialLine)
      try line.withUnsafeBufferPointer { (buffer) throws(RecordingError) in try parse(buffer, final: true) }
      line.removeAll(keepingCapacity: true)
      swap(&line, &partialLine)
      try parse(UnsafeBufferPointer(rebasing: piece[(newline + 1)...]), final: false)
    } else {
      try parse(piece, final: false)
    }
    deliver(events)
  }

  /// The end of the file: its last line, then the description if no event completed it.
  public mutating func finish(events: ([RawEvent]) -> Void) throws(RecordingError) -> DeviceDescription? {
    try finishDescribed(events: { batch, _ in events(batch) })
  }

  /// The same, as `feed(_:describedEvents:)` hands batches over.
  public mutating func finishDescribed(
    events: ([RawEvent], DeviceDescription?) -> Void
  ) throws(RecordingError) -> DeviceDescription? {
    if !started, partialLine.count >= 3, partialLine[0] == 0xEF, partialLine[1] == 0xBB, partialLine[2] == 0xBF {
      partialLine.removeFirst(3)
    }
    started = true
    let last = partialLine
    partialLine = []
    try last.withUnsafeBufferPointer { (buffer) throws(RecordingError) in try parse(buffer, final: true) }
    deliver(events)
    try located { (parser: inout EvemuFileParser) throws(RecordingError) in try parser.finishFile() }
    return parser.device
  }

  private mutating func deliver(_ events: ([RawEvent], DeviceDescription?) -> Void) {
    guard !parser.events.isEmpty else { return }
    events(parser.events, parser.device)
    parser.events.removeAll(keepingCapacity: true)
  }

  /// Parses the complete lines of `buffer` (all of it when `final`); keeps the rest.
  private mutating func parse(_ buffer: UnsafeBufferPointer<UInt8>, final: Bool) throws(RecordingError) {
    parser.bytes = buffer
    defer { parser.bytes = UnsafeBufferPointer(start: nil, count: 0) }
    let rest = try located { (parser: inout EvemuFileParser) throws(RecordingError) in
      try parser.parseCompleteLines(final: final)
    }
    if rest < buffer.count {
      partialLine.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[rest...]))
      try checkPartialLineLength()
    }
  }

  private func checkPartialLineLength() throws(RecordingError) {
    guard partialLine.count > Self.maximumLineLength else { return }
    throw RecordingError(
      file: parser.file, line: parser.lineNumber + 1,
      message: "line longer than \(Self.maximumLineLength) bytes; this is not an evemu recording")
  }

  /// Field scanners do not know the file name.
  private mutating func located<T>(
    _ body: (inout EvemuFileParser) throws(RecordingError) -> T
  ) throws(RecordingError) -> T {
    do throws(RecordingError) {
      return try body(&parser)
    } catch {
      var located = error
      located.file = parser.file
      throw located
    }
  }
}

/// Description line kinds in the order evemu writes them (its reader requires that order).
private enum DescriptionStage: Int, Comparable {
  case name, identity, properties, masks, axes, ledsAndSwitches

  static func < (a: DescriptionStage, b: DescriptionStage) -> Bool { a.rawValue < b.rawValue }
}

private struct EvemuFileParser {
  /// The piece being parsed (see EvemuStreamParser).
  var bytes: UnsafeBufferPointer<UInt8>
  let file: String

  var events: [RawEvent] = []
  var keepsEvents = true
  var eventCount = 0
  var device: DeviceDescription?
  /// 0 until the first `E:` line.
  var firstEventLine = 0
  var previousTime = Int64.min
  var previousTimeLine = 0
  /// The last time the fast path read, with the bytes it read it from (`E: ` to the space
  /// after the microseconds, at most 16): the events of one frame share it, so a line that
  /// starts with the same bytes has the same time without reading it again.
  var timePrefix: (low: UInt64, high: UInt64, highMask: UInt64, length: Int, time: Int64) = (0, 0, 0, 0, 0)

  // The description, as its lines arrive.
  var stage: DescriptionStage?
  var stagePrefix = ""
  var nameLine = 0
  var identityLine = 0
  var name = ""
  var identity: (bus: UInt16, vendor: UInt16, product: UInt16, version: UInt16) = (0, 0, 0, 0)
  var properties: Set<UInt16> = []
  var propertyBytes = 0
  /// Bytes of each event type's code mask read so far (B: lines continue at this offset).
  var maskBytes = [Int](repeating: 0, count: Int(EventType.max) + 1)
  var keys: Set<UInt16> = []
  var sawAbsoluteMask = false
  /// For each ABS code: the B: 03 line that set its bit, 0 when clear.
  var absoluteMaskLine = [Int](repeating: 0, count: Int(AbsCode.max) + 1)
  var axes: [UInt16: AxisInfo] = [:]
  /// For each ABS code: its A: line, 0 when none.
  var axisLine = [Int](repeating: 0, count: Int(AbsCode.max) + 1)

  init(bytes: UnsafeBufferPointer<UInt8>, file: String) {
    self.bytes = bytes
    self.file = file
  }

  func error(_ line: Int, _ message: String) -> RecordingError {
    RecordingError(file: file, line: line, message: message)
  }

  /// Lines parsed so far, across pieces.
  var lineNumber = 0

  /// Parses every complete line of `bytes` (every line when `final`: the last may have no
  /// `\n`); returns where the incomplete rest starts.
  mutating func parseCompleteLines(final: Bool) throws(RecordingError) -> Int {
    var position = 0
    while position < bytes.count {
      if firstEventLine != 0, let next = parseRecordedEvent(at: position, final: final) {
        position = next
        continue
      }
      let end = Self.lineEnd(in: bytes, from: position)
      if end == bytes.count, !final { return position }
      lineNumber &+= 1
      var line = EvemuLine(bytes: bytes, range: position..<end, number: lineNumber)
      position = end &+ 1
      try parseLine(&line)
    }
    return bytes.count
  }

  /// An `E:` line exactly as evemu-record writes it (`E: %lu.%06u %04x %04x %04d`, then
  /// blanks or a `# comment`), after the first event: read straight from the piece, each
  /// field a word at a time without a branch per byte (`Words`), and the line's end looked
  /// for only in the comment. Returns where the next line starts, or nil for any other line
  /// (a value of eight digits or more, a line this piece does not finish, the piece's last
  /// few bytes), which `parseLine` then reads, and explains if it is wrong: what this
  /// accepts, `parseEvent` accepts with the same event. Every byte of the fixed part is
  /// checked to be a digit, a hex digit or a space, so none of it is past the line's end.
  @inline(__always)
  mutating func parseRecordedEvent(at start: Int, final: Bool) -> Int? {
    guard let base = bytes.baseAddress else { return nil }
    let count = bytes.count
    let raw = UnsafeRawPointer(base)
    // `E: ` and the time, the first sixteen bytes.
    guard start &+ 16 <= count else { return nil }
    let head = (
      low: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)),
      high: UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: start &+ 8, as: UInt64.self))
    )
    guard head.low & 0x00FF_FFFF == 0x0020_3A45 else { return nil }
    let period: Int
    let time: Int64
    if head.low == timePrefix.low, (head.high ^ timePrefix.high) & timePrefix.highMask == 0 {
      // The time of a line before (which started with `E: `, unlike the initial zeros).
      time = timePrefix.time
      period = start &+ timePrefix.length &- 8
      guard period &+ 27 <= count else { return nil }
    } else {
      let secondsStart = start &+ 3
      var (secondsDigits, seconds) = Words.leadingDigits(head.low &>> 24 | head.high &<< 40)
      if secondsDigits == 8 {
        // More than the word holds (absolute timestamps): the rest one by one.
        var index = secondsStart &+ 8
        while index < count, index &- secondsStart < 13, case let digit = base[index] &- ASCII.zero, digit < 10 {
          seconds = seconds &* 10 &+ UInt64(digit)
          index &+= 1
        }
        secondsDigits = index &- secondsStart
      }
      // At most 12 digits of seconds: below the 2^40 the field scanners saturate at.
      period = secondsStart &+ secondsDigits
      // `.DDDDDD HHHH HHHH ` (18 bytes), then a sign and eight bytes for the value.
      guard secondsDigits > 0, secondsDigits <= 12, period &+ 27 <= count else { return nil }
      // `.`, the six digits of the microseconds and a space: one word.
      let fraction = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: period, as: UInt64.self))
      let (microDigits, microseconds) = Words.leadingDigits(fraction &>> 8)
      guard fraction & 0xFF == UInt64(ASCII.period), microDigits == 6, fraction &>> 56 == UInt64(ASCII.space)
      else { return nil }
      time = Int64(seconds) &* 1_000_000 &+ Int64(microseconds)
      let length = period &+ 8 &- start
      timePrefix =
        length <= 16
        ? (head.low, head.high, UInt64.max &>> UInt64((16 &- length) &* 8), length, time)
        : (0, 0, 0, 0, 0)
    }

    // Type and code, four hex digits each, as the two halves of one word.
    let hexWord =
      UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: period &+ 8, as: UInt32.self)))
      | UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: period &+ 13, as: UInt32.self))) << 32
    guard let fields = Words.hexQuads(hexWord), base[period &+ 12] == ASCII.space, base[period &+ 17] == ASCII.space
    else { return nil }
    let type = fields & 0xFFFF
    let code = fields >> 16
    guard type <= UInt64(EventType.max), code <= UInt64(KeyCode.max) else { return nil }

    // The value: a sign, then one to seven digits (`%04d` writes four); longer ones are
    // the scanners' (they check the range of Int32).
    let negative = base[period &+ 18] == ASCII.minus
    let valueStart = negative ? period &+ 19 : period &+ 18
    let (valueDigits, magnitude) = Words.leadingDigits(
      UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: valueStart, as: UInt64.self)))
    guard valueDigits > 0, valueDigits < 8 else { return nil }
    let value = negative ? -Int64(magnitude) : Int64(magnitude)

    var index = valueStart &+ valueDigits
    while index < count, ASCII.isBlank(base[index]) { index &+= 1 }
    let end: Int
    if index < count, base[index] == ASCII.hash {
      end = Self.lineEnd(in: bytes, from: index &+ 1)
    } else {
      end = index
    }
    guard end < count ? base[end] == ASCII.newline : final else { return nil }
    guard time >= previousTime else { return nil }
    lineNumber &+= 1
    previousTime = time
    previousTimeLine = lineNumber
    eventCount &+= 1
    if keepsEvents {
      events.append(
        RawEvent(
          time: Timestamp(microseconds: time), type: UInt16(truncatingIfNeeded: type),
          code: UInt16(truncatingIfNeeded: code), value: Int32(truncatingIfNeeded: value)))
    }
    return end &+ 1
  }

  /// The end of the file: a description that no event completed is completed here.
  mutating func finishFile() throws(RecordingError) {
    if firstEventLine == 0 { device = try finishDescription(at: lineNumber) }
  }

  /// The index of the next `\n` at or after `start`, or the end of the file.
  ///
  /// Most of an evemu-record file is the comment after each event, so this is the hot loop:
  /// sixteen bytes compared at a time, the first match found in the comparison's lanes
  /// (read as two words), then, near the end of the piece, the word test (a word has a `\n`
  /// byte iff `word ^ 0x0A…` has a zero byte; the classic zero-byte test flags the first
  /// such byte exactly).
  ///
  /// Static, on the piece alone: called as a method from the parser's mutating ones, it
  /// would be handed a copy of the whole (large) parser on every line.
  @inline(__always)
  static func lineEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
    var index = start
    if let base = bytes.baseAddress {
      let raw = UnsafeRawPointer(base)
      let newlines = SIMD16<UInt8>(repeating: ASCII.newline)
      while index &+ 16 <= bytes.count {
        let found = raw.loadUnaligned(fromByteOffset: index, as: SIMD16<UInt8>.self) .== newlines
        if any(found) {
          // Each lane 0xFF or 0, lane 0 the lowest byte of the first word.
          let lanes = unsafeBitCast(found, to: SIMD2<UInt64>.self)
          let bit = lanes[0] != 0 ? lanes[0].trailingZeroBitCount : 64 &+ lanes[1].trailingZeroBitCount
          return index &+ (bit &>> 3)
        }
        index &+= 16
      }
      while index &+ 8 <= bytes.count {
        let word =
          UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt64.self))
          ^ 0x0A0A_0A0A_0A0A_0A0A
        let zeroBytes = (word &- 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
        if zeroBytes != 0 { return index &+ (zeroBytes.trailingZeroBitCount &>> 3) }
        index &+= 8
      }
    }
    while index < bytes.count, bytes[index] != ASCII.newline { index &+= 1 }
    return index
  }

  mutating func parseLine(_ line: inout EvemuLine) throws(RecordingError) {
    line.skipBlanks()
    guard line.position < line.end else { return }
    let kind = bytes[line.position]
    if kind == ASCII.hash { return }
    guard line.position &+ 1 < line.end, bytes[line.position &+ 1] == ASCII.colon else {
      throw error(
        line.number,
        "unexpected line starting \(line.quoted(line.rest)); expected a line starting with "
          + "N:, I:, P:, B:, A:, L:, S:, E: or # (a comment)")
    }
    line.position &+= 2
    switch kind {
    case UInt8(ascii: "E"): try parseEvent(&line)
    case UInt8(ascii: "N"): try parseName(&line)
    case UInt8(ascii: "I"): try parseIdentity(&line)
    case UInt8(ascii: "P"): try parseProperties(&line)
    case UInt8(ascii: "B"): try parseMask(&line)
    case UInt8(ascii: "A"): try parseAxis(&line)
    case UInt8(ascii: "L"), UInt8(ascii: "S"):
      try parseState(&line, prefix: kind == UInt8(ascii: "L") ? "L:" : "S:")
    default:
      throw error(
        line.number,
        "unknown line kind \(line.quoted(line.position &- 2..<line.position)); expected "
          + "N:, I:, P:, B:, A:, L:, S:, E: or # (a comment)")
    }
  }

  // MARK: Events

  mutating func parseEvent(_ line: inout EvemuLine) throws(RecordingError) {
    if firstEventLine == 0 {
      device = try finishDescription(at: line.number)
      firstEventLine = line.number
    }
    let time = try line.timestamp()
    let type = try line.hexField(
      "event type", "hex, e.g. 0003", limit: Int64(EventType.max),
      limitName: "EV_MAX (0x1f)")
    let code = try line.hexField(
      "event code", "hex, e.g. 0035", limit: Int64(KeyCode.max),
      limitName: "the largest evdev code (0x2ff)")
    let valueToken = line.token()
    guard let value = line.decimal(valueToken) else {
      throw error(
        line.number,
        "expected the event value (decimal, e.g. 0001 or -001), found \(line.quoted(valueToken))")
    }
    guard value >= Int64(Int32.min), value <= Int64(Int32.max) else {
      throw error(
        line.number,
        "event value \(line.quoted(valueToken)) does not fit in a signed 32-bit integer "
          + "(\(Int32.min)...\(Int32.max))")
    }
    guard line.isAtEnd() else {
      throw error(
        line.number,
        "unexpected \(line.quoted(line.rest)) after the event value; expected the end of the "
          + "line or a # comment")
    }
    guard time >= previousTime else {
      throw error(
        line.number,
        "time goes backwards: \(Timestamp(microseconds: time)) is before "
          + "\(Timestamp(microseconds: previousTime)) on line \(previousTimeLine); events must "
          + "be in time order")
    }
    previousTime = time
    previousTimeLine = line.number
    eventCount &+= 1
    guard keepsEvents else { return }
    events.append(
      RawEvent(
        time: Timestamp(microseconds: time), type: UInt16(truncatingIfNeeded: type),
        code: UInt16(truncatingIfNeeded: code), value: Int32(truncatingIfNeeded: value)))
  }

  // MARK: Description

  /// Checks that a description line may come here, and moves to its stage.
  mutating func enter(
    _ next: DescriptionStage, prefix: String, line: Int
  ) throws(RecordingError) {
    if firstEventLine != 0 {
      throw error(
        line,
        "\(prefix) line after the first event (line \(firstEventLine)); the device description "
          + "must come before the E: lines, and a file holds one device")
    }
    switch next {
    case .name:
      if nameLine != 0 {
        throw error(
          line, "second N: line (the first is on line \(nameLine)); a file describes one device")
      }
    case .identity:
      if nameLine == 0 {
        throw error(line, "I: line before the N: line; a description starts with N: <device name>")
      }
      if identityLine != 0 {
        throw error(line, "second I: line (the first is on line \(identityLine))")
      }
    default:
      if nameLine == 0 {
        throw error(
          line, "\(prefix) line before the N: line; a description starts with N: <device name>")
      }
      if identityLine == 0 {
        throw error(
          line,
          "\(prefix) line before the I: line; expected I: <bus> <vendor> <product> <version> "
            + "right after N: (line \(nameLine))")
      }
    }
    if let stage, next < stage {
      throw error(
        line,
        "\(prefix) line after \(stagePrefix) lines; a description lists N:, I:, P:, B:, A:, "
          + "then L:/S: lines, in this order")
    }
    stage = next
    stagePrefix = prefix
  }

  mutating func parseName(_ line: inout EvemuLine) throws(RecordingError) {
    try enter(.name, prefix: "N:", line: line.number)
    line.skipBlanks()
    var end = line.end
    while end > line.position, ASCII.isBlank(bytes[end &- 1]) { end &-= 1 }
    guard end > line.position else {
      throw error(line.number, "N: line without a device name; expected N: <device name>")
    }
    guard
      let text = String(
        validating: UnsafeBufferPointer(rebasing: bytes[line.position..<end]), as: UTF8.self)
    else {
      throw error(line.number, "the device name is not valid UTF-8")
    }
    name = text
    nameLine = line.number
  }

  mutating func parseIdentity(_ line: inout EvemuLine) throws(RecordingError) {
    try enter(.identity, prefix: "I:", line: line.number)
    var fields: [UInt16] = []
    for what in ["bus", "vendor", "product", "version"] {
      let value = try line.hexField(
        what, "hex, e.g. 0003, in I: <bus> <vendor> <product> <version>",
        limit: 0xFFFF, limitName: "0xffff")
      fields.append(UInt16(truncatingIfNeeded: value))
    }
    try line.expectEnd(after: "I: <bus> <vendor> <product> <version>")
    identity = (fields[0], fields[1], fields[2], fields[3])
    identityLine = line.number
  }

  mutating func parseProperties(_ line: inout EvemuLine) throws(RecordingError) {
    try enter(.properties, prefix: "P:", line: line.number)
    let mask = try line.maskBytes("P:")
    for (index, byte) in mask.enumerated() where byte != 0 {
      for bit in 0..<8 where byte & (1 << bit) != 0 {
        let property = (propertyBytes &+ index) &* 8 &+ bit
        guard property <= Int(InputProperty.max) else {
          throw error(
            line.number,
            "property bit \(hex(property)) is above INPUT_PROP_MAX (\(hex(Int(InputProperty.max))))"
          )
        }
        properties.insert(UInt16(truncatingIfNeeded: property))
      }
    }
    propertyBytes &+= 8
  }

  mutating func parseMask(_ line: inout EvemuLine) throws(RecordingError) {
    try enter(.masks, prefix: "B:", line: line.number)
    let type = Int(
      try line.hexField(
        "event type", "hex, e.g. 01, in B: <type> <8 bytes>",
        limit: Int64(EventType.max), limitName: "EV_MAX (0x1f)"))
    let mask = try line.maskBytes("B:")
    let offset = maskBytes[type]
    let largestCode = type == Int(EventType.abs) ? Int(AbsCode.max) : Int(KeyCode.max)
    for (index, byte) in mask.enumerated() where byte != 0 {
      for bit in 0..<8 where byte & (1 << bit) != 0 {
        let code = (offset &+ index) &* 8 &+ bit
        guard code <= largestCode else {
          throw error(
            line.number,
            "code \(hex(code)) of event type \(hex(type)) is above \(hex(largestCode)); "
              + "too many B: \(hex(type).dropFirst(2)) lines or a wrong byte")
        }
        if type == Int(EventType.key) { keys.insert(UInt16(truncatingIfNeeded: code)) }
        if type == Int(EventType.abs) { absoluteMaskLine[code] = line.number }
      }
    }
    if type == Int(EventType.abs) { sawAbsoluteMask = true }
    maskBytes[type] = offset &+ 8
  }

  mutating func parseAxis(_ line: inout EvemuLine) throws(RecordingError) {
    try enter(.axes, prefix: "A:", line: line.number)
    let code = Int(
      try line.hexField(
        "axis code", "hex, e.g. 35, in A: <code> <min> <max> <fuzz> <flat> [<resolution>]",
        limit: Int64(AbsCode.max), limitName: "ABS_MAX (0x3f)"))
    var numbers: [Int32] = []
    let names = ["min", "max", "fuzz", "flat", "resolution"]
    while !line.isAtEnd() {
      guard numbers.count < names.count else {
        throw error(
          line.number,
          "A: line has more than 5 numbers after the code; expected <min> <max> <fuzz> <flat> "
            + "[<resolution>]")
      }
      numbers.append(try line.decimalField(names[numbers.count]))
    }
    guard numbers.count >= 4 else {
      throw error(
        line.number,
        "A: line has \(numbers.count) numbers after the code; expected 4 or 5: <min> <max> "
          + "<fuzz> <flat> [<resolution>]")
    }
    let axis = AxisInfo(
      minimum: numbers[0], maximum: numbers[1], fuzz: numbers[2], flat: numbers[3],
      resolution: numbers.count > 4 ? numbers[4] : 0)
    guard axis.minimum <= axis.maximum else {
      throw error(
        line.number, "axis \(hex(code)): min \(axis.minimum) is greater than max \(axis.maximum)")
    }
    for (value, what) in [
      (axis.fuzz, "fuzz"), (axis.flat, "flat"), (axis.resolution, "resolution"),
    ]
    where value < 0 {
      throw error(
        line.number, "axis \(hex(code)): \(what) \(value) is negative; expected 0 or more")
    }
    if axisLine[code] != 0 {
      throw error(
        line.number, "second A: line for axis \(hex(code)) (the first is on line \(axisLine[code]))"
      )
    }
    if sawAbsoluteMask && absoluteMaskLine[code] == 0 {
      throw error(
        line.number,
        "A: line for axis \(hex(code)), but its bit is not set in the B: 03 mask; the mask and "
          + "the A: lines must name the same axes")
    }
    axisLine[code] = line.number
    axes[UInt16(truncatingIfNeeded: code)] = axis
  }

  /// L: and S: lines (LED and switch states): nothing to use, but they must be well formed.
  mutating func parseState(_ line: inout EvemuLine, prefix: String) throws(RecordingError) {
    try enter(.ledsAndSwitches, prefix: prefix, line: line.number)
    _ = try line.hexField(
      "code", "hex, in \(prefix) <code> <state>", limit: Int64(KeyCode.max),
      limitName: "the largest evdev code (0x2ff)")
    _ = try line.decimalField("state")
    try line.expectEnd(after: "\(prefix) <code> <state>")
  }

  /// The description read so far, checked as a whole; nil when the file has none.
  /// `line` is where it ended: the first E: line, or the file's last line.
  func finishDescription(at line: Int) throws(RecordingError) -> DeviceDescription? {
    guard nameLine != 0 else { return nil }
    guard identityLine != 0 else {
      throw error(
        line,
        "the description that starts on line \(nameLine) has no I: line; expected "
          + "I: <bus> <vendor> <product> <version> right after N:")
    }
    if sawAbsoluteMask {
      for code in absoluteMaskLine.indices where absoluteMaskLine[code] != 0 && axisLine[code] == 0 {
        throw error(
          absoluteMaskLine[code],
          "axis \(hex(code)) is set in this B: 03 mask but no A: line gives its range")
      }
    }
    return DeviceDescription(
      name: name, bus: identity.bus, vendor: identity.vendor, product: identity.product,
      version: identity.version, properties: properties, keys: keys, axes: axes)
  }

  /// `0x` and at least two hex digits, as codes are usually written.
  func hex(_ value: Int) -> String {
    let digits = String(value, radix: 16)
    return (digits.count < 2 ? "0x0" : "0x") + digits
  }
}
