import CGesturedShim
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// How a child process ended.
public enum ProcessStatus: Hashable, Sendable, CustomStringConvertible {
  case exited(Int32)
  case signalled(Int32)

  public var succeeded: Bool { self == .exited(0) }

  /// Decodes a `waitpid` status. Written out because WIFEXITED and friends are macros Swift
  /// does not import; the layout is Linux's: low 7 bits the signal, next byte the exit code.
  public init(waitStatus status: Int32) {
    let signal = status & 0x7f
    if signal == 0 {
      self = .exited((status >> 8) & 0xff)
    } else {
      self = .signalled(signal)
    }
  }

  public var description: String {
    switch self {
    case .exited(let code): "exit status \(code)"
    case .signalled(let signal): "killed by signal \(signal)"
    }
  }
}

/// A system call that failed while starting or waiting for an action.
public struct SpawnError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What was being done, e.g. "posix_spawn /bin/sh".
  public var operation: String
  public var errno: Errno

  public init(operation: String, errno: Errno) {
    self.operation = operation
    self.errno = errno
  }

  public var description: String { "\(operation): \(errno)" }
}

/// Where an action's standard output and error go.
public enum ActionOutput: Hashable, Sendable {
  /// The same stdout and stderr as the daemon (the journal, under systemd).
  case inherit
  /// Both to the daemon's stderr, so that replay's stdout carries nothing but JSON lines.
  case standardError
  /// To these descriptors (the write ends of the runner's pipes). They must be above 2 and
  /// may be close-on-exec: the child gets copies.
  case descriptors(standardOutput: Int32, standardError: Int32)
}

/// A started action: its pid, which is also its process group (kill `-pid` to end it and
/// everything it started).
public struct SpawnedProcess: Hashable, Sendable {
  public let pid: pid_t

  /// Blocks until the process ends and reaps it. Call once.
  public func waitForExit() throws(SpawnError) -> ProcessStatus {
    var status: Int32 = 0
    if case .failure(let error) = retryOnInterrupt({ valueOrErrno(waitpid(pid, &status, 0)) }) {
      throw SpawnError(operation: "waitpid \(pid)", errno: error)
    }
    return ProcessStatus(waitStatus: status)
  }
}

/// The shell every action runs in.
public let actionShell = "/bin/sh"

/// Starts `/bin/sh -c command` with exactly `environment`, as `user` when given.
///
/// The child gets stdin from /dev/null, its own session and process group (so no controlling
/// terminal: a command cannot type into the terminal gestured was started from), an empty
/// signal mask and
/// default dispositions for every signal (the daemon blocks and ignores signals the action
/// must not inherit), and no file descriptor of ours beyond 0, 1 and 2. It does not wait for
/// the child.
///
/// Without `user`, posix_spawn does all this (POSIX_SPAWN_SETSID, POSIX_SPAWN_SETSIGMASK,
/// POSIX_SPAWN_SETSIGDEF). With `user`, which needs root, the C shim's vfork child does it and
/// also takes the user's uid, gid and supplementary groups; HOME, USER and LOGNAME are then
/// the user's, whatever `environment` says.
///
/// `fileActions`, when given, keeps posix_spawn's file actions between calls (see
/// SpawnFileActions); without it they are built for this call alone.
public func spawnShell(
  _ command: String, environment: ActionEnvironment, output: ActionOutput = .inherit,
  user: UserIdentity? = nil, fileActions: SpawnFileActions? = nil
) throws(SpawnError) -> SpawnedProcess {
  guard !ActionEnvironment.holdsNUL(command) else {
    throw SpawnError(operation: "spawn \(actionShell): the command holds a NUL byte", errno: .invalidArgument)
  }
  if let user {
    return try spawnShell(command, environment: environment, output: output, as: user)
  }

  let actionsOwner = fileActions ?? SpawnFileActions()
  let actions = try actionsOwner.prepared(for: output)

  var attributes = posix_spawnattr_t()
  var result = posix_spawnattr_init(&attributes)
  guard result == 0 else { throw SpawnError(operation: "posix_spawnattr_init", errno: Errno(rawValue: result)) }
  defer { posix_spawnattr_destroy(&attributes) }
  var noSignals = sigset_t()
  sigemptyset(&noSignals)
  var everySignal = sigset_t()
  sigfillset(&everySignal)
  // setsid makes the child lead a new process group too, so no POSIX_SPAWN_SETPGROUP (its
  // setpgid would fail on a session leader).
  let flags =
    gestured_spawn_setsid_flag() | Int16(POSIX_SPAWN_SETSIGMASK) | Int16(POSIX_SPAWN_SETSIGDEF)
  result = posix_spawnattr_setflags(&attributes, flags)
  if result == 0 { result = posix_spawnattr_setsigmask(&attributes, &noSignals) }
  if result == 0 { result = posix_spawnattr_setsigdefault(&attributes, &everySignal) }
  guard result == 0 else { throw SpawnError(operation: "posix_spawnattr", errno: Errno(rawValue: result)) }

  var pid: pid_t = 0
  result = withExtendedLifetime(actionsOwner) {
    ExecveArguments.with(command: command, environment: environment) { shell, argv, envp in
      posix_spawn(&pid, shell, actions, &attributes, argv, envp)
    }
  }
  guard result == 0 else {
    throw SpawnError(operation: "posix_spawn \(actionShell)", errno: Errno(rawValue: result))
  }
  return SpawnedProcess(pid: pid)
}

