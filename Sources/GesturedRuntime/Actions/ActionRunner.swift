import Dispatch
import GestureCore
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's process manager: carries out what `ActionPolicy` decides (starting bindings'
/// commands, signalling and reaping them, logging what they print) and tells it what
/// happened (started, exited, output read, the timer fired).
///
/// Everything happens on `queue`, the daemon's one serial queue, and never blocks it: exits
/// arrive through a pidfd per child (no global SIGCHLD handling; without pidfd_open, a
/// polling timerfd), output through pipes read without blocking, and the policy's deadlines
/// (timeouts, output pauses) through one timerfd, all in the daemon's one epoll set. Each
/// start costs few system calls (BENCHMARKS.md counts them): no pipe of its own (its
/// binding's output pipes serve every run), no epoll_ctl to remove a pidfd (closing the only
/// descriptor of a file removes it from the set), and no timerfd of its own.
///
/// An action runs from its start until its shell exits. Processes the shell leaves behind
/// (`cmd &`) are no longer its running instance, but their output is still logged under the
/// binding's name: every run of a binding writes to the binding's output pipes, which the
/// runner keeps open (both ends, so they never reach end of file) for the
/// `maximumBindingOutputs` bindings run last.
public final class ActionRunner: @unchecked Sendable {
  // @unchecked: every property is touched only on `queue`.

  public typealias Request = ActionPolicy.Request

  public enum Decision: Equatable, Sendable {
    case started(pid: Int32)
    /// Waits its turn: behind its binding's (or stream's) running command, or for room under
    /// `maximumRunning`. It starts when that ends.
    case queued
    /// Merged into a run already waiting, which now stands for `steps` firings.
    case coalesced(steps: Int)
    /// A one-shot firing within `cooldown` of the binding's previous accepted firing.
    case droppedCooldown
    /// An input firing, handed to `writeInput`.
    case inputWritten
    case failed(String)
  }

  public static let outputLinesPerSecond = ActionPolicy.outputLinesPerSecond
  public static let outputBytesPerSecond = ActionPolicy.outputBytesPerSecond
  public static let defaultMaximumRunning = ActionPolicy.defaultMaximumRunning
  public static let killDelay = ActionPolicy.killDelay
  /// Bindings whose output pipes are kept open, beyond which those of the binding run least
  /// recently (and not running now) are closed: a process it left running that still writes
  /// there then gets EPIPE. Descriptors must not grow with the bindings a config ever had.
  public static let maximumBindingOutputs = 64

  private var policy: ActionPolicy
  public var maximumRunning: Int { policy.maximumRunning }
  private let queue: DispatchQueue
  private let logger: Logger
  /// Output pipes, pidfds and timers are watched here, not with a Dispatch source each (see
  /// EventMultiplexer for the libdispatch bug that avoids).
  private let multiplexer: EventMultiplexer
  /// The policy's runs whose shell has started, until reaped. This table and
  /// `bindingOutputs` are made with room at start, so that the first firing does not wait
  /// for the Swift runtime to set up their types (a scan of the executable's conformance
  /// records for each key type).
  private var children = [ActionPolicy.RunID: Child](minimumCapacity: 4)
  /// Why the last `.start` failed, for `run`'s decision.
  private var lastStartFailure: (run: ActionPolicy.RunID, reason: String)?
  /// Each binding's output pipes, kept between its runs.
  private var bindingOutputs = [ActionPolicy.OutputID: BindingOutput](minimumCapacity: 4)
  /// Counts starts, to tell which binding's output was used least recently.
  private var starts: UInt64 = 0
  /// One buffer for every read: everything runs on one queue.
  private let readBuffer: UnsafeMutableRawBufferPointer
  /// The one timer for every deadline of the policy, made when first armed.
  private var timer: DeadlineTimer?
  /// Stdout and stderr in separate pipes (logged at info and notice) only when the log shows
  /// levels (journal prefixes); without them the two would read the same, and one pipe
  /// costs fewer system calls per action and keeps their lines in order.
  private var separatesErrorOutput: Bool { logger.journalPrefixes }
  /// Where input firings go (key and wheel events the daemon writes itself); without it
  /// they are logged as errors.
  public var writeInput: ((Request) -> Void)?
  /// Tests only: watch for exits by polling waitpid, as when pidfd_open is not available.
  var pollsForExit = false
  /// Tests only: exits cannot be watched (neither pidfd nor timer), as when no descriptor is
  /// left.
  var failsToWatchExits: Errno?
  /// Tests only: a smaller `maximumBindingOutputs`.
  var maximumKeptOutputs = ActionRunner.maximumBindingOutputs
  /// Tests only: a smaller `ActionPolicy.maximumWaiting`.
  var maximumWaitingRuns: Int {
    get { policy.maximumWaitingRuns }
    set { policy.maximumWaitingRuns = newValue }
  }
  /// The config's `user:` names, looked up when it was loaded (the daemon sets them at each
  /// load): a start looks nothing up.
  public var users = ResolvedUsers()
  /// Tests only: who the daemon runs as, to check the refusal of `user:` without root.
  var effectiveUserID: () -> uid_t = { geteuid() }
  static let exitPollInterval: Microseconds = 50_000

