import GestureCore
import GesturedConfig

/// A problem with a gesture setup, at the line of code that made it: what `gestured check`
/// says about the same setup in a config, in the same words.
///
/// Errors are thrown by the call that makes the setup wrong (the binding or region is not
/// added); warnings are kept in `TouchScreen.warnings`. Printed, it reads as a compiler's
/// message, `FILE:LINE:COL: error: message` with the hint on a second line.
public struct GestureDiagnostic: Error, Hashable, Sendable, CustomStringConvertible {
  /// Whether the setup was refused or only looks wrong.
  public enum Severity: Hashable, Sendable {
    /// The call did nothing and threw this.
    case error
    /// The call took effect, but the setup is probably not what was meant.
    case warning
  }

  /// Error or warning.
  public var severity: Severity
  /// What is wrong, as `gestured check` says it.
  public var message: String
  /// What to do about it, when there is more to say than the message.
  public var hint: String?
  /// The source file of the call (`#fileID`).
  public var file: String
  /// The line of the call, 1-based.
  public var line: Int
  /// The column of the call, 1-based.
  public var column: Int

  init(_ severity: Severity, _ problem: RuleViolation, at site: CallSite) {
    self.severity = severity
    let problem = problem.inCode
    message = problem.message
    hint = problem.hint
    file = site.location.file
    line = site.location.line
    column = site.location.column
  }

  /// `FILE:LINE:COL: error: message`, then `  hint: …` when there is a hint.
  public var description: String {
    Diagnostic(
      severity: severity == .error ? .error : .warning,
      location: SourceLocation(file: file, line: line, column: column), message: message, hint: hint
    ).description
  }
}

/// Where in the app's code a setup call was made.
struct CallSite: Hashable, Sendable {
  var location: SourceLocation

  init(_ file: StaticString, _ line: UInt, _ column: UInt) {
    location = SourceLocation(file: "\(file)", line: Int(line), column: Int(column))
  }
}

extension RuleViolation {
  /// The config's rule in the words of code: arguments and `GestureThresholds` fields for
  /// the config's keys, handlers for bindings, calls for lists.
  var inCode: RuleViolation {
    RuleViolation(Self.inCode(message), hint: hint.map(Self.inCode))
  }

  /// The config's keys an argument of an `on…` or `region` call stands for.
  private static let arguments: Set<String> = ["taps", "fingers", "step", "x", "y", "width", "height"]
  /// The config's threshold keys, which are `GestureThresholds` fields in code.
  private static let thresholds: Set<String> = [
    "tap-slop", "tap-max-duration", "multi-tap-gap", "multi-tap-distance", "long-press", "finger-landing",
    "swipe-min-distance", "swipe-max-duration", "swipe-angle", "pinch-in", "pinch-out", "rotate-angle",
    "edge-width", "stuck-contact",
  ]

  private static func inCode(_ text: String) -> String {
    var text = text
    let phrases = [
      ("the config has no bindings, so nothing runs", "the screen has no handlers, so nothing is recognized"),
      ("add a 'bindings:' list", "add one with an on… method"),
      ("a 'simultaneous' group", "a recognizeSimultaneously group"),
      ("a profile has at most", "a screen has at most"),
      ("is already defined at line", "was already made at line"),
      ("listed before it at line", "made before it at line"),
      ("list the smaller region first", "make the smaller region first"),
      ("their bindings take", "their handlers take"),
    ]
    for (config, code) in phrases { text = text.replacing(config, with: code) }
    for key in arguments { text = text.replacing("'\(key)'", with: "the argument `\(key):`") }
    for key in thresholds { text = text.replacing("'\(key)'", with: "`GestureThresholds.\(camelCase(key))`") }
    for (unit, call) in [("%", "percent"), ("mm", "millimetres"), ("deg", "degrees")] {
      text = stepExamples(in: text, unit: unit, call: call)
    }
    return text
  }

  /// `step: 10%` as the argument is written in code, `step: .percent(10)`.
  private static func stepExamples(in text: String, unit: String, call: String) -> String {
    var result = ""
    var rest = Substring(text)
    while let start = rest.firstRange(of: "step: ") {
      result += rest[..<start.upperBound]
      rest = rest[start.upperBound...]
      let number = rest.prefix { $0.isNumber || $0 == "." }
      let after = rest.dropFirst(number.count)
      if !number.isEmpty, after.hasPrefix(unit) {
        result += ".\(call)(\(number))"
        rest = after.dropFirst(unit.count)
      }
    }
    return result + rest
  }

  private static func camelCase(_ key: String) -> String {
    let parts = key.split(separator: "-")
    return ([String(parts[0])] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }).joined()
  }
}
