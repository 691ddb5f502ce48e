import GestureCore
import GesturedConfig
import GesturedSystem
import Glibc
import Testing

@testable import GesturedRuntime

@Suite("Action spawner")
struct ShellSpawnerTests {
  let directory = TemporaryDirectory()

  /// Runs `command` with `environment` and waits for it.
  func run(_ command: String, environment: ActionEnvironment = ActionEnvironment()) throws
    -> ProcessStatus
  {
    try spawnShell(command, environment: environment).waitForExit()
  }

  func variables(in file: String) throws -> [String: String] {
    let text = try #require(directory.read(file))
    var variables: [String: String] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      variables[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    return variables
  }

  /// The entries execve gave the shell, in their order: `env` would also show the PWD that
  /// dash exports on its own.
  func environ(of environment: ActionEnvironment, file: String = "environ") throws -> [String] {
    let status = try run(
      "tr '\\0' '\\n' < /proc/$$/environ > '\(directory.path)/\(file)'; true", environment: environment)
    #expect(status == .exited(0))
    return try #require(directory.read(file)).split(separator: "\n").map(String.init)
  }

  /// The calling thread's CPUs as /proc shows them (its `Cpus_allowed_list` line).
  static func cpusAllowed(_ status: String? = readFile("/proc/thread-self/status")) -> String? {
    status?.split(separator: "\n").first { $0.hasPrefix("Cpus_allowed_list:") }.map(String.init)
  }

  /// Whether this thread may run on more than one CPU ("0-1", "0,2"), so that holding it to
  /// one shows.
  static var mayRunOnSeveralCPUs: Bool {
    cpusAllowed()?.split(separator: ":").last.map { $0.contains("-") || $0.contains(",") } ?? false
  }

  /// The spawn holds the daemon's thread to its CPU only until the exec: the command runs
  /// where the daemon may run, and the daemon keeps its own CPUs after it.
  @Test(.enabled(if: mayRunOnSeveralCPUs, "this process may run on one CPU only"))
  func theCommandAndTheDaemonKeepTheDaemonsCPUs() throws {
    let before = try #require(Self.cpusAllowed())
    let status = try run("cat /proc/$$/status > '\(directory.path)/status'")
    #expect(status == .exited(0))
    #expect(Self.cpusAllowed(directory.read("status")) == before)
    #expect(Self.cpusAllowed() == before)
  }

  @Test func theEnvironmentIsExactlyTheDocumentedOne() throws {
    let profile = reportProfile()
    var actions = reportActions()
    actions.environment = [
      "DISPLAY": ":0", "SHARED": "from-profile", "GESTURED_GESTURE": "forged", "GESTURED_TAPS": "kept",
    ]
    actions.bindings[2].environment = ["SHARED": "from-binding", "WAYLAND_DISPLAY": "wayland-1"]
    let pinch = GestureEvent(
      time: Timestamp(microseconds: 1_000_000), binding: 2, gesture: .pinch, fingers: 2,
      direction: .out,
      scale: 1.31234, position: Point(x: 0.04, y: 1.2), region: 0)
    let firing = try #require(ResolvedFiring(event: pinch, profile: profile, actions: actions))
    let environment = ActionEnvironment(
      firing: firing, deviceName: "Panel; rm -rf /", devnode: "/dev/input/event7",
      path: "/usr/bin:/bin")
    // Sorted by name; the config's GESTURED_GESTURE gives way, its GESTURED_TAPS (which a
    // pinch does not set) stays.
    let expected = [
      "DISPLAY=:0",
      "GESTURED_BINDING=pinch",
      "GESTURED_DEVICE=Panel; rm -rf /",
      "GESTURED_DEVNODE=/dev/input/event7",
      "GESTURED_DIRECTION=out",
      "GESTURED_FINGERS=2",
      "GESTURED_GESTURE=pinch",
      "GESTURED_PROFILE=lobby",
      "GESTURED_REGION=corner",
      "GESTURED_SCALE=1.3123",
      "GESTURED_TAPS=kept",
      "GESTURED_X=0.04",
      "GESTURED_Y=1.0",
      "PATH=/usr/bin:/bin",
      "SHARED=from-binding",
      "WAYLAND_DISPLAY=wayland-1",
    ]
    #expect(environment.entries == expected)
    #expect(try environ(of: environment) == expected)

    // The daemon's way: the binding's shared part made once, the firing's values on top.
    let binding = BindingTable.BindingRun(
      profile: profile, profileIndex: 3, actions: actions, binding: 2, devnode: "/dev/input/event7",
      deviceName: "Panel; rm -rf /", path: "/usr/bin:/bin")
    let request = try #require(binding.request(for: firing, devnode: "/dev/input/event7"))
    #expect(request.key == "3#2")
    #expect(request.label == "lobby/pinch")
    #expect(request.command == "zoom")
    #expect(request.environment == environment)
    #expect(try environ(of: request.environment, file: "daemon-environ") == expected)
    // A second firing of the same binding gets its own values, the shared ones unchanged.
    var later = pinch
    later.scale = 0.5
    later.region = nil
    let second = try #require(ResolvedFiring(event: later, profile: profile, actions: actions))
    let secondEntries = try #require(binding.request(for: second, devnode: "/dev/input/event7"))
      .environment.entries
    #expect(
      secondEntries
        == expected.filter { !$0.hasPrefix("GESTURED_REGION=") }.map {
          $0.hasPrefix("GESTURED_SCALE=") ? "GESTURED_SCALE=0.5" : $0
        })
  }