  /// `multiplexer`: the daemon's event loop on `queue`, shared with its devices.
  public init(
    queue: DispatchQueue, logger: Logger, maximumRunning: Int = ActionRunner.defaultMaximumRunning,
    multiplexer: EventMultiplexer
  ) {
    self.queue = queue
    self.logger = logger
    self.multiplexer = multiplexer
    policy = ActionPolicy(maximumRunning: maximumRunning)
    policy.logsDebug = logger.verbose
    readBuffer = .allocate(byteCount: 16_384, alignment: 16)
  }

  deinit {
    // Unwatching must happen on the queue, and the runner may go from another thread (a
    // test's): what it watched goes there, and the descriptors with it.
    var watched: [EventMultiplexer.Token] = []
    var timers: [DeadlineTimer] = timer.map { [$0] } ?? []
    for child in children.values {
      if let (_, token) = child.pidfd { watched.append(token) }
      if let poll = child.exitPoll { timers.append(poll) }
    }
    for output in bindingOutputs.values {
      for pipe in output.pipes where !pipe.isClosed {
        close(pipe.writeDescriptor)
        if let token = pipe.token { watched.append(token) } else { close(pipe.descriptor) }
      }
    }
    for timer in timers {
      nonisolated(unsafe) let timer = timer
      queue.async { timer.cancel() }
    }
    if !watched.isEmpty {
      nonisolated(unsafe) let multiplexer = multiplexer
      let watched = watched
      queue.async {
        for token in watched { multiplexer.unwatch(token, closingItsOnlyDescriptor: true) }
      }
    }
    readBuffer.deallocate()
  }

  /// Actions started and not yet reaped. Call on `queue`.
  public var runningCount: Int { policy.runningCount }
  /// Runs waiting to start. Call on `queue`.
  public var waitingCount: Int { policy.waitingCount }

  /// Hands a firing to the policy (`ActionPolicy.fire`) and carries out what it decides:
  /// the command starts, waits, merges into a waiting run, or is dropped within its
  /// cooldown; every decision is logged. Call on `queue`.
  @discardableResult
  public func run(_ request: Request) -> Decision {
    dispatchPrecondition(condition: .onQueue(queue))
    // Only a command's queue and start need the time: an input action's cooldown counts in
    // event time, so writing it reads no clock.
    let now: Timestamp
    if case .input = request.kind {
      now = request.firedAt
    } else {
      now = Self.now()
    }
    let (disposition, actions) = policy.fire(request, at: now)
    lastStartFailure = nil
    perform(actions, at: now)
    switch disposition {
    case .starting(let run):
      if let pid = policy.pid(of: run) { return .started(pid: pid) }
      if let failure = lastStartFailure, failure.run == run { return .failed(failure.reason) }
      return .failed("not started")
    case .queued: return .queued
    case .coalesced(let steps): return .coalesced(steps: steps)
    case .droppedCooldown: return .droppedCooldown
    case .writingInput: return .inputWritten
    }
  }

