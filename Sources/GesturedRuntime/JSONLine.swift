import GestureCore

/// One JSON object on one line, keys in the order they are added.
///
/// Written by hand rather than with an encoder because replay's output is a contract: key
/// order, four decimals and no exponent notation are part of it, and scripts diff it.
public struct JSONLine: Sendable {
  private var text = "{"

  public init() {}

  /// The object, without a trailing newline.
  public var line: String { text + "}" }

  public mutating func add(_ key: String, _ value: String) {
    addKey(key)
    text += JSONLine.quoted(value)
  }

  /// A string, or `null` when absent.
  public mutating func add(_ key: String, _ value: String?) {
    guard let value else { return addNull(key) }
    add(key, value)
  }

  public mutating func add(_ key: String, _ value: Int) {
    addKey(key)
    text += String(value)
  }

  public mutating func add(_ key: String, _ value: Bool) {
    addKey(key)
    text += value ? "true" : "false"
  }

  /// A number rounded to four decimals (see `DecimalText.fourDecimals`); `null` if it is
  /// not finite or too large to write exactly.
  public mutating func add(_ key: String, rounded value: Double) {
    addKey(key)
    text += DecimalText.fourDecimals(value) ?? "null"
  }

  /// Seconds with exactly six decimals, from the integer microseconds.
  public mutating func add(_ key: String, _ time: Timestamp) {
    addKey(key)
    text += time.description
  }

  public mutating func addNull(_ key: String) {
    addKey(key)
    text += "null"
  }

  private mutating func addKey(_ key: String) {
    if text.utf8.count > 1 { text += "," }
    text += JSONLine.quoted(key)
    text += ":"
  }

  /// `value` as a JSON string: quotes, backslashes and control characters (C0, DEL, C1) escaped, every
  /// other character (including non-ASCII) kept as UTF-8.
  public static func quoted(_ value: String) -> String {
    // Names, keys and files are nearly always printable ASCII without quotes or backslashes:
    // nothing to escape, so no walk over the scalars.
    if value.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }) {
      return "\"" + value + "\""
    }
    var out = "\""
    out.reserveCapacity(value.utf8.count + 2)
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": out += "\\\""
      case "\\": out += "\\\\"
      case "\n": out += "\\n"
      case "\r": out += "\\r"
      case "\t": out += "\\t"
      case "\u{08}": out += "\\b"
      case "\u{0C}": out += "\\f"
      // DEL and C1 too: valid in JSON, but a terminal showing the line would act on them.
      case _ where scalar.value < 0x20 || (scalar.value >= 0x7F && scalar.value <= 0x9F):
        let hex = String(scalar.value, radix: 16)
        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: out.unicodeScalars.append(scalar)
      }
    }
    out += "\""
    return out
  }
}

/// Decimal text for reported numbers, the same in JSON and in action environments.
public enum DecimalText {
  /// `value` rounded half away from zero to four decimals, trailing zeros dropped but at least
  /// one decimal kept: 0.5 → "0.5", 1 → "1.0", 0.123456 → "0.1235", -0.00001 → "0.0".
  /// Never exponent notation. nil for NaN and infinities, and for magnitudes beyond what an
  /// Int64 holds, which no gesture produces.
  public static func fourDecimals(_ value: Double) -> String? {
    guard value.isFinite else { return nil }
    let scaled = (value * 10_000).rounded(.toNearestOrAwayFromZero)
    if let units = Int64(exactly: scaled) {
      let magnitude = units.magnitude
      // The four decimals as a number and how many of them are kept: trailing zeros go,
      // one decimal stays (0500 → "05", 0000 → "0"), leading zeros are written back.
      var decimals = magnitude % 10_000
      var kept = 4
      while kept > 1, decimals % 10 == 0 {
        decimals /= 10
        kept -= 1
      }
      let digits = String(decimals)
      var text = units < 0 ? "-" : ""
      text += String(magnitude / 10_000)
      text += "."
      for _ in digits.utf8.count..<kept { text += "0" }
      text += digits
      return text
    }
    // Too large for four decimals in an Int64: such a value has no fraction left anyway.
    guard let whole = Int64(exactly: value.rounded(.toNearestOrAwayFromZero)) else { return nil }
    return String(whole) + ".0"
  }
}
