import CGesturedShim

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

/// A started child: its pid, which is also its process group (the spawn makes it lead one,
/// so signalling `-pid` reaches everything it started).
public struct ChildProcess: Hashable, Sendable {
  public let pid: pid_t

  public init(pid: pid_t) { self.pid = pid }

  /// Starts `path` with `argv` and exactly `envp` in the shim's vfork child, which leads
  /// its own session, has default signal dispositions and an empty mask, stdin from
  /// /dev/null and no descriptor above 2 (`gestured_spawn` says it all); `credentials` and
  /// `setup` as it takes them. A failure names the step that failed (e.g. "execve"), its
  /// child already reaped.
  public static func spawn(
    path: UnsafePointer<CChar>, argv: UnsafePointer<UnsafeMutablePointer<CChar>?>,
    envp: UnsafePointer<UnsafeMutablePointer<CChar>?>, standardOutput: Int32, standardError: Int32,
    credentials: UnsafePointer<gestured_credentials>?, setup: UnsafePointer<gestured_child_setup>?
  ) -> Result<ChildProcess, SystemError> {
    let result = gestured_spawn(path, argv, envp, standardOutput, standardError, credentials, setup)
    guard let failedStep = result.step else { return .success(ChildProcess(pid: result.pid)) }
    if result.pid > 0 {
      // The child failed before exec and has exited: this wait returns at once.
      _ = try? ChildProcess(pid: result.pid).waitForExit()
    }
    let error = valueOrErrno(negated: result.error)
    return .failure(
      SystemError(operation: String(cString: failedStep), errno: error.failure ?? .ioError))
  }

  /// Sends `signal` to the child's process group; a group already gone is no error.
  public func signalGroup(_ signal: Int32) {
    _ = kill(-pid, signal)
  }

  /// Collects the child's status if it has exited; nil while it runs. ECHILD: something
  /// else collected it.
  public func reap() -> Result<ProcessStatus?, Errno> {
    var status: Int32 = 0
    switch retryOnInterrupt({ valueOrErrno(waitpid(pid, &status, WNOHANG)) }) {
    case .success(0): return .success(nil)
    case .success(let reaped): return .success(reaped == pid ? ProcessStatus(waitStatus: status) : nil)
    case .failure(let error): return .failure(error)
    }
  }

  /// Blocks until the process ends and reaps it. Call once.
  public func waitForExit() throws(SystemError) -> ProcessStatus {
    var status: Int32 = 0
    if case .failure(let error) = retryOnInterrupt({ valueOrErrno(waitpid(pid, &status, 0)) }) {
      throw SystemError(operation: "waitpid \(pid)", errno: error)
    }
    return ProcessStatus(waitStatus: status)
  }

  /// A pidfd (close-on-exec), readable once the child has exited. ENOSYS before Linux 5.3
  /// or under a seccomp filter that lacks it.
  public func openPidfd() throws(SystemError) -> Int32 {
    switch valueOrErrno(negated: gestured_pidfd_open(pid)) {
    case .success(let descriptor): return descriptor
    case .failure(let error): throw SystemError(operation: "pidfd_open \(pid)", errno: error)
    }
  }
}

/// The binary this process runs, to start another process of it.
public enum RunningExecutable {
  /// What /proc/self/exe points to (e.g. /usr/bin/gestured), so that a child started from it
  /// shows as `gestured` in ps, top and the journal rather than as `exe`. /proc/self/exe
  /// itself when the file was replaced or removed since (an upgrade: that link still
  /// reaches the binary this process runs, and the file now at the path may be another),
  /// or when the mode bits of the path do not let `credentials` (the child's) reach and
  /// execute it (a build under a private home directory): the link needs no search
  /// permission on the directories.
  public static func path(executableBy credentials: ChildCredentials) throws(SystemError) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let read = valueOrErrno(readlink(selfLink, &buffer, buffer.count))
    guard case .success(let count) = read, count > 0, count < buffer.count else {
      if case .failure(let error) = read { throw SystemError(operation: "readlink \(selfLink)", errno: error) }
      throw SystemError(operation: "readlink \(selfLink)", errno: .nameTooLong)
    }
    let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return path(linkTarget: target, executableBy: credentials, status: fileStatus)
  }

  /// stat(2)'s mode, owner and group of `path` (links followed), nil when it fails.
  static func fileStatus(_ path: String) -> Status? {
    var status = stat()
    return stat(path, &status) == 0 ? (status.st_mode, status.st_uid, status.st_gid) : nil
  }

  static let selfLink = "/proc/self/exe"

  /// A file's mode, owner and group.
  typealias Status = (mode: mode_t, owner: uid_t, group: gid_t)

  /// The path to exec for the link's `target`, as `path(executableBy:)` decides, with
  /// `status` for each directory on the way and the file.
  static func path(linkTarget target: String, executableBy credentials: ChildCredentials, status: (String) -> Status?)
    -> String
  {
    guard target.hasPrefix("/"), !target.hasSuffix(" (deleted)") else { return selfLink }
    var prefix = ""
    for component in target.split(separator: "/", omittingEmptySubsequences: true) {
      prefix += "/" + component
      guard let found = status(prefix), permitsExecution(found, to: credentials) else { return selfLink }
    }
    return target
  }

  /// Whether the owner, group or other execute bit that applies to `credentials` is set.
  static func permitsExecution(_ status: Status, to credentials: ChildCredentials) -> Bool {
    if credentials.uid == status.owner { return status.mode & S_IXUSR != 0 }
    if credentials.gid == status.group || credentials.groups.contains(status.group) {
      return status.mode & S_IXGRP != 0
    }
    return status.mode & S_IXOTH != 0
  }
}

