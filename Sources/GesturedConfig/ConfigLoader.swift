import GestureCore

/// Turns a YAML config's bytes into a validated `Configuration`. It never opens files: the
/// runtime reads them (InputFile) and passes the bytes with the name to report.
public enum ConfigLoader {
  /// A config is a few kilobytes; anything this large is the wrong file. The reader's limit.
  public static let maximumFileSize = 4 << 20

  /// Parses and validates config text; `file` is only used in diagnostics.
  public static func parse(_ text: String, file: String) -> ConfigLoadResult {
    parse(bytes: Array(text.utf8), file: file)
  }

  /// Parses raw file bytes, so that bad encoding is reported by libyaml at its position.
  public static func parse(bytes: [UInt8], file: String) -> ConfigLoadResult {
    let document = YAMLDocument.parse(bytes: bytes, file: file)
    if document.failed {
      return ConfigLoadResult(configuration: nil, diagnostics: document.diagnostics)
    }
    var validator = ConfigValidator(file: file)
    let (configuration, actions) = validator.configuration(root: document.root)
    let diagnostics = ordered(document.diagnostics + validator.diagnostics)
    let hasError = diagnostics.contains { $0.severity == .error }
    return ConfigLoadResult(
      configuration: hasError ? nil : configuration, actions: actions, diagnostics: diagnostics)
  }

  /// By position, as an editor would walk them; an alias shared by two places reports
  /// a problem in its anchor once.
  private static func ordered(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
    var seen = Set<String>()
    let unique = diagnostics.filter {
      seen.insert("\($0.severity) \($0.location) \($0.message)").inserted
    }
    return unique.enumerated().sorted { left, right in
      let a = left.element.location
      let b = right.element.location
      if a.line != b.line { return a.line < b.line }
      if a.column != b.column { return a.column < b.column }
      return left.offset < right.offset
    }.map(\.element)
  }
}