  @Test func theShellGetsTheCommandAsItsOnlyScript() throws {
    let command = "tr '\\0' '\\n' < /proc/$$/cmdline > '\(directory.path)/argv'; true"
    #expect(try run(command) == .exited(0))
    #expect(directory.read("argv") == "/bin/sh\n-c\n\(command)\n")
  }

  @Test func aVariableSetLaterReplacesTheSharedOneOfItsName() throws {
    let shared = ActionEnvironment.Shared(variables: ["A": "1", "B": "2", "D": "4", "bad=name": "x", "NUL": "a\u{0}b"])
    var environment = ActionEnvironment(variables: ["A": "1", "B": "2", "D": "4"])
    let accepted = [("B", "3"), ("AA", "x"), ("E", "5"), ("C", "c"), ("E", "6")].map { environment.set($0, $1) }
    #expect(accepted == [true, true, true, true, true])
    let expected = ["A=1", "AA=x", "B=3", "C=c", "D=4", "E=6"]
    #expect(environment.entries == expected)
    #expect(environment["B"] == "3")
    #expect(environment["D"] == "4")
    #expect(environment["Z"] == nil)
    #expect(environment.variables == ["A": "1", "AA": "x", "B": "3", "C": "c", "D": "4", "E": "6"])
    #expect(try environ(of: environment) == expected)
    #expect(shared.names == ["A", "B", "D"], "entries execve cannot carry are left out")
  }

  @Test func fieldsThatDoNotApplyAreAbsent() throws {
    let profile = reportProfile()
    let tap = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 0, gesture: .tap, fingers: 1, taps: 2,
      position: Point(x: 0.5, y: 0.5), region: nil)
    let firing = try #require(ResolvedFiring(event: tap, profile: profile, actions: reportActions()))
    let environment = ActionEnvironment(
      firing: firing, deviceName: "P", devnode: "rec.evemu", path: nil)
    #expect(environment.variables["GESTURED_TAPS"] == "2")
    #expect(environment.variables["GESTURED_REGION"] == nil)
    #expect(environment.variables["GESTURED_DIRECTION"] == nil)
    #expect(environment.variables["GESTURED_SCALE"] == nil)
    #expect(environment.variables["GESTURED_ANGLE"] == nil)
    #expect(environment.variables["GESTURED_PHASE"] == nil)
    #expect(environment.variables["GESTURED_STEP"] == nil)
    #expect(environment.variables["GESTURED_STEPS"] == nil)
    #expect(environment.variables["GESTURED_DX"] == nil)
    #expect(environment.variables["PATH"] == ActionEnvironment.defaultPath)

