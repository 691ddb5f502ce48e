/// The bytes the evemu scanner looks at.
enum ASCII {
  static let tab: UInt8 = 0x09
  static let newline: UInt8 = 0x0A
  static let verticalTab: UInt8 = 0x0B
  static let formFeed: UInt8 = 0x0C
  static let carriageReturn: UInt8 = 0x0D
  static let space: UInt8 = 0x20
  static let hash: UInt8 = 0x23
  static let plus: UInt8 = 0x2B
  static let minus: UInt8 = 0x2D
  static let period: UInt8 = 0x2E
  static let zero: UInt8 = 0x30
  static let nine: UInt8 = 0x39
  static let colon: UInt8 = 0x3A
  static let upperA: UInt8 = 0x41
  static let upperF: UInt8 = 0x46
  static let lowerA: UInt8 = 0x61
  static let lowerF: UInt8 = 0x66

  /// Space, tab, and the `\r` a CRLF file leaves at the end of each line.
  @inline(__always)
  static func isBlank(_ byte: UInt8) -> Bool {
    byte == space || byte == tab || byte == carriageReturn || byte == verticalTab
      || byte == formFeed
  }

  @inline(__always)
  static func decimalDigit(_ byte: UInt8) -> Int64? {
    byte >= zero && byte <= nine ? Int64(byte &- zero) : nil
  }

  @inline(__always)
  static func hexDigit(_ byte: UInt8) -> Int64? {
    if byte >= zero && byte <= nine { return Int64(byte &- zero) }
    if byte >= lowerA && byte <= lowerF { return Int64(byte &- lowerA &+ 10) }
    if byte >= upperA && byte <= upperF { return Int64(byte &- upperA &+ 10) }
    return nil
  }
}

/// Fields of evemu-record's fixed layout read eight bytes at a time, without a branch per
/// byte: the bytes of one little-endian word, the file's first byte the word's lowest.
enum Words {
  /// The decimal digits at the start of `word`: how many (0...8), and their value.
  @inline(__always)
  static func leadingDigits(_ word: UInt64) -> (count: Int, value: UInt64) {
    // A digit becomes 0...9; any other byte 10 or more, or with its top bit set.
    let offsets = word ^ 0x3030_3030_3030_3030
    let nonDigits =
      (((offsets & 0x7F7F_7F7F_7F7F_7F7F) &+ 0x7676_7676_7676_7676) | offsets) & 0x8080_8080_8080_8080
    let count = nonDigits.trailingZeroBitCount &>> 3
    // The digits moved up to the top bytes, zeros (leading zeros) below them, then combined
    // pairwise: two digits per 16 bits, four per 32, eight.
    var value = count == 0 ? 0 : offsets &<< UInt64(64 &- count &* 8)
    value = (value &* 2561) &>> 8
    value = ((value & 0x00FF_00FF_00FF_00FF) &* 6_553_601) &>> 16
    value = ((value & 0x0000_FFFF_0000_FFFF) &* 42_949_672_960_001) &>> 32
    return (count, value)
  }

  /// Two fields of four hex digits, the low and the high half of `word`, as
  /// `low | high << 16`; nil when a byte is not a hex digit (either case).
  @inline(__always)
  static func hexQuads(_ word: UInt64) -> UInt64? {
    let tops: UInt64 = 0x8080_8080_8080_8080
    guard word & tops == 0 else { return nil }
    // With the top bits clear, adding sets a byte's top bit iff it is at least 0x80 minus
    // the addend, and carries into no other byte.
    let digits = (word &+ 0x5050_5050_5050_5050) & ~(word &+ 0x4646_4646_4646_4646) & tops
    let lowercased = word | 0x2020_2020_2020_2020
    let letters = (lowercased &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(lowercased &+ 0x1919_1919_1919_1919) & tops
    guard digits | letters == tops else { return nil }
    let nibbles = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ (letters &>> 7) &* 9
    // Each even byte: its nibble and the next byte's.
    let pairs = (nibbles &<< 4 | nibbles &>> 8) & 0x00FF_00FF_00FF_00FF
    let low = (pairs & 0xFF) &<< 8 | (pairs &>> 16) & 0xFF
    let high = (pairs &>> 32 & 0xFF) &<< 8 | (pairs &>> 48) & 0xFF
    return low | high &<< 16
  }
}

/// A cursor over one line of an evemu file (without its `\n`), splitting it into
/// blank-separated tokens. A `#` ends the data part of a line: the rest is a comment.
///
/// Works on the file's bytes in place, so reading an `E:` line allocates nothing.
struct EvemuLine {
  let bytes: UnsafeBufferPointer<UInt8>
  /// One past the line's last byte.
  let end: Int
  /// 1-based line number, for errors.
  let number: Int
  var position: Int

  init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>, number: Int) {
    self.bytes = bytes
    self.end = range.upperBound
    self.number = number
    self.position = range.lowerBound
  }

  @inline(__always)
  mutating func skipBlanks() {
    while position < end, ASCII.isBlank(bytes[position]) { position &+= 1 }
  }

  /// True when only blanks or a comment are left.
  @inline(__always)
  mutating func isAtEnd() -> Bool {
    skipBlanks()
    return position == end || bytes[position] == ASCII.hash
  }

  /// The next run of bytes up to a blank, a `#` or the end of the line; empty at the end.
  @inline(__always)
  mutating func token() -> Range<Int> {
    skipBlanks()
    let start = position
    while position < end {
      let byte = bytes[position]
      if ASCII.isBlank(byte) || byte == ASCII.hash { break }
      position &+= 1
    }
    return start..<position
  }

