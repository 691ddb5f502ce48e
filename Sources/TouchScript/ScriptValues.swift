import GestureCore

/// A line of a touch script split into words. Whitespace separates words, `"…"` quotes
/// (the quotes are dropped, `\` escapes the next character inside them), and a `#` outside
/// quotes starts a comment.
struct ScriptLine {
  let number: Int
  let words: [String]

  init(number: Int, text: Substring) throws(TouchScriptError) {
    self.number = number
    var words: [String] = []
    var current = ""
    var inWord = false
    var quoted = false
    var escaped = false
    for character in text {
      if quoted {
        if escaped {
          current.append(character)
          escaped = false
        } else if character == "\\" {
          escaped = true
        } else if character == "\"" {
          quoted = false
        } else {
          current.append(character)
        }
        continue
      }
      if character == "#" { break }
      if character == " " || character == "\t" || character == "\r" {
        if inWord { words.append(current) }
        current = ""
        inWord = false
        continue
      }
      inWord = true
      if character == "\"" { quoted = true } else { current.append(character) }
    }
    if quoted {
      throw TouchScriptError(line: number, message: "a quote is not closed; expected a closing \"")
    }
    if inWord { words.append(current) }
    self.words = words
  }
}

/// The `key=value` words after a command, each key at most once, with the line for errors.
struct Arguments {
  let line: Int
  let command: String
  private var values: [String: String] = [:]
  private var order: [String] = []
  private var used: Set<String> = []

  init(line: Int, command: String, words: ArraySlice<String>) throws(TouchScriptError) {
    self.line = line
    self.command = command
    for word in words {
      guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
        throw TouchScriptError(
          line: line, message: "\(command): expected key=value, found '\(word)'")
      }
      let key = String(word[..<equals])
      let value = String(word[word.index(after: equals)...])
      if values[key] != nil {
        throw TouchScriptError(line: line, message: "\(command): '\(key)' is given twice")
      }
      values[key] = value
      order.append(key)
    }
  }

  mutating func take(_ key: String) -> String? {
    used.insert(key)
    return values[key]
  }

  /// Unknown keys are mistakes (a typo would otherwise silently fall back to a default).
  func rejectUnused(known: [String]) throws(TouchScriptError) {
    for key in order where !used.contains(key) {
      throw TouchScriptError(
        line: line,
        message: "\(command): unknown key '\(key)'; known keys: \(known.joined(separator: ", "))")
    }
  }

  func error(_ message: String) -> TouchScriptError {
    TouchScriptError(line: line, message: "\(command): \(message)")
  }
}

/// A position on one axis: a fraction of the panel (as the device reports it) plus an
/// optional offset in millimetres, written `0.5`, `0.5+8mm` or `0.5-12mm`.
struct Coordinate: Hashable, Sendable {
  var fraction: Double
  var millimetres: Double = 0
}

/// A position on the panel, device coordinates.
struct ScriptPoint: Hashable, Sendable {
  var x: Coordinate
  var y: Coordinate
}

/// Parsers for the value syntaxes of the format. Each returns nil on bad input; callers turn
/// that into an error that names the line and what was expected.
enum ScriptValue {
  /// A plain decimal number: `12`, `-0.5`, `.25`. No exponent, no inf or nan.
  static func number(_ text: Substring) -> Double? {
    var digits = 0
    var dots = 0
    for (offset, character) in text.enumerated() {
      if character == "-" || character == "+" {
        if offset != 0 { return nil }
      } else if character == "." {
        dots += 1
      } else if character.isASCII, character.isNumber {
        digits += 1
      } else {
        return nil
      }
    }
    guard digits > 0, dots <= 1, let value = Double(text), value.isFinite else { return nil }
    return value
  }

  static func number(_ text: String) -> Double? { number(text[...]) }

  /// A number followed by one of `units` (longest first); returns the number and the unit.
  static func withUnit(_ text: String, _ units: [String]) -> (Double, String)? {
    for unit in units where text.hasSuffix(unit) {
      if let value = number(text.dropLast(unit.count)) { return (value, unit) }
    }
    return nil
  }

  /// `80ms`, `1.5s`, `250us`: a time in whole microseconds, not negative.
  static func duration(_ text: String) -> Microseconds? {
    guard let (value, unit) = withUnit(text, ["ms", "us", "s"]), value >= 0 else { return nil }
    let scale: Double = unit == "s" ? 1_000_000 : unit == "ms" ? 1_000 : 1
    let micros = (value * scale).rounded()
    // 10^12 µs is 11 days: far beyond any script, and safely inside Int64.
    guard micros <= 1e12 else { return nil }
    return Microseconds(micros)
  }

