import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// Every config in config/examples/ passes `gestured check` (the command's own code path),
/// with no warning: they are what operators copy.
@Suite("config/examples")
struct ConfigExamplesTests {
  static let directory = packageRoot + "/config/examples"

  /// The examples the config validator accepts today.
  static let examples = [
    "admin-corner.yaml",
    "cage-wayland.yaml",
    "chromium-kiosk-x11.yaml",
    "rotated-90.yaml",
    "touch-table.yaml",
    "two-panels-by-id-path.yaml",
  ]
  /// Uses issue 8's `pan`, `step:`, `end:` and a three-member `simultaneous` group.
  static let continuousExample = "zoomable-map.yaml"

  static func check(_ name: String) -> (ExitCode, stdout: String, stderr: String) {
    let path = directory + "/" + name
    let output = CapturedOutput()
    let errors = CapturedOutput()
    let code = CheckCommand(configPath: path).run(output: output, errors: errors)
    return (code, output.text, errors.text)
  }

  @Test(arguments: examples)
  func passesCheckWithoutWarnings(_ name: String) {
    let (code, stdout, stderr) = Self.check(name)
    #expect(code == .success, "\(stderr)")
    #expect(stdout.hasPrefix(Self.directory + "/" + name + ": OK, "))
    #expect(!stdout.contains("warning"))
    #expect(stderr == "")
  }

  @Test
  func zoomableMapPassesCheckWithoutWarnings() {
    let (code, stdout, stderr) = Self.check(Self.continuousExample)
    #expect(code == .success, "\(stderr)")
    #expect(!stdout.contains("warning"))
    #expect(stderr == "")
  }

  /// A new example cannot be left out of the tests.
  @Test func everyExampleInTheDirectoryIsChecked() throws {
    var names: [String] = []
    let stream = try #require(opendir(Self.directory))
    defer { closedir(stream) }
    while let entry = readdir(stream) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name.hasSuffix(".yaml") { names.append(name) }
    }
    #expect(names.sorted() == (Self.examples + [Self.continuousExample]).sorted())
  }
}
