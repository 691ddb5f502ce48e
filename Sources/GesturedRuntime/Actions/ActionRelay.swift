import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `replay --run-actions`: one command run to its end, its stdout and stderr a pipe whose
/// lines replay writes to its own stderr, each after `label`. The command never gets the
/// caller's terminal or any of its descriptors (stdin is /dev/null, as for every action), so
/// a `user:` command cannot read what is typed there or write into it.
enum ActionRelay {
  /// Reads per wake-up before looking at the process again: a command that floods its
  /// pipe must not keep replay from noticing that it has exited.
  static let readsPerWakeUp = 16
  /// Without a pidfd, how often the shell's exit is polled while its pipe is quiet.
  static let exitPollMilliseconds: Int32 = 50

  /// Starts `/bin/sh -c command` and relays its lines until the shell exits; what processes
  /// it left running write later is not waited for (they get EPIPE). How the shell ended.
  static func run(
    _ command: String, environment: ActionEnvironment, user: UserIdentity?, label: String,
    errors: some OutputSink
  ) throws(SystemError) -> ProcessStatus {
    let pipe = try PipeEnds()
    let process: ChildProcess
    do {
      process = try spawnShell(
        command, environment: environment,
        output: .descriptors(standardOutput: pipe.write, standardError: pipe.write), user: user)
    } catch {
      pipe.closeBoth()
      throw error
    }
    // Only the child's copies stay: the pipe ends when the last of them closes.
    close(pipe.write)
    defer { close(pipe.read) }
    // Without one (before Linux 5.3), the exit is polled.
    let pidfd = (try? process.openPidfd()) ?? -1
    defer { if pidfd >= 0 { close(pidfd) } }

    var relay = Relay(descriptor: pipe.read, label: label)
    while true {
      var watched = [pollfd(fd: pipe.read, events: Int16(POLLIN), revents: 0)]
      if pidfd >= 0 { watched.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
      let timeout = pidfd >= 0 ? -1 : exitPollMilliseconds
      _ = retryOnInterrupt { valueOrErrno(poll(&watched, nfds_t(watched.count), timeout)) }
      let ended = relay.read(errors: errors)
      if let status = try reap(process, waiting: ended) {
        // What the shell wrote before it exited is in the pipe now.
        _ = relay.read(errors: errors)
        relay.finish(errors: errors)
        return status
      }
    }
  }

  /// The shell's status once it has exited; nil while it runs. With `waiting` (its pipe has
  /// ended, so it is about to exit), waits for it.
  private static func reap(_ process: ChildProcess, waiting: Bool) throws(SystemError) -> ProcessStatus? {
    if waiting { return try process.waitForExit() }
    switch process.reap() {
    case .success(let status): return status
    case .failure(let error): throw SystemError(operation: "waitpid \(process.pid)", errno: error)
    }
  }

  /// The read end (non-blocking) and its lines so far.
  private struct Relay {
    let descriptor: Int32
    let label: String
    var splitter = OutputLineSplitter()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    var ended = false

    init(descriptor: Int32, label: String) {
      self.descriptor = descriptor
      self.label = label
    }

    /// Relays what can be read now (at most `readsPerWakeUp` reads); true once the pipe has
    /// ended.
    mutating func read(errors: some OutputSink) -> Bool {
      for _ in 0..<ActionRelay.readsPerWakeUp where !ended {
        let count = retryOnInterrupt {
          valueOrErrno(buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) })
        }
        switch count {
        case .success(0): ended = true
        case .success(let count):
          let label = label
          buffer.withUnsafeBytes { bytes in
            splitter.append(UnsafeRawBufferPointer(rebasing: bytes[0..<count])) { line, cut in
              Self.write(line, cut: cut, label: label, errors: errors)
            }
          }
        case .failure(.wouldBlock): return false
        case .failure: ended = true
        }
      }
      return ended
    }

    mutating func finish(errors: some OutputSink) {
      let label = label
      splitter.finish { line, cut in Self.write(line, cut: cut, label: label, errors: errors) }
    }

    static func write(_ line: String, cut: Bool, label: String, errors: some OutputSink) {
      let marker = cut ? " [… cut at \(OutputLineSplitter.maximumLineBytes) bytes]" : ""
      errors.write("\(label): \(line.escapingControlCharacters())\(marker)\n")
    }
  }
}