  /// SIGTERM: runs still waiting will not start; logs how many were dropped. Running ones
  /// are left alone. Call on `queue`.
  @discardableResult
  public func dropWaitingRuns() -> Int {
    dispatchPrecondition(condition: .onQueue(queue))
    let (dropped, actions) = policy.dropWaitingRuns()
    perform(actions)
    return dropped
  }

  /// Tests only: waits until no action runs or waits (their output, read at each exit, is
  /// logged by then); false if that did not happen within `timeout`. Never call on `queue`.
  @discardableResult
  public func waitUntilIdle(timeout: Microseconds) -> Bool {
    dispatchPrecondition(condition: .notOnQueue(queue))
    let deadline = Self.now() + timeout
    while true {
      let idle = queue.sync { policy.isIdle }
      if idle { return true }
      if Self.now() >= deadline { return false }
      usleep(5_000)
    }
  }

  /// A firing named a binding its profile does not have.
  func logUnknownBinding(devnode: String) {
    logger.error("\(devnode): a gesture named a binding the profile does not have (a bug)")
  }

  // MARK: - Carrying out the policy's actions

  /// `now`: the wake-up's time, when it was read already.
  private func perform(_ actions: [ActionPolicy.Action], at now: Timestamp? = nil) {
    for action in actions { perform(action, at: now) }
  }

  private func perform(_ action: ActionPolicy.Action, at now: Timestamp? = nil) {
    switch action {
    case .start(let run, let request, let label):
      switch spawn(request, label: label) {
      case .success(let child):
        children[run] = child
        child.run = run
        // The firing's time serves as the start's, unless the spawn's latency is logged.
        let startedAt = policy.logsDebug ? Self.now() : (now ?? Self.now())
        perform(policy.started(run, pid: child.process.pid, at: startedAt), at: now)
      case .failure(let failure):
        lastStartFailure = (run, failure.message)
        perform(policy.startFailed(run, reason: failure.message, at: now ?? Self.now()), at: now)
      }
    case .signalGroup(let processGroup, let signal):
      ChildProcess(pid: processGroup).signalGroup(signal)
    case .reap(let run):
      reap(run, at: now)
    case .stopWatchingExit(let run):
      if let child = children[run] { stopWatchingExit(of: child) }
    case .log(let level, let message):
      logger.log(level, message)
    case .pauseReading(let id):
      // Without a timer to resume them, the pipes stay read (lines past the limit are still
      // not logged).
      guard timer != nil || makeTimer(), let output = bindingOutputs[id] else { return }
      for pipe in output.pipes {
        guard let token = pipe.token else { continue }
        multiplexer.unwatch(token)
        pipe.token = nil
      }
    case .resumeReading(let id):
      guard let output = bindingOutputs[id] else { return }
      for pipe in output.pipes where !pipe.isClosed && pipe.token == nil {
        do {
          try watch(pipe)
        } catch {
          logger.warning("[\(pipe.label)] cannot watch its output again: \(error)")
          closePipe(pipe)
        }
      }
    case .armTimer(let time):
      guard timer != nil || time == nil || makeTimer() else { return }
      timer?.schedule(at: time)
    case .writeInput(let request):
      guard let writeInput else {
        logger.error("[\(Self.oneLine(request.label, limit: 256))] cannot write input: no input device")
        return
      }
      writeInput(request)
    }
  }

  private func makeTimer() -> Bool {
    do {
      timer = try DeadlineTimer(multiplexer: multiplexer) { [weak self] in
        guard let self else { return }
        let now = Self.now()
        self.perform(self.policy.deadlineReached(at: now), at: now)
      }
      return true
    } catch {
      logger.error("cannot arm the actions' timer: timeouts are not enforced and output is not paused: \(error)")
      return false
    }
  }

  // MARK: - Starting

  private struct StartFailure: Error {
    var message: String
  }

