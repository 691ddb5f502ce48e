import GestureCore

/// Why a value could not be read: the message completes "'KEY' …", the hint says what to write.
struct UnitError: Error, Equatable {
  var message: String
  var hint: String?
}

extension UnitError {
  init(_ problem: RuleViolation) { self.init(message: problem.message, hint: problem.hint) }
}

/// Numbers with units as operators write them: `300ms`, `0.5s`, `3mm`, `2%`, `25deg`.
///
/// Units are required (a bare `300` is ambiguous between milliseconds and seconds), and
/// durations are converted with decimal arithmetic so `0.3s` is exactly 300000 µs.
enum Units {
  /// No gesture threshold, timeout or cooldown is meant to last longer than a day; beyond
  /// is a typo, and keeping durations small keeps deadline arithmetic far from overflow.
  static let maximumDuration = ConfigRules.maximumDuration
  /// The largest distance or panel size, 10 m: a bigger panel is a typo (a missing point),
  /// and bounded lengths keep every product of them finite.
  static let maximumMillimetres = ConfigRules.maximumMillimetres

  static func duration(_ text: String) throws(UnitError) -> Microseconds {
    let (number, unit) = split(text)
    guard let decimal = DecimalText(number) else {
      throw UnitError(message: "'\(text)' is not a duration", hint: "write e.g. 300ms or 0.5s")
    }
    let exponent: Int
    switch unit {
    case "ms": exponent = 3
    case "s": exponent = 6
    case "":
      let suggestion = (Double(number) ?? 0) >= 10 ? "\(number)ms" : "\(number)s"
      throw UnitError(
        message: "'\(text)' needs a unit", hint: "write \(suggestion) (durations take ms or s)")
    default:
      throw UnitError(
        message: "'\(text)' has an unknown unit '\(unit)'", hint: "durations take ms or s")
    }
    guard !decimal.negative else {
      throw UnitError(message: "'\(text)' is negative", hint: "a duration is 0 or more")
    }
    guard let micro = decimal.scaled(byPowerOfTen: exponent), micro <= maximumDuration else {
      throw UnitError(ConfigRules.durationTooLong(text))
    }
    return micro
  }

  /// A length: `mm` or `cm`, or with `allowPercent` a share of the panel diagonal.
  static func distance(_ text: String, allowPercent: Bool) throws(UnitError) -> Distance {
    let (number, unit) = split(text)
    let units = allowPercent ? "mm, cm or % (of the panel diagonal)" : "mm or cm"
    guard let decimal = DecimalText(number), let value = Double(number) else {
      throw UnitError(
        message: "'\(text)' is not a distance", hint: "write e.g. 3mm; distances take \(units)")
    }
    guard !decimal.negative else {
      throw UnitError(message: "'\(text)' is negative", hint: "a distance is more than 0")
    }
    let tooLong = UnitError(ConfigRules.distanceTooLong(text))
    switch unit {
    case "mm", "cm":
      // Also catches digits too many for a Double, which read as infinity.
      let millimetres = unit == "cm" ? value * 10 : value
      guard millimetres.isFinite, millimetres <= maximumMillimetres else { throw tooLong }
      return .millimetres(millimetres)
    case "%" where allowPercent:
      guard value.isFinite, value <= 100 else { throw UnitError(ConfigRules.moreThanTheDiagonal(text)) }
      return .percentOfDiagonal(value)
    case "%":
      throw UnitError(
        message: "'\(text)' cannot be a percentage here",
        hint: "this is the physical size: write it in mm or cm, e.g. 344mm")
    case "":
      throw UnitError(
        message: "'\(text)' needs a unit", hint: "write \(number)mm; distances take \(units)")
    default:
      throw UnitError(
        message: "'\(text)' has an unknown unit '\(unit)'", hint: "distances take \(units)")
    }
  }

  /// The fastest speed a threshold may ask for, 10 m/s: no finger moves faster on a panel,
  /// so more is a typo.
  static let maximumMillimetresPerSecond = ConfigRules.maximumMillimetresPerSecond

  /// A speed in mm/s, written `300mm/s` or `30cm/s`; 0 is allowed (it turns a rule off).
  static func speed(_ text: String) throws(UnitError) -> Double {
    let (number, unit) = split(text)
    guard let decimal = DecimalText(number), let value = Double(number) else {
      throw UnitError(message: "'\(text)' is not a speed", hint: "write e.g. 300mm/s; speeds take mm/s or cm/s")
    }
    guard !decimal.negative else {
      throw UnitError(message: "'\(text)' is negative", hint: "a speed is 0 or more")
    }
    switch unit {
    case "mm/s", "cm/s":
      let millimetresPerSecond = unit == "cm/s" ? value * 10 : value
      guard millimetresPerSecond.isFinite, millimetresPerSecond <= maximumMillimetresPerSecond else {
        throw UnitError(ConfigRules.speedTooHigh(text))
      }
      return millimetresPerSecond
    case "":
      throw UnitError(message: "'\(text)' needs a unit", hint: "write \(number)mm/s; speeds take mm/s or cm/s")
    default:
      throw UnitError(message: "'\(text)' has an unknown unit '\(unit)'", hint: "speeds take mm/s or cm/s")
    }
  }

