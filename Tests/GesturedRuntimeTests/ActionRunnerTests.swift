import Dispatch
import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// The runner with real processes, pipes and signals (the integration set: what the policy
/// decides is pinned down on virtual time in ActionPolicyTests), on a private serial queue
/// standing in for the daemon's main queue. Every wait has a deadline.
@Suite("ActionRunner", .serialized)
final class ActionRunnerTests {
  let queue = DispatchQueue(label: "gestured.tests.action-runner")
  let log = CapturedOutput()
  let loop: EventLoopThread
  let runner: ActionRunner
  /// Every pid the runner started, checked for zombies at the end of each test.
  var started: [pid_t] = []

  init() throws {
    // Priority prefixes, so tests can tell info (6) from notice (5) and warning (4).
    loop = try EventLoopThread(queue: queue)
    runner = ActionRunner(queue: queue, logger: Logger(sink: log, journalPrefixes: true), multiplexer: loop.multiplexer)
    // As the daemon does when it loads a config.
    runner.users = ResolvedUsers(names: ["nobody", "no-such-user-gestured"])
  }

  deinit {
    // A test that failed early must not leave processes behind for the next one.
    _ = runner.waitUntilIdle(timeout: 5_000_000)
    loop.stop()
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
    let ours = getpid()
    return (directoryEntries("/proc") ?? []).compactMap { name in
      guard let pid = pid_t(name), let (state, parent) = processState(pid) else { return nil }
      return state == "Z" && parent == ours ? pid : nil
    }
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

  @Test func withoutLevelsInTheLogStdoutAndStderrShareOnePipeAndKeepTheirOrder() throws {
    // No journal prefixes: info and notice lines read the same, so one pipe serves both.
    let plain = CapturedOutput()
    let plainRunner = ActionRunner(queue: queue, logger: Logger(sink: plain), multiplexer: loop.multiplexer)
    let decision = queue.sync {
      plainRunner.run(request("echo one; echo two >&2; echo three; echo four >&2; printf five >&2"))
    }
    if case .started(let pid) = decision { started.append(pid) }
    try #require(plainRunner.waitUntilIdle(timeout: 10_000_000))
    let logged = queue.sync { plain.lines }
    let printed = output(logged).filter { !$0.hasPrefix("started pid ") && !$0.hasPrefix("pid ") }
    #expect(printed == ["one", "two", "three", "four", "five"])
    #expect(logged.last?.contains("exited with status 0") == true)
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
    let before = lines().count
    let logged = try runToEnd("(sleep 0.3; echo late) & echo early")
    let early = try #require(logged.firstIndex { $0.hasSuffix("[tap] early") })
    let exit = try #require(logged.firstIndex { $0.contains("exited with status 0") })
    #expect(early < exit)
    #expect(eventually { log.lines.dropFirst(before).contains { $0.hasSuffix("[tap] late") } })
    let all = Array(lines().dropFirst(before))
    let late = try #require(all.firstIndex { $0.hasSuffix("[tap] late") })
    #expect(try #require(all.firstIndex { $0.contains("exited with status 0") }) < late)
    expectNoZombies()
  }

  /// The pipe the child has as `descriptor` (readlink of /proc/$$/fd/N: "pipe:[inode]").
  func pipe(of command: String = "", descriptor: Int32, key: String, label: String = "tap") throws -> String {
    let before = lines().count
    run(request("\(command)readlink /proc/$$/fd/\(descriptor)", key: key, label: label))
    try #require(runner.waitUntilIdle(timeout: 10_000_000))
    return try #require(output(Array(lines().dropFirst(before)), label: label).first { $0.hasPrefix("pipe:") })
  }

  /// How many of this process's descriptors are `pipe` ("pipe:[inode]"): both ends are 2.
  /// (Counted by inode: other suites open and close descriptors meanwhile.)
  func descriptors(of pipe: String) -> Int {
    guard let names = directoryEntries("/proc/self/fd") else { return -1 }
    var count = 0
    for name in names {
      var target = [CChar](repeating: 0, count: 64)
      let length = readlink("/proc/self/fd/\(name)", &target, target.count - 1)
      guard length > 0 else { continue }
      if String(decoding: target[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) == pipe { count += 1 }
    }
    return count
  }

  @Test func everyRunOfABindingWritesToTheBindingsPipes() throws {
    let first = try pipe(descriptor: 1, key: "lobby#1")
    #expect(descriptors(of: first) == 2, "the runner keeps both ends")
    #expect(try pipe(descriptor: 1, key: "lobby#1") == first, "the same binding: the same pipe")
    for _ in 0..<5 { run(request("true", key: "lobby#1")) }
    try #require(runner.waitUntilIdle(timeout: 10_000_000))
    #expect(try pipe(descriptor: 1, key: "lobby#1") == first)
    #expect(descriptors(of: first) == 2)
    // Stderr has its own pipe here (the log shows levels); another binding has others.
    #expect(try pipe(descriptor: 2, key: "lobby#1") != first)
    #expect(try pipe(descriptor: 1, key: "lobby#2") != first)
    #expect(try pipe(descriptor: 1, key: "lobby#1", label: "renamed") != first, "a reload's other binding")
  }

  @Test func theLeastRecentlyRunBindingsPipesAreClosedBeyondTheLimit() throws {
    runner.maximumKeptOutputs = 2
    let a = try pipe(descriptor: 1, key: "a#0", label: "a")
    let b = try pipe(descriptor: 1, key: "b#0", label: "b")
    _ = try pipe(descriptor: 1, key: "a#0", label: "a")  // b is now the least recent
    #expect(!lines().contains { $0.contains("output pipes closed") })
    let c = try pipe(descriptor: 1, key: "c#0", label: "c")
    let closed = "<6>[b] output pipes closed: the binding run least recently of more than 2"
    #expect(lines().contains { $0.hasPrefix(closed) })
    #expect(descriptors(of: b) == 0, "both ends closed")
    #expect(descriptors(of: a) == 2 && descriptors(of: c) == 2)
    #expect(try pipe(descriptor: 1, key: "a#0", label: "a") == a, "a kept its pipes")
    let newB = try pipe(descriptor: 1, key: "b#0", label: "b")
    #expect(lines().contains { $0.hasPrefix("<6>[c] output pipes closed") })
    #expect(descriptors(of: c) == 0 && descriptors(of: newB) == 2)
  }

  @Test func aPartialLastLineWaitsWhileAnotherRunOfTheBindingWrites() throws {
    // Two streams of one binding run at once: the first run's unfinished line is flushed
    // at its exit only if no other run of the binding still writes to the pipe.
    let steps = [
      ActionRunner.Request(
        key: "lobby#7", label: "pinch", command: "sleep 0.4; printf last", environment: ActionEnvironment(),
        firedAt: ActionRunner.now(), schedule: .step(stream: "a")),
      ActionRunner.Request(
        key: "lobby#7", label: "pinch", command: "printf 'whole\\n'; printf part", environment: ActionEnvironment(),
        firedAt: ActionRunner.now(), schedule: .step(stream: "b")),
    ]
    let before = lines().count
    for step in steps { run(step) }
    try #require(runner.waitUntilIdle(timeout: 10_000_000))
    let printed = output(Array(lines().dropFirst(before)), label: "pinch")
    #expect(printed.contains("whole"))
    #expect(printed.contains("partlast"), "\(printed)")
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

  // MARK: The queue

  /// Runs the requests in one turn of the queue, so nothing started among them can end before
  /// the last is decided: the decisions, and the counts right after them, do not depend on
  /// timing. `then` runs in the same turn.
  func runTogether(
    _ requests: [ActionRunner.Request], then: (ActionRunner) -> Void = { _ in }
  ) -> (decisions: [ActionRunner.Decision], running: Int, waiting: Int) {
    let result = queue.sync {
      let decisions = requests.map { runner.run($0) }
      let counts = (runner.runningCount, runner.waitingCount)
      then(runner)
      return (decisions, counts.0, counts.1)
    }
    for case .started(let pid) in result.0 { started.append(pid) }
    return (result.0, result.1, result.2)
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

  /// Fields 5 to 7 of the shell's /proc/PID/stat (process group, session, tty_nr) with its
  /// pid first, and whether it could open /dev/tty.
  static let sessionProbe =
    "echo \"session $$ $(cut -d ' ' -f 5-7 /proc/$$/stat)\"; "
    + "if (exec 3</dev/tty) 2>/dev/null; then echo 'tty: opened'; else echo 'tty: none'; fi"

  /// A session leader with no controlling terminal: a command cannot reach the terminal
  /// gestured runs in (TIOCSTI).
  func expectOwnSessionWithoutTerminal(
    _ printed: [String], sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let fields = printed.first { $0.hasPrefix("session ") }?.split(separator: " ") ?? []
    #expect(fields.count == 5, "\(printed)", sourceLocation: sourceLocation)
    guard fields.count == 5 else { return }
    #expect(fields[1] == fields[2], "leads its process group", sourceLocation: sourceLocation)
    #expect(fields[1] == fields[3], "leads its session", sourceLocation: sourceLocation)
    #expect(fields[4] == "0", "no controlling terminal", sourceLocation: sourceLocation)
    #expect(printed.contains("tty: none"), sourceLocation: sourceLocation)
  }

  @Test func theActionLeadsItsOwnSessionWithoutAControllingTerminal() throws {
    expectOwnSessionWithoutTerminal(output(try runToEnd(Self.sessionProbe)))
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
        \(Self.sessionProbe)
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
    expectOwnSessionWithoutTerminal(printed)
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
    let error = #expect(throws: SystemError.self) {
      try spawnShell(
        "true", environment: ActionEnvironment(),
        output: .descriptors(standardOutput: 999, standardError: 998), user: user)
    }
    #expect(error == SystemError(operation: "start /bin/sh as user nobody: stdout", errno: .badFileDescriptor))
  }

  // MARK: Reaping and failures

  @Test func withoutPidfdExitsArePolled() throws {
    runner.pollsForExit = true
    let logged = try runToEnd("echo polled; exit 4")
    #expect(output(logged).contains("polled"))
    #expect(logged.contains { $0.contains("failed: exit status 4") })
    // A polled exit starts the binding's waiting run too.
    let (decisions, _, _) = runTogether([request("sleep 0.1"), request("echo next")])
    #expect(decisions.last == .queued)
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    #expect(output(lines()).contains("next"))
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

@Suite("A command on one log line")
struct OneLineTests {
  @Test func aPrintableCommandUnderTheLimitIsKeptAsItIs() {
    #expect(ActionRunner.oneLine("echo R >> /tmp/out", limit: 4096) == "echo R >> /tmp/out")
    #expect(ActionRunner.oneLine("notify-send 'Grüße ✓'", limit: 4096) == "notify-send 'Grüße ✓'")
  }

  @Test func controlCharactersAreEscapedAndLongTextIsCutAtTheLimitInScalars() {
    #expect(ActionRunner.oneLine("a\nb\tc\u{1b}d\u{7f}", limit: 4096) == #"a\nb\tc\x1bd\x7f"#)
    #expect(ActionRunner.oneLine("abcdef", limit: 4) == "abcd…")
    // More bytes than the limit but no more scalars: not cut.
    #expect(ActionRunner.oneLine("éééé", limit: 4) == "éééé")
    #expect(ActionRunner.oneLine("ééééé", limit: 4) == "éééé…")
  }
}

// MARK: Descriptors and output floods

extension ActionRunnerTests {
  @Test func anActionWhoseExitCannotBeWatchedIsKilledAndTakesNoSlot() throws {
    runner.failsToWatchExits = Errno(rawValue: EMFILE)
    let decision = run(request("sleep 30 & exec sleep 30"))
    guard case .failed(let message) = decision else {
      Issue.record("expected a failure, got \(decision)")
      return
    }
    #expect(message.hasPrefix("cannot watch for its exit (timerfd_create: "), "\(message)")
    #expect(message.hasSuffix("and its process group killed"))
    #expect(lines().contains { $0.hasPrefix("<3>[tap] cannot start its action: cannot watch for its exit") })
    #expect(runningCount == 0)
    // The pid in the message, and the sleep it left behind: both dead (the group was killed).
    let pid = try #require(
      message.split(separator: " ").firstIndex(of: "pid").map { message.split(separator: " ")[$0 + 1] })
    #expect(isDead(try #require(pid_t(pid))))
    // Every slot is still there: the next runs start.
    runner.failsToWatchExits = nil
    for index in 0..<ActionRunner.defaultMaximumRunning {
      #expect(run(request("true", key: "free#\(index)")) != .queued)
    }
    try #require(runner.waitUntilIdle(timeout: 5_000_000))
    expectNoZombies()
  }

  /// Where a process sleeps in the kernel (/proc/PID/wchan).
  func waitChannel(_ pid: pid_t) -> String {
    let descriptor = open("/proc/\(pid)/wchan", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var buffer = [UInt8](repeating: 0, count: 128)
    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
  }

  @Test func aFloodOfOutputIsCutToTheRateAndItsWriterBlocks() throws {
    let before = lines().count
    // `yes` prints without end: stopped by its timeout.
    let decision = run(request("exec yes flood", timeout: 1_500_000))
    guard case .started(let pid) = decision else {
      Issue.record("not started: \(decision)")
      return
    }
    // Past its first second's lines the pipe is not read: `yes` fills it and waits there
    // (pipe_write, anon_pipe_write since Linux 6.x).
    #expect(eventually(within: 1) { self.waitChannel(pid).hasSuffix("pipe_write") })
    try #require(runner.waitUntilIdle(timeout: 10_000_000))
    #expect(eventually(within: 2) { self.log.lines.contains { $0.contains("not logged, its output not read for") } })
    let logged = Array(lines().dropFirst(before))
    let floods = output(logged).filter { $0 == "flood" }
    // Each second read logs its 100 lines and then a summary of those held back, until the
    // pipe is empty (it still holds what `yes` wrote before its timeout).
    let summaries = logged.filter { $0.contains("output past") }
    #expect(!summaries.isEmpty)
    #expect(floods.count >= ActionRunner.outputLinesPerSecond)
    #expect(floods.count <= (summaries.count + 1) * ActionRunner.outputLinesPerSecond, "\(floods.count) lines logged")
    for summary in summaries {
      let prefix = "<4>[tap] output past 100 lines or 64 KiB a second: "
      #expect(summary.hasPrefix(prefix), "\(summary)")
      // "N lines (M bytes) not logged": a `yes` read holds thousands of lines.
      let held = summary.dropFirst(prefix.count).split(separator: " ").first.flatMap { Int($0) } ?? 0
      #expect(held > 1000, "\(summary)")
    }
    expectNoZombies()
  }
}
