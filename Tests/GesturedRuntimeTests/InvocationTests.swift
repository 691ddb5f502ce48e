import Testing

@testable import GesturedRuntime

@Suite("Command line")
struct InvocationTests {
  /// The message of a usage error, or nil when `arguments` parse to something else.
  func usageError(_ arguments: [String]) -> String? {
    if case .usageError(let message, let hint) = Invocation.parse(arguments) {
      #expect(hint.hasPrefix("Run 'gestured"))
      return message
    }
    return nil
  }

  @Test func noSubcommandRunsTheDaemonOnTheDefaultConfig() {
    guard case .daemon(let options) = Invocation.parse([]) else {
      Issue.record("no arguments should run the daemon")
      return
    }
    #expect(options == Daemon.Options(configPath: "/etc/gestured/gestured.yaml", verbose: false))
  }

  @Test func daemonAndMonitorTakeConfigAndVerbose() {
    guard case .daemon(let daemon) = Invocation.parse(["--config", "k.yaml", "-v"]),
      case .monitor(let monitor) = Invocation.parse(["monitor", "--verbose", "--config=x"]),
      case .monitor(let plain) = Invocation.parse(["monitor"])
    else {
      Issue.record("daemon or monitor options were not recognized")
      return
    }
    #expect(daemon == Daemon.Options(configPath: "k.yaml", verbose: true))
    #expect(monitor == Daemon.Options(configPath: "x", verbose: true))
    #expect(plain == Daemon.Options())
    #expect(usageError(["monitor", "extra"]) == "monitor: unexpected argument 'extra'")
    #expect(usageError(["monitor", "--bogus"]) == "monitor: unknown option '--bogus'")
    #expect(usageError(["--bogus"]) == "unknown option '--bogus'")
    #expect(usageError(["--config"]) == "--config needs a FILE")
    #expect(usageError(["monitor", "--config", "a", "--config", "b"]) == "monitor: --config given twice")
    guard case .help(let help) = Invocation.parse(["monitor", "--help"]) else {
      Issue.record("monitor --help")
      return
    }
    #expect(help.hasPrefix("Usage: gestured monitor"))
  }

  @Test func versionAndHelp() {
    guard case .version = Invocation.parse(["--version"]) else {
      Issue.record("--version")
      return
    }
    guard case .help(let tool) = Invocation.parse(["--help"]),
      case .help(let check) = Invocation.parse(["check", "-h"]),
      case .help(let replay) = Invocation.parse(["replay", "--config", "c.yaml", "--help"]),
      case .help(let viaHelp) = Invocation.parse(["help", "replay"])
    else {
      Issue.record("help was not recognized")
      return
    }
    #expect(tool.contains("gestured check --config FILE"))
    #expect(check.hasPrefix("Usage: gestured check"))
    #expect(replay.hasPrefix("Usage: gestured replay"))
    #expect(viaHelp == replay)
    #expect(Usage.version == "gestured 0.1.0")
  }

  @Test func helpWinsOverOtherMistakesOnTheLine() {
    guard case .help = Invocation.parse(["replay", "--bogus", "--help"]) else {
      Issue.record("--help after a bad option")
      return
    }
  }

  @Test func checkTakesTheConfigInEitherSpelling() {
    for arguments in [
      ["check", "--config", "a.yaml"], ["check", "--config=a.yaml"], ["check", "-c", "a.yaml"],
    ] {
      guard case .check(let command) = Invocation.parse(arguments) else {
        Issue.record("\(arguments) did not parse")
        continue
      }
      #expect(command.configPath == "a.yaml")
    }
  }

  @Test(
    "usage errors",
    arguments: [
      (["check"], "--config FILE is required"),
      (["check", "--config"], "--config needs a FILE"),
      (["check", "--config="], "--config needs a FILE"),
      (["check", "--config", "--verbose"], "--config needs a FILE"),
      (["check", "--config", "a", "--config", "b"], "--config given twice"),
      (["check", "--config", "a", "extra"], "unexpected argument 'extra'"),
      (["check", "--frob"], "unknown option '--frob'"),
      (["replay", "--config", "a"], "no RECORDING given"),
      (["replay", "rec.evemu"], "--config FILE is required"),
      (["replay", "--config", "a", "--device"], "--device needs a FILE"),
      (["replay", "--config", "a", "--run-actions=yes", "r"], "--run-actions takes no value"),
      (["replay", "--config", "a", "-x", "r"], "unknown option '-x'"),
      (["daemon"], "unknown command 'daemon'"),
      (["--frob"], "unknown option '--frob'"),
    ])
  func usageErrors(arguments: [String], expected: String) throws {
    let message = try #require(usageError(arguments))
    #expect(message.contains(expected))
  }

  @Test func replayTakesOptionsInAnyOrderAndRecordingsInOrder() throws {
    let invocation = Invocation.parse([
      "replay", "b.evemu", "--verbose", "--config=c.yaml", "--device", "d.desc", "a.evemu",
      "--run-actions",
    ])
    guard case .replay(let command) = invocation else {
      Issue.record("did not parse: \(invocation)")
      return
    }
    #expect(command.configPath == "c.yaml")
    #expect(command.devicePath == "d.desc")
    #expect(command.runActions)
    #expect(command.verbose)
    #expect(command.recordings == ["b.evemu", "a.evemu"])
  }

  @Test func doubleDashEndsTheOptions() throws {
    guard
      case .replay(let command) = Invocation.parse([
        "replay", "-c", "c.yaml", "--", "--odd-name", "-",
      ])
    else {
      Issue.record("did not parse")
      return
    }
    #expect(command.recordings == ["--odd-name", "-"])
    #expect(!command.verbose && !command.runActions && command.devicePath == nil)
  }
}