  /// An angle in degrees, written `25deg` (or `25°`).
  static func angle(_ text: String) throws(UnitError) -> Double {
    let (number, unit) = split(text)
    guard DecimalText(number) != nil, let value = Double(number) else {
      throw UnitError(message: "'\(text)' is not an angle", hint: "write e.g. 25deg")
    }
    switch unit {
    case "deg", "°":
      guard value.isFinite, abs(value) <= 360 else {
        throw UnitError(
          message: "'\(text)' is more than a full turn", hint: "angles are -360deg to 360deg")
      }
      return value
    case "": throw UnitError(message: "'\(text)' needs a unit", hint: "write \(number)deg")
    default:
      throw UnitError(message: "'\(text)' has an unknown unit '\(unit)'", hint: "angles take deg")
    }
  }

  /// A plain decimal number (`0.8`, `-1`, `1e-3`); nil for anything else, including nan and
  /// inf, which are never meaningful in a config.
  static func number(_ text: String) -> Double? {
    var scalars = Substring(text).unicodeScalars[...]
    guard DecimalText(scanning: &scalars) != nil else { return nil }
    // An exponent is allowed on plain numbers (not on numbers with units).
    if let first = scalars.first, first == "e" || first == "E" {
      scalars.removeFirst()
      if let sign = scalars.first, sign == "+" || sign == "-" { scalars.removeFirst() }
      guard !scalars.isEmpty, scalars.allSatisfy({ ("0"..."9").contains($0) })
      else { return nil }
      scalars.removeAll()
    }
    guard scalars.isEmpty, let value = Double(text), value.isFinite else { return nil }
    return value
  }

  /// A whole number: decimal, or hexadecimal with `0x` as USB ids are usually written, or
  /// octal with `0o`. Nil when it does not fit an Int.
  static func integer(_ text: String) -> Int? {
    var body = Substring(text)
    var negative = false
    if let sign = body.first, sign == "+" || sign == "-" {
      negative = sign == "-"
      body = body.dropFirst()
    }
    var radix = 10
    if body.hasPrefix("0x") || body.hasPrefix("0X") {
      radix = 16
      body = body.dropFirst(2)
    } else if body.hasPrefix("0o") || body.hasPrefix("0O") {
      radix = 8
      body = body.dropFirst(2)
    }
    // Int(_:radix:) would accept a second sign; only digits may follow.
    guard !body.isEmpty, body.allSatisfy({ $0.isHexDigit }), let magnitude = Int(body, radix: radix)
    else { return nil }
    return negative ? -magnitude : magnitude
  }

  /// Splits `12.5 ms` into ("12.5", "ms"): the number is the leading run of sign, digits and
  /// point; the unit is the rest without surrounding spaces.
  static func split(_ text: String) -> (number: String, unit: String) {
    let trimmed = text.trimmingSpaces()
    let numberEnd =
      trimmed.firstIndex { !($0.isASCII && ($0.isNumber || $0 == "." || $0 == "-" || $0 == "+")) }
      ?? trimmed.endIndex
    return (String(trimmed[..<numberEnd]), String(trimmed[numberEnd...]).trimmingSpaces())
  }
}

/// An exact decimal as written: sign, integer digits, fraction digits.
struct DecimalText {
  var negative: Bool
  var integerDigits: [UInt8]
  var fractionDigits: [UInt8]

  /// Accepts `[+-]digits[.digits]` or `[+-].digits`, nothing else.
  init?(_ text: String) {
    var scalars = Substring(text).unicodeScalars[...]
    guard let decimal = DecimalText(scanning: &scalars), scalars.isEmpty else { return nil }
    self = decimal
  }

  /// Reads a decimal from the front of `scalars`, leaving whatever follows.
  init?(scanning scalars: inout Substring.UnicodeScalarView.SubSequence) {
    negative = false
    integerDigits = []
    fractionDigits = []
    if let sign = scalars.first, sign == "+" || sign == "-" {
      negative = sign == "-"
      scalars.removeFirst()
    }
    while let digit = scalars.first.flatMap(Self.digitValue) {
      integerDigits.append(digit)
      scalars.removeFirst()
    }
    if scalars.first == "." {
      scalars.removeFirst()
      while let digit = scalars.first.flatMap(Self.digitValue) {
        fractionDigits.append(digit)
        scalars.removeFirst()
      }
    }
    if integerDigits.isEmpty && fractionDigits.isEmpty { return nil }
  }

  private static func digitValue(_ scalar: Unicode.Scalar) -> UInt8? {
    guard scalar.value >= 0x30, scalar.value <= 0x39 else { return nil }
    return UInt8(scalar.value - 0x30)
  }

  /// The magnitude times 10^exponent, rounded half up to a whole number; nil on overflow.
  func scaled(byPowerOfTen exponent: Int) -> Int64? {
    var result: Int64 = 0
    func push(_ digit: UInt8) -> Bool {
      let (shifted, overflowA) = result.multipliedReportingOverflow(by: 10)
      let (sum, overflowB) = shifted.addingReportingOverflow(Int64(digit))
      result = sum
      return !overflowA && !overflowB
    }
    for digit in integerDigits { guard push(digit) else { return nil } }
    for index in 0..<exponent {
      guard push(index < fractionDigits.count ? fractionDigits[index] : 0) else { return nil }
    }
    if exponent < fractionDigits.count, fractionDigits[exponent] >= 5 {
      let (rounded, overflow) = result.addingReportingOverflow(1)
      guard !overflow else { return nil }
      result = rounded
    }
    return result
  }
}

extension StringProtocol {
  func trimmingSpaces() -> String {
    let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
    guard let first = firstIndex(where: { !isSpace($0) }),
      let last = lastIndex(where: { !isSpace($0) })
    else { return "" }
    return String(self[first...last])
  }
}