  private func spawn(_ request: Request, label: String) -> Result<Child, StartFailure> {
    var identity: UserIdentity? = nil
    if let user = request.user {
      let euid = effectiveUserID()
      guard euid == 0 else {
        return .failure(
          StartFailure(
            message: "user: \(Self.oneLine(user, limit: 256)) needs gestured to run as root "
              + "(it runs as uid \(euid))"))
      }
      switch users[user] {
      case .success(let resolved): identity = resolved
      case .failure(let error): return .failure(StartFailure(message: error.description))
      case nil:
        return .failure(
          StartFailure(
            message: "user: \(Self.oneLine(user, limit: 256)) was not looked up when the config was loaded"))
      }
    }

    let output: BindingOutput
    let process: ChildProcess
    do {
      output = try bindingOutput(ActionPolicy.OutputID(key: request.key, label: label))
      process = try spawnShell(
        request.command, environment: request.environment,
        output: .descriptors(standardOutput: output.standardOutput, standardError: output.standardError),
        user: identity)
    } catch {
      return .failure(StartFailure(message: error.description))
    }

    let child = Child(process: process, output: output)
    do {
      try watchExit(of: child)
    } catch {
      // An action whose end would never be seen would hold its slot for ever: it never
      // takes one. SIGKILL ends a shell that has just started, so the wait is short.
      process.signalGroup(SIGKILL)
      _ = try? process.waitForExit()
      return .failure(
        StartFailure(
          message: "cannot watch for its exit (\(error)): pid \(process.pid) and its process group killed"))
    }
    output.running += 1
    return .success(child)
  }

  // MARK: - Exit

  /// Watches for the child's exit: its pidfd, or without pidfd_open a polling timer.
  /// Throws when neither could be made (no descriptor left).
  private func watchExit(of child: Child) throws(SystemError) {
    if let error = failsToWatchExits { throw SystemError(operation: "timerfd_create", errno: error) }
    let pidfd: Int32? = pollsForExit ? nil : try? child.process.openPidfd()
    if let pidfd,
      let token = try? multiplexer.watch(
        pidfd,
        handler: { [weak self, weak child] in
          guard let self, let child, let run = child.run else { return }
          let now = Self.now()
          self.perform(self.policy.exited(run, at: now), at: now)
        })
    {
      child.pidfd = (pidfd, token)
      return
    }
    if let pidfd { close(pidfd) }
    // Kernels before 5.3 (or a seccomp filter) lack pidfd_open: poll while it runs, on a
    // timerfd in the same event loop.
    let timer = try DeadlineTimer(multiplexer: multiplexer) { [weak self, weak child] in
      guard let self, let child else { return }
      self.processMayHaveExited(child)
    }
    timer.schedule(at: Self.now() + Self.exitPollInterval)
    child.exitPoll = timer
  }

  /// The polling fallback: reap it if it has exited (not while it is being terminated: see
  /// `ActionPolicy.exited`), else look again later.
  private func processMayHaveExited(_ child: Child) {
    guard let run = child.run, children[run] === child else { return }
    if policy.mayReap(run) { reap(run) }
    if children[run] === child { child.exitPoll?.schedule(at: Self.now() + Self.exitPollInterval) }
  }

  /// Stops watching for the exit (pidfd or polling timer). Idempotent.
  private func stopWatchingExit(of child: Child) {
    if let (_, token) = child.pidfd {
      multiplexer.unwatch(token, closingItsOnlyDescriptor: true)
      child.pidfd = nil
    }
    child.exitPoll?.cancel()
    child.exitPoll = nil
  }

