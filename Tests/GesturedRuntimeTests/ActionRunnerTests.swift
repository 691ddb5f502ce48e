import Dispatch
import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime

/// Real processes on a private serial queue standing in for the daemon's main queue. Every
/// wait has a deadline.
@Suite("ActionRunner", .serialized)
final class ActionRunnerTests {
  let queue = DispatchQueue(label: "gestured.tests.action-runner")
  let log = CapturedOutput()
  let runner: ActionRunner
  /// Every pid the runner started, checked for zombies at the end of each test.
  var started: [pid_t] = []

  init() throws {
    // Priority prefixes, so tests can tell info (6) from notice (5) and warning (4).
    runner = try ActionRunner(queue: queue, logger: Logger(sink: log, journalPrefixes: true))
  }

  deinit {
    // A test that failed early must not leave processes behind for the next one.
    _ = runner.waitUntilIdle(timeout: 5_000_000)
  }

  // MARK: Helpers

  func request(
    _ command: String, key: String = "lobby#0", label: String = "tap",
    timeout: Microseconds = 10_000_000,
    cooldown: Microseconds = 0, user: String? = nil, firedAt: Timestamp = ActionRunner.now(),
    environment: ActionEnvironment = ActionEnvironment(variables: [
      "PATH": ActionEnvironment.defaultPath
    ])
  ) -> ActionRunner.Request {
    ActionRunner.Request(
      key: key, label: label, command: command, environment: environment, timeout: timeout,
      cooldown: cooldown, user: user, firedAt: firedAt)
  }

  @discardableResult
  func run(_ request: ActionRunner.Request) -> ActionRunner.Decision {
    let decision = queue.sync { runner.run(request) }
    if case .started(let pid) = decision { started.append(pid) }
    return decision
  }

  /// Runs `command` to the end (output pipes closed too) and returns the log lines since.
  func runToEnd(_ command: String, timeout: Microseconds = 10_000_000) throws -> [String] {
    let before = lines().count
    let decision = run(request(command, timeout: timeout))
    guard case .started = decision else {
      Issue.record("not started: \(decision)")
      return []
    }
    try #require(runner.waitUntilIdle(timeout: 10_000_000), "the action did not finish")
    return Array(lines().dropFirst(before))
  }

  func lines() -> [String] { queue.sync { log.lines } }

  var runningCount: Int { queue.sync { runner.runningCount } }

