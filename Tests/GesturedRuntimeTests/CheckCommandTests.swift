import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

@Suite("gestured check")
struct CheckCommandTests {
  let directory = TemporaryDirectory()

  func check(_ path: String) -> (ExitCode, stdout: String, stderr: String) {
    let output = CapturedOutput()
    let errors = CapturedOutput()
    let code = CheckCommand(configPath: path).run(output: output, errors: errors)
    return (code, output.text, errors.text)
  }

  @Test func aGoodConfigExitsZeroWithASummary() {
    let path = directory.write(
      "good.yaml",
      configText(
        bindings: [
          #"{ gesture: tap, taps: 2, region: main, run: "echo reload" }"#,
          #"{ gesture: swipe, direction: left, run: "echo next" }"#,
        ],
        regions: ["{ name: main }"]))
    let (code, stdout, stderr) = check(path)
    #expect(code == .success)
    #expect(stdout == "\(path): OK, 1 profile, 2 bindings\n")
    #expect(stderr == "")
  }

  @Test func aBadConfigExits78AndNamesFileLineAndColumn() {
    let path = directory.write(
      "bad.yaml",
      configText(bindings: [
        #"{ gesture: tap, run: "ok" }"#, #"{ gesture: tap, taps: 0, run: "x" }"#,
      ]))
    let (code, stdout, stderr) = check(path)
    #expect(code == .badConfig)
    #expect(stdout == "")
    // The second binding is on line 3; the column points into that line.
    #expect(stderr.hasPrefix("\(path):3:"))
    #expect(stderr.contains(": error: "))
    #expect(stderr.hasSuffix("\(path): 1 error\n"))
  }

  @Test func everyErrorIsPrinted() {
    let path = directory.write(
      "two.yaml",
      configText(bindings: [
        #"{ gesture: tapp, run: "x" }"#, #"{ gesture: tap, fingers: 6, run: "y" }"#,
      ]))
    let (code, _, stderr) = check(path)
    #expect(code == .badConfig)
    #expect(stderr.contains("\(path):2:"))
    #expect(stderr.contains("\(path):3:"))
    #expect(stderr.hasSuffix("\(path): 2 errors\n"))
  }

  @Test func asRootAConfigOthersCouldChangeExits78WithTheFixAsTheDaemonRefusesIt() throws {
    let path = directory.write("writable.yaml", configText(bindings: [#"{ gesture: tap, run: "x" }"#]))
    try #require(chmod(path, 0o664) == 0)
    var command = CheckCommand(configPath: path)
    command.effectiveUserID = 0
    let output = CapturedOutput()
    let errors = CapturedOutput()
    #expect(command.run(output: output, errors: errors) == .badConfig)
    #expect(output.text == "")
    #expect(errors.text.hasPrefix("\(path): error: refusing a config"))
    #expect(errors.text.contains("Run: chmod go-w \(path)") || errors.text.contains("Run: chown root:root"))
    let logged = CapturedOutput()
    #expect(Daemon.loadConfiguration(path: path, logger: Logger(sink: logged)).map { _ in 0 } == .failure(.badConfig))
    // Another user checks their own files as before.
    command.effectiveUserID = 1000
    #expect(command.run(output: output, errors: CapturedOutput()) == .success)
    #expect(output.text == "\(path): OK, 1 profile, 1 binding\n")
  }

  @Test func aMissingConfigExits66() {
    let path = directory.file("absent.yaml")
    let (code, stdout, stderr) = check(path)
    #expect(code == .missingFile)
    #expect(stdout == "")
    #expect(stderr == "gestured: cannot read config '\(path)': No such file or directory\n")
  }
}

extension CheckCommandTests {
  @Test func anUnknownUserIsAWarningNotAnError() {
    let path = directory.write(
      "users.yaml",
      configText(bindings: [
        #"{ gesture: tap, run: "true", user: no-such-user-gestured }"#,
        #"{ gesture: tap, taps: 2, run: "true", user: root }"#,
      ]))
    let (code, stdout, stderr) = check(path)
    #expect(code == .success)
    #expect(stdout == "\(path): OK, 1 profile, 2 bindings, 1 warning\n")
    #expect(
      stderr == "\(path): warning: user: no-such-user-gestured: no user named \"no-such-user-gestured\"\n"
        + "  hint: its actions will not start until the user exists and gestured reloads its config\n")
  }
}
