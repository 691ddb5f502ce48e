import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Daemon reload")
struct DaemonReloadTests {
  private let good = configText(bindings: ["{ gesture: tap, run: 'true' }"])
  private let changed = configText(bindings: [
    "{ gesture: tap, run: 'true' }", "{ gesture: tap, taps: 2, run: 'true', name: second }",
  ])
  /// An unknown key on line 3, column 30 of the file.
  private let broken = "bindings:\n  - { gesture: tap, run: 'true' }\n  - { gesture: tap, taps: 2, rnu: x }\n"

  private func makeDaemon(
    _ directory: TemporaryDirectory, notify: FakeNotifySocket, log: CapturedOutput
  ) throws -> Daemon {
    let path = directory.write("gestured.yaml", good)
    let result = Daemon.make(
      mode: .actions, options: Daemon.Options(configPath: path), output: CapturedOutput(), errors: log,
      environment: ["NOTIFY_SOCKET": notify.environmentValue])
    guard case .success(let daemon) = result else {
      Issue.record("the daemon did not start: \(log.text)")
      throw CancellationError()
    }
    return daemon
  }

  @Test func aBrokenConfigKeepsTheOldOneLogsWhereAndSaysReadyAgain() throws {
    let directory = TemporaryDirectory()
    let notify = try FakeNotifySocket(.path)
    let log = CapturedOutput()
    let daemon = try makeDaemon(directory, notify: notify, log: log)
    let before = daemon.configuration
    directory.write("gestured.yaml", broken)

    daemon.reload()

    #expect(daemon.configuration == before)
    let path = directory.file("gestured.yaml")
    #expect(log.text.contains("\(path):3:30: error: unknown key 'rnu'"), "log: \(log.text)")
    #expect(log.text.contains("keeping the previous one"))
    let reloading = try #require(notify.receive())
    #expect(reloading.hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
    let ready = try #require(notify.receive())
    #expect(ready.hasPrefix("READY=1"))
  }

  @Test func aGoodChangedConfigTakesEffect() throws {
    let directory = TemporaryDirectory()
    let notify = try FakeNotifySocket(.abstract)
    let log = CapturedOutput()
    let daemon = try makeDaemon(directory, notify: notify, log: log)
    #expect(daemon.configuration.profiles[0].bindings.count == 1)
    directory.write("gestured.yaml", changed)

    daemon.reload()

    #expect(daemon.configuration.profiles[0].bindings.map(\.name) == [nil, "second"])
    #expect(notify.receive()?.hasPrefix("RELOADING=1") == true)
    #expect(notify.receive()?.hasPrefix("READY=1") == true)
    #expect(!log.text.contains("error"))
  }

  @Test func aConfigOthersCanWriteIsRefusedAtStartAsRoot() throws {
    try #require(geteuid() == 0, "needs root: the check only applies to a daemon running as root")
    let directory = TemporaryDirectory()
    let path = directory.write("gestured.yaml", good)
    chmod(path, 0o666)
    let log = CapturedOutput()
    let result = Daemon.make(
      mode: .actions, options: Daemon.Options(configPath: path), output: CapturedOutput(), errors: log,
      environment: [:])
    guard case .failure(let code) = result else {
      Issue.record("a world-writable config was accepted")
      return
    }
    #expect(code == .badConfig)
    #expect(log.text.contains("chmod"))
  }

  @Test func aMissingConfigIs66AndABadOne78() {
    let directory = TemporaryDirectory()
    let log = CapturedOutput()
    if case .failure(let code) = Daemon.make(
      mode: .monitor, options: Daemon.Options(configPath: directory.file("absent.yaml")), output: log,
      errors: log, environment: [:])
    {
      #expect(code == .missingFile)
    } else {
      Issue.record("a missing config was accepted")
    }
    let bad = directory.write("bad.yaml", broken)
    if case .failure(let code) = Daemon.make(
      mode: .monitor, options: Daemon.Options(configPath: bad), output: log, errors: log, environment: [:])
    {
      #expect(code == .badConfig)
    } else {
      Issue.record("a bad config was accepted")
    }
  }
}
