import GestureCore

/// One JSON object on one line, keys in the order they are added.
///
/// Written by hand rather than with an encoder because replay's output is a contract: key
/// order, four decimals and no exponent notation are part of it, and scripts diff it.
/// Built as UTF-8 bytes: replay writes one for each firing, and Strings put together piece
/// by piece cost an allocation or a copy each.
public struct JSONLine: Sendable {
  private var bytes: [UInt8] = [UInt8(ascii: "{")]

  public init() {}

  /// The object, without a trailing newline.
  public var line: String { String(decoding: bytes + [UInt8(ascii: "}")], as: UTF8.self) }

  /// The object and a newline, after what `output` holds.
  public func appendLine(to output: inout [UInt8]) {
    output += bytes
    output.append(UInt8(ascii: "}"))
    output.append(UInt8(ascii: "\n"))
  }

  public mutating func add(_ key: String, _ value: String) {
    addKey(key)
    JSONLine.appendQuoted(value, to: &bytes)
  }

  /// A string, or `null` when absent.
  public mutating func add(_ key: String, _ value: String?) {
    guard let value else { return addNull(key) }
    add(key, value)
  }

  public mutating func add(_ key: String, _ value: Int) {
    addKey(key)
    DecimalText.appendDecimal(Int64(value), to: &bytes)
  }

  public mutating func add(_ key: String, _ value: Bool) {
    addKey(key)
    bytes += (value ? "true" : "false").utf8
  }

  /// A number rounded to four decimals (see `DecimalText.fourDecimals`); `null` if it is
  /// not finite or too large to write exactly.
  public mutating func add(_ key: String, rounded value: Double) {
    addKey(key)
    if !DecimalText.appendFourDecimals(value, to: &bytes) { bytes += "null".utf8 }
  }

  /// Seconds with exactly six decimals, from the integer microseconds (as
  /// `Timestamp.description` writes them).
  public mutating func add(_ key: String, _ time: Timestamp) {
    addKey(key)
    let microseconds = time.microseconds
    if microseconds < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = microseconds.magnitude
    DecimalText.appendDecimal(Int64(magnitude / 1_000_000), to: &bytes)
    bytes.append(UInt8(ascii: "."))
    DecimalText.appendDigits(magnitude % 1_000_000, count: 6, to: &bytes)
  }

  public mutating func addNull(_ key: String) {
    addKey(key)
    bytes += "null".utf8
  }

  private mutating func addKey(_ key: String) {
    if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
    JSONLine.appendQuoted(key, to: &bytes)
    bytes.append(UInt8(ascii: ":"))
  }

  /// `value` as a JSON string: quotes, backslashes and control characters (C0, DEL, C1) escaped, every
  /// other character (including non-ASCII) kept as UTF-8.
  public static func quoted(_ value: String) -> String {
    var bytes: [UInt8] = []
    appendQuoted(value, to: &bytes)
    return String(decoding: bytes, as: UTF8.self)
  }

  static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
    bytes.append(UInt8(ascii: "\""))
    defer { bytes.append(UInt8(ascii: "\"")) }
    // Names, keys and files are nearly always printable ASCII without quotes or backslashes:
    // nothing to escape, so no walk over the scalars.
    if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      bytes += value.utf8
      return
    }
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": bytes += #"\""#.utf8
      case "\\": bytes += #"\\"#.utf8
      case "\n": bytes += #"\n"#.utf8
      case "\r": bytes += #"\r"#.utf8
      case "\t": bytes += #"\t"#.utf8
      case "\u{08}": bytes += #"\b"#.utf8
      case "\u{0C}": bytes += #"\f"#.utf8
      // DEL and C1 too: valid in JSON, but a terminal showing the line would act on them.
      case _ where scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F):
        let hex = String(scalar.value, radix: 16)
        bytes += ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8
      default: bytes += String(scalar).utf8
      }
    }
  }
}

/// Decimal text for reported numbers, the same in JSON and in action environments.
public enum DecimalText {
  /// `value` rounded half away from zero to four decimals, trailing zeros dropped but at least
  /// one decimal kept: 0.5 → "0.5", 1 → "1.0", 0.123456 → "0.1235", -0.00001 → "0.0".
  /// Never exponent notation. nil for NaN and infinities, and for magnitudes beyond what an
  /// Int64 holds, which no gesture produces.
  public static func fourDecimals(_ value: Double) -> String? {
    var bytes: [UInt8] = []
    guard appendFourDecimals(value, to: &bytes) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// `fourDecimals(value)` after what `bytes` holds; false (and nothing added) where that
  /// is nil.
  static func appendFourDecimals(_ value: Double, to bytes: inout [UInt8]) -> Bool {
    guard value.isFinite else { return false }
    let scaled = (value * 10_000).rounded(.toNearestOrAwayFromZero)
    if let units = Int64(exactly: scaled) {
      if units < 0 { bytes.append(UInt8(ascii: "-")) }
      let magnitude = units.magnitude
      appendDecimal(Int64(magnitude / 10_000), to: &bytes)
      bytes.append(UInt8(ascii: "."))
      var fraction = magnitude % 10_000
      var digits = 4
      while digits > 1, fraction % 10 == 0 {
        fraction /= 10
        digits -= 1
      }
      appendDigits(fraction, count: digits, to: &bytes)
      return true
    }
    // Too large for four decimals in an Int64: such a value has no fraction left anyway.
    guard let whole = Int64(exactly: value.rounded(.toNearestOrAwayFromZero)) else { return false }
    appendDecimal(whole, to: &bytes)
    bytes += ".0".utf8
    return true
  }

  /// `String(value)`'s digits, after what `bytes` holds.
  static func appendDecimal(_ value: Int64, to bytes: inout [UInt8]) {
    if value < 0 { bytes.append(UInt8(ascii: "-")) }
    let magnitude = value.magnitude
    var count = 1
    var rest = magnitude / 10
    while rest > 0 {
      count += 1
      rest /= 10
    }
    appendDigits(magnitude, count: count, to: &bytes)
  }

  /// The last `count` decimal digits of `value`, zero-padded.
  static func appendDigits(_ value: UInt64, count: Int, to bytes: inout [UInt8]) {
    var value = value
    let start = bytes.count
    bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
    var index = start + count
    while index > start {
      index -= 1
      bytes[index] = UInt8(ascii: "0") + UInt8(value % 10)
      value /= 10
    }
  }
}