  /// Collects the shell's exit if it has exited (a polled one may not have yet); its output
  /// is logged before the policy hears of it.
  private func reap(_ run: ActionPolicy.RunID, at now: Timestamp? = nil) {
    guard let child = children[run] else { return }
    let status: ProcessStatus?
    switch child.process.reap() {
    case .success(nil): return  // still running (polling)
    case .success(let exited): status = exited
    case .failure: status = nil  // ECHILD: something else reaped it
    }
    children[run] = nil
    stopWatchingExit(of: child)
    // Output the shell wrote before it exited is in the pipes now: log it before the exit,
    // and its last line even without a newline, unless another run of the binding still
    // writes there. A pipe not ready in the wake-up that saw the exit holds nothing (no
    // read that would only say EAGAIN).
    let output = child.output
    output.running -= 1
    for pipe in output.pipes {
      if let token = pipe.token, multiplexer.mayBeReady(token) { drain(pipe, reads: 16) }
      if output.running == 0 { pipe.splitter.finish { log(line: $0, cut: $1, of: pipe) } }
    }
    perform(policy.reaped(run, status: status, at: now ?? Self.now()))
  }

  // MARK: - Output

  /// The binding's output pipes, made at its first run (and again after they were closed);
  /// the least recently used binding's are closed beyond `maximumBindingOutputs`.
  private func bindingOutput(_ id: ActionPolicy.OutputID) throws(SystemError) -> BindingOutput {
    starts &+= 1
    if let output = bindingOutputs[id] {
      guard output.pipes.contains(where: \.isClosed) else {
        output.lastStart = starts
        return output
      }
      // A read error closed one (drain logged it): new pipes for this run on.
      forget(output)
    }
    let standardOutput = try watchedPipe(id, level: .info)
    var pipes = [standardOutput]
    if separatesErrorOutput {
      do {
        pipes.append(try watchedPipe(id, level: .notice))
      } catch {
        closePipe(standardOutput)
        throw error
      }
    }
    let output = BindingOutput(id: id, pipes: pipes, lastStart: starts)
    if bindingOutputs.count >= maximumKeptOutputs,
      let oldest = bindingOutputs.values.filter({ $0.running == 0 }).min(by: { $0.lastStart < $1.lastStart })
    {
      forget(oldest)
      logger.info(
        "[\(oldest.id.label)] output pipes closed: the binding run least recently of more than "
          + "\(maximumKeptOutputs) (a process it left running can no longer write there)")
    }
    bindingOutputs[id] = output
    return output
  }

  /// Closes the binding's pipes; the policy forgets their second.
  private func forget(_ output: BindingOutput) {
    bindingOutputs[output.id] = nil
    for pipe in output.pipes { closePipe(pipe) }
    perform(policy.outputClosed(output.id))
  }

  /// A pipe for the output of a binding's runs, its read end watched.
  private func watchedPipe(_ id: ActionPolicy.OutputID, level: LogLevel) throws(SystemError) -> OutputPipe {
    let ends = try PipeEnds()
    let pipe = OutputPipe(descriptor: ends.read, writeDescriptor: ends.write, output: id, level: level)
    do {
      try watch(pipe)
    } catch {
      ends.closeBoth()
      throw SystemError(operation: "watch the output pipe: \(error.operation)", errno: error.errno)
    }
    return pipe
  }

  private func watch(_ pipe: OutputPipe) throws(SystemError) {
    pipe.token = try multiplexer.watch(pipe.descriptor) { [weak self, weak pipe] in
      guard let self, let pipe else { return }
      self.drain(pipe, reads: 4)
    }
  }

  /// Reads what `pipe` has, at most `reads` times, stopping when it would block or the
  /// policy pauses its binding; at end of file (or an error that will not go away) flushes
  /// the last line and closes the pipe.
  private func drain(_ pipe: OutputPipe, reads: Int) {
    guard !pipe.isClosed, let buffer = readBuffer.baseAddress else { return }
    for _ in 0..<reads {
      // Paused, unless no timer could be made to resume it (then its pipes stay read).
      guard timer == nil || !policy.isPaused(pipe.output) else { return }
      switch retryOnInterrupt({ valueOrErrno(read(pipe.descriptor, buffer, readBuffer.count)) }) {
      case .success(let count) where count > 0:
        let now = Self.now()
        perform(policy.outputRead(pipe.output, bytes: count, at: now))
        pipe.splitter.append(UnsafeRawBufferPointer(start: buffer, count: count)) {
          log(line: $0, cut: $1, of: pipe)
        }
        let paused = policy.outputReadEnded(pipe.output, at: now)
        guard paused.isEmpty else {
          perform(paused)
          return
        }
        continue
      case .success:
        break  // end of file
      case .failure(.wouldBlock):
        return
      case .failure(let error):
        logger.warning("[\(pipe.label)] reading its output: \(error)")
      }
      closePipe(pipe)
      return
    }
  }