    let rotate = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 3, gesture: .rotate, fingers: 2,
      direction: .clockwise,
      angle: -17.5, position: Point(x: 0.5, y: 0.5), region: 1)
    let rotation = try #require(ResolvedFiring(event: rotate, profile: profile, actions: reportActions()))
    let rotateEnvironment = ActionEnvironment(
      firing: rotation, deviceName: "P", devnode: "d", path: "")
    #expect(rotateEnvironment.variables["GESTURED_ANGLE"] == "-17.5")
    #expect(rotateEnvironment.variables["GESTURED_TAPS"] == nil)
    #expect(rotateEnvironment.variables["GESTURED_REGION"] == "main")
  }

  @Test func stepsAndEndRunsSayWhereTheGestureStands() throws {
    var profile = reportProfile()
    profile.bindings.append(Binding(gesture: .pan, direction: .right, step: 10))
    var actions = reportActions()
    actions.bindings.append(BindingAction(run: "scroll", end: "done"))
    let step = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 5, gesture: .pan, phase: .step(3), sequence: 7, fingers: 1,
      direction: .right, dx: 31.25, dy: -2.00004, position: Point(x: 0.5, y: 0.5), region: nil)
    let firing = try #require(ResolvedFiring(event: step, profile: profile, actions: actions))
    #expect(firing.command == "scroll")
    let variables = ActionEnvironment(firing: firing, deviceName: "P", devnode: "d", path: nil).variables
    #expect(variables["GESTURED_PHASE"] == "step")
    #expect(variables["GESTURED_STEP"] == "3")
    #expect(variables["GESTURED_STEPS"] == "1")
    #expect(variables["GESTURED_DIRECTION"] == "right")
    #expect(variables["GESTURED_DX"] == "31.25")
    #expect(variables["GESTURED_DY"] == "-2.0")
    #expect(variables["GESTURED_SCALE"] == nil)

    var end = step
    end.phase = .end(steps: 4)
    let ended = try #require(ResolvedFiring(event: end, profile: profile, actions: actions))
    #expect(ended.command == "done")
    let endVariables = ActionEnvironment(firing: ended, deviceName: "P", devnode: "d", path: nil).variables
    #expect(endVariables["GESTURED_PHASE"] == "end")
    #expect(endVariables["GESTURED_STEPS"] == "4")
    #expect(endVariables["GESTURED_STEP"] == "4")
  }

  @Test(arguments: EndReason.allCases)
  func endRunsSayWhyTheStepsEnded(_ reason: EndReason) throws {
    var profile = reportProfile()
    profile.bindings.append(Binding(gesture: .pan, direction: .right, step: 10))
    var actions = reportActions()
    actions.bindings.append(BindingAction(run: "scroll", end: "done"))
    var end = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 5, gesture: .pan, phase: .end(steps: 2), sequence: 7, fingers: 1,
      direction: .right, dx: 20, dy: 0, position: Point(x: 0.5, y: 0.5), region: nil, endReason: reason)
    func variables() throws -> [String: String] {
      let firing = try #require(ResolvedFiring(event: end, profile: profile, actions: actions))
      return ActionEnvironment(firing: firing, deviceName: "P", devnode: "d", path: nil).variables
    }
    #expect(try variables()["GESTURED_END_REASON"] == reason.rawValue)
    end.phase = .step(2)
    #expect(try variables()["GESTURED_END_REASON"] == nil, "a step has not ended")
  }

  @Test func namesAndValuesExecveCannotCarryAreRefused() {
    var environment = ActionEnvironment()
    let refused = [("", "x"), ("A=B", "x"), ("NUL\u{0}", "x"), ("OK", "x\u{0}y")].map {
      environment.set($0, $1)
    }
    #expect(refused == [false, false, false, false])
    let accepted = environment.set("OK", "a=b c")
    #expect(accepted)
    #expect(environment.entries == ["OK=a=b c"])
  }

  @Test func theExitStatusAndSignalAreReported() throws {
    #expect(try run("exit 0") == .exited(0))
    #expect(try run("exit 42") == .exited(42))
    #expect(try run("kill -TERM $$") == .signalled(SIGTERM))
    #expect(ProcessStatus.exited(42).description == "exit status 42")
    #expect(ProcessStatus.signalled(9).description == "killed by signal 9")
  }

  @Test func stdinIsDevNull() throws {
    let status = try run(
      "readlink /proc/self/fd/0 > '\(directory.path)/stdin'; cat > '\(directory.path)/read'")
    #expect(status == .exited(0))
    #expect(directory.read("stdin") == "/dev/null\n")
    #expect(directory.read("read") == "")
  }

  @Test func theActionLeadsItsOwnProcessGroup() throws {
    let process = try spawnShell(
      "cut -d ' ' -f 5 /proc/$$/stat > '\(directory.path)/pgid'", environment: ActionEnvironment())
    #expect(try process.waitForExit() == .exited(0))
    #expect(directory.read("pgid") == "\(process.pid)\n")
    #expect(process.pid != getpgrp())
  }

  @Test func blockedAndIgnoredSignalsAreReset() throws {
    var block = sigset_t()
    sigemptyset(&block)
    sigaddset(&block, SIGUSR2)
    var previousMask = sigset_t()
    pthread_sigmask(SIG_BLOCK, &block, &previousMask)
    let previousHandler = signal(SIGUSR1, SIG_IGN)
    defer {
      signal(SIGUSR1, previousHandler)
      pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
    // grep reads its own status: the shell blocks every signal while it waits for a child.
    let status = try run("grep -E '^Sig(Blk|Ign):' /proc/self/status > '\(directory.path)/signals'")
    #expect(status == .exited(0))
    let masks = parseMasks(try #require(directory.read("signals")))
    let blocked = try #require(masks["SigBlk"])
    let ignored = try #require(masks["SigIgn"])
    #expect(blocked & (1 << (UInt64(SIGUSR2) - 1)) == 0)
    #expect(ignored & (1 << (UInt64(SIGUSR1) - 1)) == 0)
  }

  func parseMasks(_ text: String) -> [String: UInt64] {
    var masks: [String: UInt64] = [:]
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":")
      guard parts.count == 2 else { continue }
      masks[String(parts[0])] = UInt64(
        parts[1].trimmingPrefix { $0 == " " || $0 == "\t" }, radix: 16)
    }
    return masks
  }

  @Test func ourFileDescriptorsAreNotInherited() throws {
    // Opened without O_CLOEXEC on purpose: the spawner must close it anyway.
    let marker = directory.write("marker", "")
    let leaked = open(marker, O_RDONLY)
    try #require(leaked >= 3)
    defer { close(leaked) }
    let status = try run("ls -l /proc/$$/fd/ > '\(directory.path)/fds'; true")
    #expect(status == .exited(0))
    let listing = try #require(directory.read("fds"))
    #expect(listing.contains("/dev/null"), "stdin is there")
    #expect(!listing.contains(marker))
  }

  /// What `command` writes to stdout and to stderr, through two pipes given as descriptors.
  func written(_ command: String) throws -> (standardOutput: String, standardError: String) {
    var out: [Int32] = [-1, -1]
    var err: [Int32] = [-1, -1]
    try #require(pipe(&out) == 0)
    try #require(pipe(&err) == 0)
    defer {
      close(out[0])
      close(err[0])
    }
    let process = try spawnShell(
      command, environment: ActionEnvironment(),
      output: .descriptors(standardOutput: out[1], standardError: err[1]))
    close(out[1])
    close(err[1])
    #expect(try process.waitForExit() == .exited(0))
    func text(_ descriptor: Int32) -> String {
      var bytes = [UInt8](repeating: 0, count: 256)
      let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      return String(decoding: bytes[..<max(0, count)], as: UTF8.self)
    }
    return (text(out[0]), text(err[0]))
  }

  @Test func stdoutAndStderrGoToTheDescriptorsGiven() throws {
    let first = try written("echo one; echo two >&2")
    #expect(first.standardOutput == "one\n")
    #expect(first.standardError == "two\n")
    // Other numbers the next time (a descriptor holds the old ones): each call's own.
    let holder = open("/dev/null", O_RDONLY | O_CLOEXEC)
    defer { close(holder) }
    let second = try written("echo three >&2")
    #expect(second.standardOutput == "")
    #expect(second.standardError == "three\n")
  }

  @Test func aFailureInTheChildBeforeExecIsReported() throws {
    // The child cannot make a closed descriptor its stdout: it reports that and exits.
    let error = #expect(throws: SystemError.self) {
      try spawnShell(
        "true", environment: ActionEnvironment(),
        output: .descriptors(standardOutput: 999, standardError: 998))
    }
    #expect(error == SystemError(operation: "start /bin/sh: stdout", errno: .badFileDescriptor))
  }

  @Test func aCommandWithANulByteIsRefused() {
    #expect(throws: SystemError.self) {
      try spawnShell("echo a\u{0}b", environment: ActionEnvironment())
    }
  }

  @Test func gestureDataNeverReachesTheShellAsCode() throws {
    var environment = ActionEnvironment()
    environment.set("GESTURED_DEVICE", "$(touch '\(directory.path)/pwned')")
    let status = try run(
      "printf '%s' \"$GESTURED_DEVICE\" > '\(directory.path)/device'", environment: environment)
    #expect(status == .exited(0))
    #expect(directory.read("pwned") == nil)
    #expect(directory.read("device") == "$(touch '\(directory.path)/pwned')")
  }
}