  /// Polls `condition` on the queue until it holds or `seconds` pass.
  func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = ActionRunner.now() + Microseconds(seconds * 1_000_000)
    while ActionRunner.now() < deadline {
      if queue.sync(execute: condition) { return true }
      usleep(10_000)
    }
    return queue.sync(execute: condition)
  }

  /// The output lines of `label` (the `[label] ` prefix and priority removed).
  func output(_ lines: [String], label: String = "tap") -> [String] {
    lines.compactMap { line in
      guard let bracket = line.firstIndex(of: "[") else { return nil }
      let rest = line[bracket...]
      guard rest.hasPrefix("[\(label)] ") else { return nil }
      return String(rest.dropFirst(label.count + 3))
    }
  }

  /// The process's state letter from /proc (R, S, Z, …) and its parent, or nil if gone.
  func processState(_ pid: pid_t) -> (state: Character, parent: pid_t)? {
    let descriptor = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 1024)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    let text = String(decoding: buffer[..<count], as: UTF8.self)
    // "pid (comm) S ppid …": comm may hold spaces, so split after the last ')'.
    guard let close = text.lastIndex(of: ")") else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 1, let state = fields[0].first, let parent = pid_t(fields[1]) else {
      return nil
    }
    return (state, parent)
  }

  /// No process this runner started is left as our zombie.
  func expectNoZombies(sourceLocation: Testing.SourceLocation = #_sourceLocation) {
    let ours = getpid()
    let zombies = started.filter { pid in
      guard let (state, parent) = processState(pid) else { return false }
      return state == "Z" && parent == ours
    }
    #expect(zombies.isEmpty, "unreaped children: \(zombies)", sourceLocation: sourceLocation)
  }

  /// Every zombie child of the test process, from /proc.
  func zombieChildren() -> [pid_t] {
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    let ours = getpid()
    var zombies: [pid_t] = []
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      guard let pid = pid_t(name), let (state, parent) = processState(pid) else { continue }
      if state == "Z" && parent == ours { zombies.append(pid) }
    }
    return zombies
  }

  /// Gone, or dead and waiting for its (new) parent to reap it.
  func isDead(_ pid: pid_t) -> Bool {
    guard let (state, _) = processState(pid) else { return true }
    return state == "Z" || state == "X"
  }

  // MARK: Output

  @Test func outputIsLoggedLineByLineWithTheLabelBeforeTheExit() throws {
    let logged = try runToEnd("echo one; echo two >&2; echo three; printf 'no newline'")
    let printed = output(logged)
    #expect(printed.contains("one"))
    #expect(printed.contains("two"))
    #expect(printed.contains("three"))
    #expect(printed.contains("no newline"), "a partial last line is flushed at end of file")
    #expect(logged.contains("<6>[tap] one"), "stdout at info")
    #expect(logged.contains("<5>[tap] two"), "stderr at notice")
    let exit = try #require(logged.firstIndex { $0.contains("exited with status 0") })
    let lastOutput = try #require(logged.firstIndex { $0.hasSuffix("] no newline") })
    #expect(lastOutput < exit, "the exit is logged after the last output")
    #expect(logged.first?.hasPrefix("<6>[tap] started pid ") == true)
    #expect(
      logged.first?.hasSuffix(": echo one; echo two >&2; echo three; printf 'no newline'") == true)
    expectNoZombies()
  }

  @Test func aLineLongerThan4KiBIsCutAndItsRestDropped() throws {
    let letters = "head -c 4096 /dev/zero | tr '\\0' a; echo; head -c 10000 /dev/zero | tr '\\0' b"
    let logged = try runToEnd(letters + "; echo; echo after")
    let printed = output(logged)
    #expect(printed.contains(String(repeating: "a", count: 4096)), "exactly 4 KiB passes whole")
    #expect(printed.contains(String(repeating: "b", count: 4096) + " [… cut at 4096 bytes]"))
    #expect(
      !printed.contains { $0.hasPrefix("b") && !$0.hasSuffix("bytes]") }, "the rest is dropped")
    #expect(printed.contains("after"), "the next line is whole again")
  }

  @Test func aNonZeroExitAndASignalAreLoggedAsWarnings() throws {
    let failed = try runToEnd("echo bad >&2; exit 3")
    #expect(
      failed.contains {
        $0.hasPrefix("<4>[tap] pid ") && $0.contains("failed: exit status 3 after ")
      })
    let signalled = try runToEnd("kill -HUP $$")
    #expect(
      signalled.contains {
        $0.hasPrefix("<4>[tap] pid ") && $0.contains("failed: killed by signal 1 (SIGHUP)")
      })
    let fine = try runToEnd("true")
    #expect(fine.contains { $0.hasPrefix("<6>[tap] pid ") && $0.contains("exited with status 0") })
    expectNoZombies()
  }

  @Test func outputOfAProcessLeftRunningIsStillLoggedAfterTheExit() throws {
    let logged = try runToEnd("(sleep 0.3; echo late) & echo early")
    let exit = try #require(logged.firstIndex { $0.contains("exited with status 0") })
    #expect(logged[exit].contains("processes it started still hold its output"))
    let late = try #require(logged.firstIndex { $0.hasSuffix("[tap] late") })
    #expect(exit < late)
    expectNoZombies()
  }

  // MARK: Timeout

  @Test func aTimeoutTerminatesTheWholeProcessGroup() throws {
    let startedAt = ActionRunner.now()
    // The background sleep is the grandchild: SIGTERM must reach it through the group.
    let logged = try runToEnd("sleep 30 & echo $!; wait", timeout: 300_000)
    let grandchild = try #require(output(logged).compactMap { pid_t($0) }.first)
    #expect(eventually(within: 2) { self.isDead(grandchild) }, "the grandchild is gone too")
    #expect(
      logged.contains {
        $0.hasPrefix("<4>[tap] timed out after 300 ms: SIGTERM to process group ")
      })
    #expect(
      logged.contains {
        $0.contains("failed: killed by signal 15 (SIGTERM)")
          && $0.hasSuffix("(timed out after 300 ms)")
      })
    #expect(ActionRunner.now() - startedAt < 5_000_000)
    expectNoZombies()
  }

  @Test func aShellIgnoringSIGTERMIsKilledTwoSecondsLater() throws {
    let startedAt = ActionRunner.now()
    // Ignored signals stay ignored across fork and exec: the sleep ignores SIGTERM too.
    let logged = try runToEnd("trap '' TERM; sleep 30 & echo $!; wait; wait", timeout: 300_000)
    let elapsed = ActionRunner.now() - startedAt
    let grandchild = try #require(output(logged).compactMap { pid_t($0) }.first)
    #expect(eventually(within: 2) { self.isDead(grandchild) })
    #expect(logged.contains { $0.contains("2 s after SIGTERM: SIGKILL to process group ") })
    #expect(logged.contains { $0.contains("failed: killed by signal 9 (SIGKILL)") })
    #expect(elapsed >= 2_300_000, "SIGKILL only 2 s after the SIGTERM")
    #expect(elapsed < 6_000_000)
    expectNoZombies()
  }

  @Test func anActionFinishingInTimeIsNotKilled() throws {
    let logged = try runToEnd("sleep 0.2; echo done", timeout: 2_000_000)
    #expect(output(logged).contains("done"))
    #expect(!logged.contains { $0.contains("SIGTERM") })
    #expect(logged.contains { $0.contains("exited with status 0") })
    // The timer was cancelled: nothing is logged when the timeout would have passed.
    let count = lines().count
    usleep(2_200_000)
    #expect(lines().count == count)
  }

  // MARK: Dropping

  @Test func aFiringWithinTheCooldownIsDropped() throws {
    let first = ActionRunner.now()
    #expect(run(request("true", cooldown: 300_000, firedAt: first)) != .droppedCooldown)
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    #expect(run(request("true", cooldown: 300_000, firedAt: first + 299_999)) == .droppedCooldown)
    #expect(
      lines().contains {
        $0.hasPrefix(
          "<6>[tap] firing dropped: 299 ms after the previous one, within its 300 ms cooldown")
      })
    // A dropped firing does not extend the cooldown: it counts from the last start.
    guard case .started = run(request("true", cooldown: 300_000, firedAt: first + 300_000)) else {
      Issue.record("a firing after the cooldown must start")
      return
    }
    // Other bindings have their own cooldown.
    guard
      case .started = run(
        request("true", key: "lobby#1", cooldown: 300_000, firedAt: first + 300_001))
    else {
      Issue.record("another key is not in this cooldown")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    expectNoZombies()
  }

  @Test func aFiringWhileTheBindingRunsIsDropped() throws {
    let first = run(request("sleep 0.5", key: "lobby#2"))
    guard case .started(let pid) = first else {
      Issue.record("not started: \(first)")
      return
    }
    #expect(
      run(request("sleep 0.5", key: "lobby#2", firedAt: ActionRunner.now() + 1_000_000))
        == .droppedRunning)
    #expect(
      lines().contains("<6>[tap] firing dropped: its previous run (pid \(pid)) is still running"))
    guard case .started = run(request("true", key: "lobby#3")) else {
      Issue.record("another binding runs meanwhile")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    guard
      case .started = run(request("true", key: "lobby#2", firedAt: ActionRunner.now() + 2_000_000))
    else {
      Issue.record("once it ended, the binding runs again")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    expectNoZombies()
  }

  @Test func atMostSixteenActionsRunAtOnce() throws {
    for index in 0..<16 {
      let decision = run(request("sleep 1", key: "binding#\(index)"))
      guard case .started = decision else {
        Issue.record("action \(index) not started: \(decision)")
        return
      }
    }
    #expect(runningCount == 16)
    #expect(run(request("true", key: "binding#16")) == .droppedCapacity)
    #expect(
      lines().contains("<4>[tap] firing dropped: 16 actions are running, the most allowed at once"))
    try #require(runner.waitUntilIdle(timeout: 10_000_000))
    #expect(runningCount == 0)
    guard case .started = run(request("true", key: "binding#16")) else {
      Issue.record("room again once they ended")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    expectNoZombies()
  }

  // MARK: The child's surroundings

  @Test func theEnvironmentIsExactlyTheRequestedOne() throws {
    let environment = ActionEnvironment(variables: [
      "PATH": "/usr/bin:/bin", "DISPLAY": ":0", "GESTURED_GESTURE": "swipe",
      "GESTURED_DEVICE": "Panel $(reboot)",
    ])
    let before = lines().count
    let decision = run(request("tr '\\0' '\\n' < /proc/$$/environ", environment: environment))
    guard case .started = decision else {
      Issue.record("not started: \(decision)")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    let printed = output(Array(lines().dropFirst(before)))
    let variables = printed.filter { $0.first?.isUppercase == true && $0.contains("=") }
    #expect(Set(variables) == Set(environment.entries))
  }

  /// `ls -l /proc/PID/fd` lines turned into "fd target" (ls is the shell's child, so the
  /// listing is the shell's own descriptors, not ls's).
  func descriptors(in lines: [String]) -> [String] {
    lines.compactMap { line in
      guard let arrow = line.firstRange(of: " -> ") else { return nil }
      let number = line[..<arrow.lowerBound].split(separator: " ").last ?? ""
      return "\(number) \(line[arrow.upperBound...])"
    }
  }

  @Test func theChildHasDevNullAsStdinTheTwoPipesAndNothingElse() throws {
    let logged = try runToEnd("ls -l /proc/$$/fd/")
    let descriptors = descriptors(in: output(logged))
    #expect(descriptors.count == 3, "\(descriptors)")
    #expect(descriptors.contains("0 /dev/null"))
    #expect(descriptors.contains { $0.hasPrefix("1 pipe:") })
    #expect(descriptors.contains { $0.hasPrefix("2 pipe:") })
  }

  @Test func theActionLeadsItsOwnProcessGroup() throws {
    let logged = try runToEnd("echo $$ $(cut -d ' ' -f 5 /proc/$$/stat)")
    let fields = try #require(output(logged).first { $0.first?.isNumber == true }).split(
      separator: " ")
    #expect(fields.count == 2 && fields[0] == fields[1])
  }

  // MARK: user:

  @Test(.enabled(if: geteuid() == 0, "dropping privileges needs root"))
  func asRootTheActionRunsAsTheGivenUser() throws {
    let before = lines().count
    let decision = run(
      request(
        """
        id -u; id -g; id -G; echo "$HOME $USER $LOGNAME"
        grep -E '^Sig(Blk|Ign):' /proc/self/status
        echo "pgid $$ $(cut -d ' ' -f 5 /proc/$$/stat)"
        ls -l /proc/$$/fd/
        """, user: "nobody"))
    guard case .started = decision else {
      Issue.record("not started: \(decision)")
      return
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    let logged = Array(lines().dropFirst(before))
    let printed = output(logged)
    let nobody = try UserIdentity(lookingUp: "nobody")
    #expect(nobody.uid != 0 && nobody.gid != 0)
    #expect(
      Array(printed.dropFirst().prefix(4)) == [
        "\(nobody.uid)", "\(nobody.gid)", nobody.groups.map(String.init).joined(separator: " "),
        "\(nobody.home) nobody nobody",
      ])
    // The standard signals (1-31; glibc keeps its internal 32 and 33 to itself).
    for mask in ["SigBlk", "SigIgn"] {
      let line = try #require(printed.first { $0.hasPrefix(mask + ":") })
      let bits = try #require(UInt64(line.dropFirst(mask.count + 1).drop { $0 == "\t" }, radix: 16))
      #expect(bits & 0x7fff_ffff == 0, "\(line)")
    }
    let pgid = try #require(printed.first { $0.hasPrefix("pgid ") }).split(separator: " ")
    #expect(pgid.count == 3 && pgid[1] == pgid[2], "its own process group")
    let descriptors = descriptors(in: printed)
    #expect(descriptors.count == 3, "\(descriptors)")
    #expect(descriptors.contains("0 /dev/null"))
    #expect(
      logged.contains { $0.contains("started pid") && $0.contains(" as user nobody: id -u;") })
    expectNoZombies()
  }

  @Test func withoutRootAUserFailsTheRequest() {
    runner.effectiveUserID = { 1000 }
    let decision = run(request("true", user: "nobody"))
    let message = "user: nobody needs gestured to run as root (it runs as uid 1000)"
    #expect(decision == .failed(message))
    #expect(lines().contains("<3>[tap] cannot start its action: " + message))
    #expect(runningCount == 0)
  }

  @Test(.enabled(if: geteuid() == 0, "dropping privileges needs root"))
  func anUnknownUserFailsTheRequest() {
    let decision = run(request("true", user: "no-such-user-gestured"))
    #expect(decision == .failed("no user named \"no-such-user-gestured\""))
    #expect(
      lines().contains("<3>[tap] cannot start its action: no user named \"no-such-user-gestured\""))
    #expect(runningCount == 0)
  }

  @Test(.enabled(if: geteuid() == 0, "dropping privileges needs root"))
  func aFailureInTheChildBeforeExecIsReported() throws {
    let user = try UserIdentity(lookingUp: "nobody")
    // The shim's child cannot make a closed descriptor its stdout: it reports that and exits.
    let error = #expect(throws: SpawnError.self) {
      try spawnShell(
        "true", environment: ActionEnvironment(),
        output: .descriptors(standardOutput: 999, standardError: 998), user: user)
    }
    #expect(error == SpawnError(operation: "start /bin/sh as user nobody: stdout", errno: EBADF))
  }

  // MARK: Reaping and failures

  @Test func withoutPidfdExitsArePolled() throws {
    runner.pollsForExit = true
    let logged = try runToEnd("echo polled; exit 4")
    #expect(output(logged).contains("polled"))
    #expect(logged.contains { $0.contains("failed: exit status 4") })
    expectNoZombies()
  }

  @Test func noChildIsLeftAsAZombie() throws {
    for index in 0..<8 {
      run(request(index % 2 == 0 ? "true" : "exit 1", key: "z#\(index)"))
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    #expect(started.count == 8)
    expectNoZombies()
    // Other suites' children may be caught between exit and their waitpid: only a zombie
    // that stays is one nobody reaps.
    let zombies = zombieChildren()
    if !zombies.isEmpty { usleep(500_000) }
    #expect(Set(zombies).intersection(zombieChildren()).isEmpty)
  }

  @Test func aCommandThatCannotStartFailsAndIsLoggedAsAnError() {
    let decision = run(request("echo a\u{0}b"))
    guard case .failed(let message) = decision else {
      Issue.record("expected a failure, got \(decision)")
      return
    }
    #expect(message.contains("NUL"))
    #expect(lines().contains { $0.hasPrefix("<3>[tap] cannot start its action: ") })
    #expect(runningCount == 0)
  }

  @Test func labelsAndCommandsStayOnOneLogLine() throws {
    let logged = try runToEnd("echo one\necho two")
    #expect(logged.first?.hasSuffix(": echo one\\necho two") == true)
  }
}

