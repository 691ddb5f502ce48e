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