extension Result {
  /// The error of a failure; nil for a success.
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { return error }
    return nil
  }
}

/// A new pipe for children's output: both ends close-on-exec and above 2 (a daemon started
/// with a closed stdin must not hand the child its own pipe as stdin), the read end
/// non-blocking (the write end, a file of its own, stays blocking for the children).
public struct PipeEnds {
  public let read: Int32
  public let write: Int32

  public init() throws(SystemError) {
    var ends: [Int32] = [-1, -1]
    let result = ends.withUnsafeMutableBufferPointer { gestured_pipe_cloexec($0.baseAddress) }
    if case .failure(let error) = valueOrErrno(negated: result) {
      throw SystemError(operation: "pipe", errno: error)
    }
    do {
      read = try Self.aboveStandardStreams(ends[0])
    } catch {
      close(ends[1])
      throw error
    }
    do {
      write = try Self.aboveStandardStreams(ends[1])
    } catch {
      close(read)
      throw error
    }
    // A new pipe's read end has no other status flag to keep (no F_GETFL first).
    if case .failure(let error) = valueOrErrno(fcntl(read, F_SETFL, O_NONBLOCK)) {
      closeBoth()
      throw SystemError(operation: "make the output pipe non-blocking", errno: error)
    }
  }

  public func closeBoth() {
    close(read)
    close(write)
  }

  /// `descriptor` itself, or (closing it) a close-on-exec duplicate numbered 3 or higher.
  private static func aboveStandardStreams(_ descriptor: Int32) throws(SystemError) -> Int32 {
    guard descriptor < 3 else { return descriptor }
    let duplicate = valueOrErrno(fcntl(descriptor, F_DUPFD_CLOEXEC, 3))
    close(descriptor)
    switch duplicate {
    case .success(let moved): return moved
    case .failure(let error): throw SystemError(operation: "move a pipe above fd 2", errno: error)
    }
  }
}

/// Who a confined child runs as: exactly these ids and supplementary groups.
public struct ChildCredentials: Hashable, Sendable {
  public var uid: uid_t
  public var gid: gid_t
  public var groups: [gid_t]

  public init(uid: uid_t, gid: gid_t, groups: [gid_t]) {
    self.uid = uid
    self.gid = gid
    self.groups = groups
  }
}

extension ChildProcess {
  /// Starts `path` with `arguments` (argv[0] included) and exactly `environment`
  /// (`NAME=value`), as `spawn` above, keeping `inherited` as descriptors 3, 4, … in that
  /// order, under `credentials` (nil: the caller's user), with PR_SET_NO_NEW_PRIVS when
  /// `noNewPrivileges`, and in a private read-only view of the file system when
  /// `readOnlyFileSystem` (as root only: gestured_child_setup says what it hides), and on
  /// the daemon's CPU once it keeps to one (`ProcessorAffinity.keepToOneCPU`). For the
  /// daemon's own helper process, not the actions' hot path.
  public static func spawn(
    path: String, arguments: [String], environment: [String], inherited: [Int32],
    credentials: ChildCredentials?, noNewPrivileges: Bool, readOnlyFileSystem: Bool = false
  ) -> Result<ChildProcess, SystemError> {
    func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] { strings.map { strdup($0) } + [nil] }
    let argv = cStrings(arguments)
    let envp = cStrings(environment)
    defer {
      for pointer in argv + envp { free(pointer) }
    }
    return inherited.withUnsafeBufferPointer { inheritedBuffer in
      var setup = gestured_child_setup(
        directory: nil, file_mode_mask: -1, limits: nil, limit_count: 0, inherited: inheritedBuffer.baseAddress,
        inherited_count: inheritedBuffer.count, no_new_privileges: noNewPrivileges ? 1 : 0,
        private_read_only_file_system: readOnlyFileSystem ? 1 : 0, stays_on_the_daemon_cpu: 1)
      guard let credentials else {
        return spawn(
          path: path, argv: argv, envp: envp, standardOutput: -1, standardError: -1, credentials: nil, setup: &setup)
      }
      return credentials.groups.withUnsafeBufferPointer { groups in
        var taken = gestured_credentials(
          uid: credentials.uid, gid: credentials.gid, groups: groups.baseAddress, group_count: groups.count)
        return spawn(
          path: path, argv: argv, envp: envp, standardOutput: -1, standardError: -1, credentials: &taken,
          setup: &setup)
      }
    }
  }
}
