import CGesturedShim
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

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

/// The shell every action runs in.
public let actionShell = "/bin/sh"

/// Starts `/bin/sh -c command` with exactly `environment`, as `user` when given.
///
/// The child gets stdin from /dev/null, its own session and process group (so no controlling
/// terminal: a command cannot type into the terminal gestured was started from), an empty
/// signal mask and default dispositions for every signal (the daemon blocks and ignores
/// signals the action must not inherit), and no file descriptor of ours beyond 0, 1 and 2.
/// It does not wait for the child.
///
/// The C shim's vfork child does all this (`gestured_spawn`); with `user`, which needs root,
/// it also takes the user's uid, gid and supplementary groups, umask 022, and starts in the
/// user's home directory (`/` when there is none or it cannot be entered); HOME, USER and
/// LOGNAME are then the user's, whatever `environment` says. Every child gets the open-file
/// limit gestured started with (`OpenFileLimit.forChildren`), not the one it raised.
public func spawnShell(
  _ command: String, environment: ActionEnvironment, output: ActionOutput = .inherit,
  user: UserIdentity? = nil
) throws(SystemError) -> ChildProcess {
  guard !ActionEnvironment.holdsNUL(command) else {
    throw SystemError(operation: "spawn \(actionShell): the command holds a NUL byte", errno: .invalidArgument)
  }
  var environment = environment
  if let user {
    let euid = geteuid()
    guard euid == 0 else {
      throw SystemError(
        operation:
          "run as user \(user.name): only root can switch users (gestured runs as uid \(euid))",
        errno: .notPermitted)
    }
    environment.set("HOME", user.home)
    environment.set("USER", user.name)
    environment.set("LOGNAME", user.name)
  }

  let (standardOutput, standardError): (Int32, Int32) =
    switch output {
    case .inherit: (-1, -1)
    case .standardError: (2, -1)
    case .descriptors(let out, let err): (out, err)
    }
  // The open-file limit gestured started with, should it have raised its own since.
  let limits = OpenFileLimit.forChildren.map {
    [gestured_resource_limit(resource: OpenFileLimit.resource, soft: $0.soft, hard: $0.hard)]
  }
  let result = ExecveArguments.with(command: command, environment: environment) { shell, argv, envp in
    (limits ?? []).withUnsafeBufferPointer { limitBuffer -> Result<ChildProcess, SystemError> in
      let limitCount = limits == nil ? 0 : limitBuffer.count
      func spawn(
        _ credentials: UnsafePointer<gestured_credentials>?, _ setup: UnsafePointer<gestured_child_setup>?
      ) -> Result<ChildProcess, SystemError> {
        ChildProcess.spawn(
          path: shell, argv: argv, envp: envp, standardOutput: standardOutput, standardError: standardError,
          credentials: credentials, setup: setup)
      }
      guard let user else {
        guard limitCount > 0 else { return spawn(nil, nil) }
        var setup = gestured_child_setup(
          directory: nil, file_mode_mask: -1, limits: limitBuffer.baseAddress, limit_count: limitCount,
          inherited: nil, inherited_count: 0, no_new_privileges: 0, private_read_only_file_system: 0,
          stays_on_the_daemon_cpu: 0)
        return spawn(nil, &setup)
      }
      return user.groups.withUnsafeBufferPointer { groups in
        user.startingDirectory.withCString { directory in
          var credentials = gestured_credentials(
            uid: user.uid, gid: user.gid, groups: groups.baseAddress, group_count: groups.count)
          var setup = gestured_child_setup(
            directory: directory, file_mode_mask: Int32(UserIdentity.fileModeMask),
            limits: limitBuffer.baseAddress, limit_count: limitCount, inherited: nil, inherited_count: 0,
            no_new_privileges: 0, private_read_only_file_system: 0, stays_on_the_daemon_cpu: 0)
          return spawn(&credentials, &setup)
        }
      }
    }
  }
  switch result {
  case .success(let process):
    return process
  case .failure(let error):
    let who = user.map { " as user \($0.name)" } ?? ""
    throw SystemError(operation: "start \(actionShell)\(who): \(error.operation)", errno: error.errno)
  }
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