  /// `3mm`, `-2.5mm`, `0` (a bare zero needs no unit).
  static func length(_ text: String) -> Double? {
    if text == "0" { return 0 }
    return withUnit(text, ["mm"])?.0
  }

  /// `30deg`, `-15deg`, `0`.
  static func angle(_ text: String) -> Double? {
    if text == "0" { return 0 }
    return withUnit(text, ["deg"])?.0
  }

  /// `100hz`: samples per second, 1…10000.
  static func rate(_ text: String) -> Double? {
    guard let (value, _) = withUnit(text.lowercased(), ["hz"]), value >= 1, value <= 10_000
    else { return nil }
    return value
  }

  /// Decimal or `0x` hexadecimal, within `range`.
  static func integer(_ text: String, in range: ClosedRange<Int64>) -> Int64? {
    let value: Int64?
    if text.hasPrefix("0x") || text.hasPrefix("0X") {
      value = Int64(text.dropFirst(2), radix: 16)
    } else {
      value = Int64(text)
    }
    guard let value, range.contains(value) else { return nil }
    return value
  }

  /// `MIN..MAX` with MIN < MAX, both fitting an evdev axis.
  static func range(_ text: String) -> (Int32, Int32)? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    // "0..4095" splits into ["0", "", "4095"]; "-100..100" into ["-100", "", "100"].
    guard parts.count == 3, parts[1].isEmpty, let low = Int32(parts[0]), let high = Int32(parts[2]),
      low < high
    else { return nil }
    return (low, high)
  }

  /// `0.5`, `0.5+8mm`, `0.5-12mm`.
  static func coordinate(_ text: Substring) -> Coordinate? {
    if let value = number(text) { return Coordinate(fraction: value) }
    guard text.hasSuffix("mm") else { return nil }
    // The sign that splits the fraction from the offset is the last + or - not at the start.
    guard
      let split = text.indices.dropFirst().last(where: { text[$0] == "+" || text[$0] == "-" }),
      let fraction = number(text[..<split]),
      let offset = number(text[split..<text.index(text.endIndex, offsetBy: -2)])
    else { return nil }
    return Coordinate(fraction: fraction, millimetres: offset)
  }

  /// `x,y` with each part a coordinate.
  static func point(_ text: String) -> ScriptPoint? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let x = coordinate(parts[0]), let y = coordinate(parts[1]) else {
      return nil
    }
    return ScriptPoint(x: x, y: y)
  }

  /// `dx,dy` with each part a length (`4mm,-2mm`).
  static func vector(_ text: String) -> (Double, Double)? {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    guard parts.count == 2, let dx = length(String(parts[0])), let dy = length(String(parts[1]))
    else { return nil }
    return (dx, dy)
  }

  /// `WxHmm`, e.g. `344x194mm`.
  static func size(_ text: String) -> PanelSize? {
    guard text.hasSuffix("mm") else { return nil }
    let parts = text.dropLast(2).split(separator: "x", omittingEmptySubsequences: false)
    guard parts.count == 2, let width = number(parts[0]), let height = number(parts[1]),
      width > 0, height > 0
    else { return nil }
    return PanelSize(width: width, height: height)
  }

  /// `VALUE`, `VALUE±TOLERANCE` (also `VALUE+-TOLERANCE`) or `LOW..HIGH`, each part read by
  /// `read`. A range suits values that only ever land on one side of a threshold, such as the
  /// scale a pinch reports when it fires.
  static func approximate(
    _ text: String, defaultTolerance: Double, read: (String) -> Double?
  ) -> Approximate? {
    if let dots = text.indices.dropFirst().first(where: {
      text[$0] == "." && text.index(after: $0) < text.endIndex && text[text.index(after: $0)] == "."
    }) {
      guard let low = read(String(text[..<dots])),
        let high = read(String(text[text.index(dots, offsetBy: 2)...])), low <= high
      else { return nil }
      return Approximate(value: (low + high) / 2, tolerance: (high - low) / 2)
    }
    var valueText = text
    var toleranceText: String? = nil
    if let sign = text.firstIndex(of: "±") {
      valueText = String(text[..<sign])
      toleranceText = String(text[text.index(after: sign)...])
    } else if let sign = text.indices.dropFirst().first(where: {
      text[$0] == "+" && text.index(after: $0) < text.endIndex && text[text.index(after: $0)] == "-"
    }) {
      valueText = String(text[..<sign])
      toleranceText = String(text[text.index(sign, offsetBy: 2)...])
    }
    guard let value = read(valueText) else { return nil }
    guard let toleranceText else { return Approximate(value: value, tolerance: defaultTolerance) }
    guard let tolerance = read(toleranceText), tolerance >= 0 else { return nil }
    return Approximate(value: value, tolerance: tolerance)
  }
}