@Suite("Output line splitter")
struct OutputLineSplitterTests {
  func split(_ chunks: [[UInt8]], finish: Bool = true) -> [String] {
    var splitter = OutputLineSplitter()
    var lines: [String] = []
    for chunk in chunks {
      chunk.withUnsafeBytes { splitter.append($0) { lines.append($1 ? "CUT:" + $0 : $0) } }
    }
    if finish { splitter.finish { lines.append($1 ? "CUT:" + $0 : $0) } }
    return lines
  }

  @Test func linesSplitAcrossReadsAreJoined() {
    #expect(split([Array("one\ntw".utf8), Array("o\r\nthree".utf8)]) == ["one", "two", "three"])
    #expect(split([Array("open".utf8)], finish: false) == [])
    #expect(split([Array("\n\n".utf8)]) == ["", ""])
  }

  @Test func aCutNeverSplitsACharacter() {
    // 4095 bytes, then a two-byte é across the 4096 boundary.
    let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 4095) + Array("éz\nnext\n".utf8)
    #expect(split([bytes]) == ["CUT:" + String(repeating: "x", count: 4095), "next"])
  }

  @Test func theRestOfACutLineIsDroppedAcrossReads() {
    let long = [UInt8](repeating: UInt8(ascii: "y"), count: 5000)
    let lines = split([long, long, Array("tail\nnext".utf8)])
    #expect(lines == ["CUT:" + String(repeating: "y", count: 4096), "next"])
  }
}
