import GestureCore
import Testing

@testable import GesturedConfig

#if canImport(Glibc)
  import Glibc
#endif

/// A file in the repository, for tests that check the shipped files (the loader itself
/// takes bytes: the runtime does the reading).
func readTestFile(_ path: String) throws -> [UInt8] {
  guard let file = fopen(path, "rb") else { throw TestFileError(path: path) }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = fread(&chunk, 1, chunk.count, file)
    if count == 0 { return bytes }
    bytes += chunk[0..<count]
  }
}

struct TestFileError: Error { var path: String }

/// Parses a config as if it came from a file called `test.yaml`.
func check(_ yaml: String) -> ConfigLoadResult {
  ConfigLoader.parse(yaml, file: "test.yaml")
}

/// Asserts that the config has exactly one error, at `line`:`column`, whose message contains
/// `fragment` (and whose hint contains `hint`, when given). Returns it for further checks.
@discardableResult
func expectOneError(
  _ yaml: String, line: Int, column: Int, _ fragment: String, hint: String? = nil,
  sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Diagnostic? {
  let result = check(yaml)
  #expect(
    result.configuration == nil, "a config with an error has no configuration",
    sourceLocation: sourceLocation)
  let errors = result.errors
  #expect(errors.count == 1, "errors: \(errors.map(\.description))", sourceLocation: sourceLocation)
  guard let error = errors.first else { return nil }
  #expect(error.location.file == "test.yaml", sourceLocation: sourceLocation)
  #expect(
    (error.location.line, error.location.column) == (line, column), "\(error)",
    sourceLocation: sourceLocation)
  #expect(error.message.contains(fragment), "\(error)", sourceLocation: sourceLocation)
  if let hint {
    #expect(error.hint?.contains(hint) == true, "\(error)", sourceLocation: sourceLocation)
  }
  return error
}

/// The configuration of a config that must have no error.
func expectValid(
  _ yaml: String, sourceLocation: Testing.SourceLocation = #_sourceLocation
) -> Configuration? {
  let result = check(yaml)
  #expect(
    result.errors.isEmpty, "\(result.errors.map(\.description))", sourceLocation: sourceLocation)
  return result.configuration
}

/// (line, column) pairs of the diagnostics, for comparing positions at a glance.
func positions(_ diagnostics: [Diagnostic]) -> [[Int]] {
  diagnostics.map { [$0.location.line, $0.location.column] }
}
