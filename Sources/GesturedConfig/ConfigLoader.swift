import GestureCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A file (config, recording, description) that could not be read, with the errno so
/// callers can pick an exit code (ENOENT → 66, EX_NOINPUT).
public struct FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
  public var path: String
  public var errno: Int32

  public init(path: String, errno: Int32) {
    self.path = path
    self.errno = errno
  }

  public var description: String { String(cString: strerror(errno)) }
}

/// Reads YAML config files into a validated `Configuration`.
public enum ConfigLoader {
  /// A config is a few kilobytes; anything this large is the wrong file.
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

  /// Reads and parses a config file; an unreadable file is one error at FILE:1:1.
  public static func load(path: String) -> ConfigLoadResult {
    do {
      let bytes = try readFile(path: path)
      return parse(bytes: bytes, file: path)
    } catch {
      let location = SourceLocation(file: path, line: 1, column: 1)
      let hint: String? =
        switch error.errno {
        case ENOENT: "check the path given with --config"
        case EACCES: "gestured needs read permission on the config"
        case EFBIG: "a config is at most \(maximumFileSize) bytes"
        default: nil
        }
      let diagnostic = Diagnostic(
        severity: .error, location: location, message: "cannot read the config: \(error)",
        hint: hint)
      return ConfigLoadResult(configuration: nil, diagnostics: [diagnostic])
    }
  }

  /// The whole file's bytes. Fails with EFBIG beyond `maximumSize`, which only stops a wrong
  /// path (a disk image, /dev/zero) from eating memory.
  public static func readFile(path: String, maximumSize: Int = maximumFileSize) throws(FileReadError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw FileReadError(path: path, errno: errno) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw FileReadError(path: path, errno: errno)
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[0..<count])
      if bytes.count > maximumSize { throw FileReadError(path: path, errno: EFBIG) }
    }
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