  private func log(line: String, cut: Bool, of pipe: OutputPipe) {
    if let action = policy.outputLine(pipe.output, line, cut: cut, level: pipe.level) { perform(action) }
  }

  private func closePipe(_ pipe: OutputPipe) {
    guard !pipe.isClosed else { return }
    pipe.splitter.finish { log(line: $0, cut: $1, of: pipe) }
    pipe.isClosed = true
    if pipe.writeDescriptor >= 0 {
      close(pipe.writeDescriptor)
      pipe.writeDescriptor = -1
    }
    // Not watched while its binding's output is paused: the read end is ours to close.
    guard let token = pipe.token else {
      close(pipe.descriptor)
      return
    }
    // Ours is the read end's only descriptor (close-on-exec, not passed to the child).
    multiplexer.unwatch(token, closingItsOnlyDescriptor: true)
    pipe.token = nil
  }

  // MARK: - Formatting

  static func now() -> Timestamp { MonotonicClock.now() }
  static func duration(_ microseconds: Microseconds) -> String { ActionPolicy.duration(microseconds) }
  static func describe(_ status: ProcessStatus) -> String { ActionPolicy.describe(status) }
  static func oneLine(_ text: String, limit: Int) -> String { ActionPolicy.oneLine(text, limit: limit) }
}

/// A run's started shell, from spawn until reaped.
private final class Child {
  let process: ChildProcess
  /// Its binding's output pipes, which it writes to.
  let output: BindingOutput
  /// Its run in the policy.
  var run: ActionPolicy.RunID?
  /// The pidfd watched for the exit, or, without pidfd_open, the polling timer.
  var pidfd: (descriptor: Int32, token: EventMultiplexer.Token)?
  var exitPoll: DeadlineTimer?

  init(process: ChildProcess, output: BindingOutput) {
    self.process = process
    self.output = output
  }
}

/// A binding's output: the pipes every run of it gets as stdout and stderr (one pipe for
/// both when the log shows no levels), kept from its first run on. Ours are both ends, so
/// the pipes never reach end of file: a run costs no pipe of its own and no wake-up for one,
/// and what a process it left running writes is logged under the binding's name too.
private final class BindingOutput {
  let id: ActionPolicy.OutputID
  /// Stdout's pipe, then stderr's when the two are apart.
  let pipes: [OutputPipe]
  /// Runs of the binding running now.
  var running = 0
  /// ActionRunner's count of starts at its last run.
  var lastStart: UInt64

  init(id: ActionPolicy.OutputID, pipes: [OutputPipe], lastStart: UInt64) {
    self.id = id
    self.pipes = pipes
    self.lastStart = lastStart
  }

  var standardOutput: Int32 { pipes[0].writeDescriptor }
  var standardError: Int32 { pipes[pipes.count - 1].writeDescriptor }
}

/// One of a binding's output pipes: the read end watched, and the write end, which only its
/// runs write to (close-on-exec: each child gets its copy as stdout or stderr).
private final class OutputPipe {
  let descriptor: Int32
  var writeDescriptor: Int32
  /// Its binding's, whose second of output it shares with its other pipe.
  let output: ActionPolicy.OutputID
  let level: LogLevel
  var splitter = OutputLineSplitter()
  /// Set while the multiplexer watches the descriptor (not while its output is paused).
  var token: EventMultiplexer.Token?
  var isClosed = false

  init(descriptor: Int32, writeDescriptor: Int32, output: ActionPolicy.OutputID, level: LogLevel) {
    self.descriptor = descriptor
    self.writeDescriptor = writeDescriptor
    self.output = output
    self.level = level
  }

  var label: String { output.label }
}
