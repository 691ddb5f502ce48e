import GestureCore

/// One finding about a config file, pointing at the line and column (1-based) it is about.
public struct Diagnostic: Sendable, CustomStringConvertible {
  public enum Severity: Sendable {
    case error, warning
  }

  public var severity: Severity
  public var location: SourceLocation
  public var message: String
  /// What to do about it, when there is something better to say than the message.
  public var hint: String?

  public init(severity: Severity, location: SourceLocation, message: String, hint: String? = nil) {
    self.severity = severity
    self.location = location
    self.message = message
    self.hint = hint
  }

  /// `FILE:LINE:COL: error: message`, the form compilers use, so editors can jump to it. The
  /// hint, when there is one, is the only second line: control characters in the file name,
  /// the message or the hint (which may quote the config) are escaped.
  public var description: String {
    let label =
      switch severity {
      case .error: "error"
      case .warning: "warning"
      }
    let head = "\(location): \(label): \(message)".escapingControlCharacters()
    return head + (hint.map { "\n  hint: " + $0.escapingControlCharacters() } ?? "")
  }
}

/// The outcome of reading a config: a configuration when there is no error, and every
/// diagnostic found, ordered by position.
public struct ConfigLoadResult: Sendable {
  /// What to recognize; nil exactly when `diagnostics` holds an error.
  public var configuration: Configuration?
  /// What each profile's bindings run, parallel to `configuration.profiles` (empty with it).
  public var actions: [ProfileActions]
  public var diagnostics: [Diagnostic]

  public init(configuration: Configuration?, actions: [ProfileActions] = [], diagnostics: [Diagnostic]) {
    self.configuration = configuration
    self.actions = configuration == nil ? [] : actions
    self.diagnostics = diagnostics
  }

  public var errors: [Diagnostic] { diagnostics.filter { $0.severity == .error } }
  public var warnings: [Diagnostic] { diagnostics.filter { $0.severity == .warning } }
}