extension ShellSpawnerTests {
  /// The limit gestured started with, after it raised its own (lowered first here when this
  /// process's soft limit is its hard one already, so that there is something to restore).
  func startingOpenFileLimit() throws -> OpenFileLimit.Value {
    if OpenFileLimit.forChildren == nil, case .success(let now) = OpenFileLimit.current(), now.soft == now.hard {
      var lower = rlimit(rlim_cur: rlim_t(now.soft / 2), rlim_max: rlim_t(now.hard))
      #expect(setrlimit(OpenFileLimit.resource, &lower) == 0)
    }
    _ = OpenFileLimit.raiseToHardLimit()
    return try #require(OpenFileLimit.forChildren)
  }

  @Test func everyActionGetsTheOpenFileLimitGesturedStartedWith() throws {
    let started = try startingOpenFileLimit()
    let now = try OpenFileLimit.current().get()
    #expect(now.soft == now.hard && started.soft < now.soft)
    #expect(try run("ulimit -Sn > '\(directory.path)/limit'") == .exited(0))
    #expect(directory.read("limit") == "\(started.soft)\n")
  }

  @Test(.enabled(if: geteuid() == 0, "switching users needs root"))
  func aUserActionStartsInItsHomeWithUmask022() throws {
    chmod(directory.path, 0o777)
    let home = directory.path + "/home"
    mkdir(home, 0o755)
    var user = try UserIdentity(lookingUp: "nobody")
    user.home = home
    let started = try startingOpenFileLimit()
    let probe = "{ pwd -P; umask; ulimit -Sn; } > '\(directory.path)/state'"
    let environment = ActionEnvironment(variables: ["PATH": ActionEnvironment.userPath])
    #expect(try spawnShell(probe, environment: environment, user: user).waitForExit() == .exited(0))
    #expect(directory.read("state") == "\(home)\n0022\n\(started.soft)\n")
    // A home that does not exist (nobody's is /nonexistent): the root directory.
    user.home = directory.path + "/missing"
    #expect(try spawnShell(probe, environment: environment, user: user).waitForExit() == .exited(0))
    #expect(directory.read("state") == "/\n0022\n\(started.soft)\n")
  }