/// posix_spawn's file actions for one `ActionOutput` (stdin from /dev/null, stdout and
/// stderr redirected, every descriptor from 3 closed), built once and used again while the
/// output stays the same. Building costs system calls: glibc checks each descriptor an
/// action names against RLIMIT_NOFILE (six prlimit64 here), and the runner's next pipe
/// usually gets the same numbers as the one before it. Not thread-safe: one caller (the
/// runner's queue).
public final class SpawnFileActions {
  private let actions = UnsafeMutablePointer<posix_spawn_file_actions_t>.allocate(capacity: 1)
  /// What `actions` holds now; nil when it holds nothing (not initialized).
  private var built: ActionOutput?

  public init() {}

  deinit {
    if built != nil { posix_spawn_file_actions_destroy(actions) }
    actions.deallocate()
  }

  /// The file actions for `output`, rebuilt only when it differs from the last call's.
  func prepared(for output: ActionOutput) throws(SpawnError) -> UnsafeMutablePointer<posix_spawn_file_actions_t> {
    if let built {
      if built == output { return actions }
      posix_spawn_file_actions_destroy(actions)
      self.built = nil
    }
    var result = posix_spawn_file_actions_init(actions)
    guard result == 0 else {
      throw SpawnError(operation: "posix_spawn_file_actions_init", errno: Errno(rawValue: result))
    }
    func fail(_ operation: String) -> SpawnError {
      posix_spawn_file_actions_destroy(actions)
      return SpawnError(operation: operation, errno: Errno(rawValue: result))
    }
    result = posix_spawn_file_actions_addopen(actions, 0, "/dev/null", O_RDONLY, 0)
    guard result == 0 else { throw fail("open /dev/null for stdin") }
    switch output {
    case .inherit:
      break
    case .standardError:
      result = posix_spawn_file_actions_adddup2(actions, 2, 1)
    case .descriptors(let standardOutput, let standardError):
      result = posix_spawn_file_actions_adddup2(actions, standardOutput, 1)
      if result == 0 { result = posix_spawn_file_actions_adddup2(actions, standardError, 2) }
    }
    guard result == 0 else { throw fail("redirect stdout and stderr") }
    result = gestured_spawn_file_actions_close_from(actions, 3)
    guard result == 0 else { throw fail("close inherited descriptors") }
    built = output
    return actions
  }
}

/// The `user:` path: posix_spawn cannot change credentials, so the C shim vforks.
private func spawnShell(
  _ command: String, environment: ActionEnvironment, output: ActionOutput, as user: UserIdentity
) throws(SpawnError) -> SpawnedProcess {
  let euid = geteuid()
  guard euid == 0 else {
    throw SpawnError(
      operation:
        "run as user \(user.name): only root can switch users (gestured runs as uid \(euid))",
      errno: .notPermitted)
  }
  var environment = environment
  environment.set("HOME", user.home)
  environment.set("USER", user.name)
  environment.set("LOGNAME", user.name)

  let (standardOutput, standardError): (Int32, Int32) =
    switch output {
    case .inherit: (-1, -1)
    case .standardError: (2, -1)
    case .descriptors(let out, let err): (out, err)
    }
  let result = ExecveArguments.with(command: command, environment: environment) { shell, argv, envp in
    user.groups.withUnsafeBufferPointer { groups in
      gestured_spawn_as_user(
        shell, argv, envp, standardOutput, standardError, user.uid, user.gid,
        groups.baseAddress, groups.count)
    }
  }
  if let failedStep = result.step {
    if result.pid > 0 {
      // The child failed before exec and has exited: this wait returns at once.
      var status: Int32 = 0
      _ = retryOnInterrupt { valueOrErrno(waitpid(result.pid, &status, 0)) }
    }
    let step = String(cString: failedStep)
    throw SpawnError(
      operation: "start \(actionShell) as user \(user.name): \(step)", errno: Errno(rawValue: result.error))
  }
  return SpawnedProcess(pid: result.pid)
}

/// `/bin/sh -c command`'s path, argv and envp, NULL-terminated, in one allocation for the
/// strings and one for the pointers, for the length of one call: the environment's shared
/// entries are copied as they are, already laid out (no string is built or sorted here).
enum ExecveArguments {
  static func with<R>(
    command: String, environment: ActionEnvironment,
    _ body: (
      _ shell: UnsafePointer<CChar>, _ argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
      _ envp: UnsafePointer<UnsafeMutablePointer<CChar>?>
    ) -> R
  ) -> R {
    let shellBytes = actionShell.utf8.count + 1
    let commandBytes = command.utf8.count + 1
    let (entries, entryBytes) = environment.execveCapacity
    let byteCount = shellBytes + 3 + commandBytes + entryBytes
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCount)
    defer { bytes.deallocate() }
    // argv: shell, "-c", command, NULL; then envp: the entries, NULL.
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: 4 + entries + 1)
    defer { pointers.deallocate() }
    var end = bytes
    func argument(_ index: Int, _ text: String) {
      pointers[index] = UnsafeMutableRawPointer(end).assumingMemoryBound(to: CChar.self)
      end = ActionEnvironment.write(text, to: end)
      end.pointee = 0
      end += 1
    }
    argument(0, actionShell)
    argument(1, "-c")
    argument(2, command)
    pointers[3] = nil
    let envp = pointers + 4
    envp[environment.writeEntries(to: end, pointers: envp)] = nil
    // The shell's path is argv[0]'s string: `actionShell` itself would be made a C string again.
    return body(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self), pointers, envp)
  }
}
