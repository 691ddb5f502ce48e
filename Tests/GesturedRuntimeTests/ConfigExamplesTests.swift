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

  /// `gestured check` of the example, less the warnings about its `user:` names that this
  /// machine has no account for (the kiosk's users: `kiosk`, `clerk`), and their count.
  static func check(_ name: String) -> (ExitCode, stdout: String, stderr: String) {
    let path = directory + "/" + name
    let output = CapturedOutput()
    let errors = CapturedOutput()
    let code = CheckCommand(configPath: path).run(output: output, errors: errors)
    var lines = errors.lines
    var unknownUsers = 0
    while let index = lines.firstIndex(where: { $0.hasPrefix(path + ": warning: user: ") }) {
      let name = lines[index].dropFirst((path + ": warning: user: ").count).prefix { $0 != ":" }
      guard getpwnam(String(name)) == nil, lines[index].hasSuffix(": no user named \"\(name)\"") else { break }
      lines.removeSubrange(index...min(index + 1, lines.count - 1))
      unknownUsers += 1
    }
    var stdout = output.text
    let counted = ", \(unknownUsers) warning\(unknownUsers == 1 ? "" : "s")\n"
    if unknownUsers > 0, stdout.hasSuffix(counted) { stdout = String(stdout.dropLast(counted.count)) + "\n" }
    return (code, stdout, lines.map { $0 + "\n" }.joined())
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