  /// What is left of the line, comment included, for error messages.
  var rest: Range<Int> { position..<end }

  /// A hex number without `0x`, or nil when the token is empty or holds a non-hex byte.
  /// Saturates at 2^40, far above any limit the parser checks, so it cannot overflow.
  @inline(__always)
  func hex(_ token: Range<Int>) -> Int64? {
    if token.isEmpty { return nil }
    var value: Int64 = 0
    for index in token {
      guard let digit = ASCII.hexDigit(bytes[index]) else { return nil }
      value = min(value &* 16 &+ digit, EvemuLine.saturation)
    }
    return value
  }

  /// A decimal number with an optional sign; zero padding (`0007`, `-001`) is fine.
  /// Saturates at ±2^40.
  @inline(__always)
  func decimal(_ token: Range<Int>) -> Int64? {
    var index = token.lowerBound
    var negative = false
    if index < token.upperBound, bytes[index] == ASCII.minus || bytes[index] == ASCII.plus {
      negative = bytes[index] == ASCII.minus
      index &+= 1
    }
    if index == token.upperBound { return nil }
    var magnitude: Int64 = 0
    while index < token.upperBound {
      guard let digit = ASCII.decimalDigit(bytes[index]) else { return nil }
      magnitude = min(magnitude &* 10 &+ digit, EvemuLine.saturation)
      index &+= 1
    }
    return negative ? -magnitude : magnitude
  }

  static let saturation: Int64 = 1 << 40

  /// A token quoted for an error message: at most 40 bytes, control characters shown as `?`.
  func quoted(_ range: Range<Int>) -> String {
    if range.isEmpty { return "the end of the line" }
    let shown = range.lowerBound..<min(range.upperBound, range.lowerBound &+ 40)
    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[shown]), as: UTF8.self)
    let printable = String(
      String.UnicodeScalarView(
        text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    return "'" + printable + (shown.count < range.count ? "…'" : "'")
  }
}

// MARK: Fields

extension EvemuLine {
  /// An error on this line; the parser fills in the file name.
  func failure(_ message: String) -> RecordingError {
    RecordingError(file: "", line: number, message: message)
  }

  /// `SEC.USEC` in microseconds, in one pass over the field. (Inlined, like `hexField`:
  /// every E: line reads one, and the call cost more than the work.)
  @inline(__always)
  mutating func timestamp() throws(RecordingError) -> Int64 {
    let field = token()
    var index = field.lowerBound
    var seconds: Int64 = 0
    while index < field.upperBound, let digit = ASCII.decimalDigit(bytes[index]) {
      seconds = min(seconds &* 10 &+ digit, EvemuLine.saturation)
      index &+= 1
    }
    let secondsEnd = index
    let hasPeriod = index < field.upperBound && bytes[index] == ASCII.period
    if hasPeriod { index &+= 1 }
    let microsecondsStart = index
    var microseconds: Int64 = 0
    while index < field.upperBound, let digit = ASCII.decimalDigit(bytes[index]) {
      microseconds = min(microseconds &* 10 &+ digit, EvemuLine.saturation)
      index &+= 1
    }
    guard secondsEnd > field.lowerBound, hasPeriod, index > microsecondsStart,
      index == field.upperBound
    else {
      throw failure(
        "expected the event time as SECONDS.MICROSECONDS (e.g. 12.000345), found "
          + quoted(field))
    }
    guard index &- microsecondsStart <= 6 else {
      throw failure(
        "microseconds \(quoted(microsecondsStart..<index)) must be 0...999999 (at most 6 "
          + "digits)")
    }
    guard seconds < EvemuLine.saturation else {
      throw failure("seconds \(quoted(field.lowerBound..<secondsEnd)) are too large")
    }
    return seconds &* 1_000_000 &+ microseconds
  }

  /// A hex field; `what` names it in errors, `format` shows how it should look.
  @inline(__always)
  mutating func hexField(
    _ what: String, _ format: String, limit: Int64, limitName: String
  ) throws(RecordingError) -> Int64 {
    let field = token()
    guard let value = hex(field) else {
      throw failure("expected the \(what) (\(format)), found \(quoted(field))")
    }
    guard value <= limit else {
      throw failure("\(what) \(quoted(field)) is above \(limitName)")
    }
    return value
  }

  mutating func decimalField(_ what: String) throws(RecordingError) -> Int32 {
    let field = token()
    guard let value = decimal(field) else {
      throw failure("expected the \(what) (decimal), found \(quoted(field))")
    }
    guard value >= Int64(Int32.min), value <= Int64(Int32.max) else {
      throw failure("\(what) \(quoted(field)) does not fit in a signed 32-bit integer")
    }
    return Int32(truncatingIfNeeded: value)
  }

  mutating func expectEnd(after what: String) throws(RecordingError) {
    guard isAtEnd() else {
      throw failure(
        "unexpected \(quoted(rest)) after \(what); expected the end of the line or a "
          + "# comment")
    }
  }

  /// Eight hex bytes, as P: and B: lines carry them.
  mutating func maskBytes(_ prefix: String) throws(RecordingError) -> [UInt8] {
    var result: [UInt8] = []
    result.reserveCapacity(8)
    for index in 0..<8 {
      let field = token()
      if field.isEmpty {
        throw failure("\(prefix) line has \(index) mask bytes; expected 8 hex bytes (e.g. 00 04 …)")
      }
      guard let value = hex(field), value <= 0xFF else {
        throw failure(
          "expected a mask byte (two hex digits, e.g. 0b), found \(quoted(field))")
      }
      result.append(UInt8(truncatingIfNeeded: value))
    }
    try expectEnd(after: "8 mask bytes")
    return result
  }
}