  @Test func asRootActionsGetAFixedPathAndUserActionsOneWithoutSbin() {
    #expect(
      ActionEnvironment.startingPath(user: nil, daemonPath: "/root/bin:/usr/bin", daemonIsRoot: true)
        == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
    #expect(
      ActionEnvironment.startingPath(user: "kiosk", daemonPath: "/root/bin:/usr/bin", daemonIsRoot: true)
        == "/usr/local/bin:/usr/bin:/bin")
    // Not root: no one else to become; the caller's own PATH, as before.
    #expect(
      ActionEnvironment.startingPath(user: "kiosk", daemonPath: "/home/me/bin:/usr/bin", daemonIsRoot: false)
        == "/home/me/bin:/usr/bin")
  }

  @Test func usersAreLookedUpOnceAtLoadAndAnUnknownOneIsKeptAsAFailure() {
    var actions = ProfileActions(user: "root")
    var binding = BindingAction(run: "true")
    binding.user = "no-such-user-gestured"
    actions.bindings = [binding, BindingAction(run: "true")]
    let users = ResolvedUsers(actions: [actions])
    #expect((try? users["root"]?.get())?.uid == 0)
    #expect(users.failures.map(\.name) == ["no-such-user-gestured"])
    #expect(users["nobody"] == nil, "not named by the config: not looked up")
  }
}
