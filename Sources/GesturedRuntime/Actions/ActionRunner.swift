import CGesturedShim
import Dispatch
import GestureCore
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's process manager: starts bindings' commands, enforces their cooldown, timeout
/// and the limits on how many run, queues what cannot start yet, reaps them, and logs
/// everything they print.
///
/// Everything happens on `queue`, the daemon's one serial queue, and never blocks it: exits
/// arrive through a pidfd per child (no global SIGCHLD handling; without pidfd_open, a
/// polling timerfd), output through pipes read without blocking, timeouts through one timerfd
/// shared by every running action (armed for the earliest), all in the daemon's one epoll
/// set. Each start costs few system calls (BENCHMARKS.md counts them): no pipe of its own
/// (its binding's output pipes serve every run), no epoll_ctl to remove a pidfd (closing the
/// only descriptor of a file removes it from the set), and no timerfd of its own.
///
/// Nothing accepted is lost: a run that cannot start yet waits in its lane (one lane per
/// binding for one-shot firings, one per stream for steps and ends), and waiting runs of a
/// binding coalesce into one run whose `GESTURED_STEPS` counts them, which keeps the queue
/// bounded. See "The queue" in docs/cli.md.
///
/// An action runs from its start until its shell exits. Processes the shell leaves behind
/// (`cmd &`) are no longer its running instance, but their output is still logged under the
/// binding's name: every run of a binding writes to the binding's output pipes, which the
/// runner keeps open (both ends, so they never reach end of file) for the
/// `maximumBindingOutputs` bindings run last.
public final class ActionRunner: @unchecked Sendable {
  // @unchecked: every property is touched only on `queue`.

  public struct Request: Sendable {
    /// When a run may start, and what it may be merged with.
    public enum Schedule: Sendable, Equatable {
      /// A one-shot gesture: one run at a time per binding, one more waiting at most.
      case oneShot
      /// One step of a continuous gesture. `stream` names one device's touch sequence and
      /// gesture kind (e.g. "/dev/input/event3#17/pinch"): its runs go one at a time, in
      /// the order they fired.
      case step(stream: String)
      /// The run after a stream's last step: after every step run, never merged with them.
      case end(stream: String)
    }

    /// Identifies the binding (one running instance per key for one-shot firings), e.g.
    /// "lobby#3".
    public var key: String
    /// The binding's display name; prefixes its lines in the log.
    public var label: String
    /// Run as `/bin/sh -c command`.
    public var command: String
    public var environment: ActionEnvironment
    /// Then SIGTERM to its process group, SIGKILL 2 s later. Zero or less: no limit.
    public var timeout: Microseconds
    /// One-shot firings of the same key closer than this to the previous accepted one are
    /// dropped. Steps and ends have none.
    public var cooldown: Microseconds
    /// Run as this user (the daemon must be root).
    public var user: String?
    /// CLOCK_MONOTONIC of the firing, for the cooldown.
    public var firedAt: Timestamp
    public var schedule: Schedule = .oneShot

    public init(
      key: String, label: String, command: String, environment: ActionEnvironment,
      timeout: Microseconds = 30_000_000, cooldown: Microseconds = 300_000, user: String? = nil,
      firedAt: Timestamp, schedule: Schedule = .oneShot
    ) {
      self.key = key
      self.label = label
      self.command = command
      self.environment = environment
      self.timeout = timeout
      self.cooldown = cooldown
      self.user = user
      self.firedAt = firedAt
      self.schedule = schedule
    }

    /// How many firings it stands for: `GESTURED_STEPS`, 1 without it.
    var steps: Int {
      environment["GESTURED_STEPS"].flatMap { Int($0) }.map { max(1, $0) } ?? 1
    }
  }

  public enum Decision: Equatable, Sendable {
    case started(pid: Int32)
    /// Waits its turn: behind its binding's (or stream's) running command, or for room under
    /// `maximumRunning`. It starts when that ends.
    case queued
    /// Merged into a run already waiting, which now stands for `steps` firings.
    case coalesced(steps: Int)
    /// A one-shot firing within `cooldown` of the binding's previous accepted firing.
    case droppedCooldown
    case failed(String)
  }

  /// A binding's output logged per second, all its runs together: past either figure its
  /// pipes are not read until the second is over, so a command that prints without end
  /// blocks in its write instead of keeping the daemon (and the journal) busy, and lines
  /// already read beyond the count are not logged (a summary line says how many).
  public static let outputLinesPerSecond = 100
  public static let outputBytesPerSecond = 64 * 1024
  static let outputWindow: Microseconds = 1_000_000
  /// Actions running at once, beyond which runs wait for room.
  public static let defaultMaximumRunning = 16
  /// From SIGTERM at the timeout to SIGKILL.
  public static let killDelay: Microseconds = 2_000_000
  /// Bindings whose output pipes are kept open, beyond which those of the binding run least
  /// recently (and not running now) are closed: a process it left running that still writes
  /// there then gets EPIPE. Descriptors must not grow with the bindings a config ever had.
  public static let maximumBindingOutputs = 64
  /// Step runs waiting in one stream, beyond which a step merges into the newest waiting run
  /// of its binding: a pinch held for minutes behind a hung command stays 64 runs.
  public static let maximumWaitingStepsPerStream = 64
  /// Runs waiting in all lanes together, beyond which steps and ends merge into the newest
  /// waiting run of their binding and phase in any stream: with every slot held by hung
  /// commands, new sequences must not grow the queue without bound either.
  public static let maximumWaiting = 1024

  public let maximumRunning: Int
  private let queue: DispatchQueue
  private let logger: Logger
  /// Output pipes, pidfds and timers are watched here, not with a Dispatch source each (see
  /// EventMultiplexer for the libdispatch bug that avoids).
  private let multiplexer: EventMultiplexer
  /// Lanes with a running or waiting run; an idle lane is removed.
  private var lanes: [Lane.ID: Lane] = [:]
  /// Lanes whose next run waits only for room under `maximumRunning`, in the order they
  /// started waiting for it. Non-empty only while `maximumRunning` actions run.
  private var lanesWaitingForRoom: [Lane] = []
  private var running = 0
  private var waiting = 0
  /// When each key's one-shot firing was last accepted (started, queued or coalesced), for
  /// the cooldown.
  private var lastAccepted: [String: (time: Timestamp, cooldown: Microseconds)] = [:]
  /// Each binding's output pipes (by key and label), kept between its runs.
  private var bindingOutputs: [BindingOutput.ID: BindingOutput] = [:]
  /// Counts starts, to tell which binding's output was used least recently.
  private var starts: UInt64 = 0
  /// One buffer for every read: everything runs on one queue.
  private let readBuffer: UnsafeMutableRawBufferPointer
  /// Running actions with a timeout stage due (`RunningAction.timeoutAt`), and the one timer
  /// for all of them, made when first needed and armed for the earliest.
  private var timed: [RunningAction] = []
  private var timeoutTimer: DeadlineTimer?
  /// What `timeoutTimer` was last scheduled for: when it fires, every action due by then is.
  private var timeoutsScheduledFor: Timestamp?
  /// Bindings whose output pipes are not read until their second is over, and the one timer
  /// for all of them, made when first needed and armed for the earliest.
  private var pausedOutputs: [OutputRate] = []
  private var outputResumeTimer: DeadlineTimer?
  /// While `timeoutsDue` walks `timed`: schedule once, after.
  private var isHandlingTimeouts = false
  /// Stdout and stderr in separate pipes (logged at info and notice) only when the log shows
  /// levels (journal prefixes); without them the two would read the same, and one pipe
  /// saves a pipe's seven or so system calls per action and keeps their lines in order.
  private var separatesErrorOutput: Bool { logger.journalPrefixes }
  /// Tests only: watch for exits by polling waitpid, as when pidfd_open is not available.
  var pollsForExit = false
  /// Tests only: exits cannot be watched (neither pidfd nor timer), as when no descriptor is
  /// left.
  var failsToWatchExits: Errno?
  /// Tests only: a smaller `maximumBindingOutputs`.
  var maximumKeptOutputs = ActionRunner.maximumBindingOutputs
  /// Tests only: a smaller `maximumWaiting`.
  var maximumWaitingRuns = ActionRunner.maximumWaiting
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
    self.maximumRunning = max(1, maximumRunning)
    readBuffer = .allocate(byteCount: 16_384, alignment: 16)
  }

  deinit {
    // Unwatching must happen on the queue, and the runner may go from another thread (a
    // test's): what it watched goes there, and the descriptors with it.
    var watched: [EventMultiplexer.Token] = []
    for lane in lanes.values {
      guard let action = lane.running else { continue }
      if let (_, token) = action.pidfd { watched.append(token) }
      action.exitPoll.map { timer in
        nonisolated(unsafe) let timer = timer
        queue.async { timer.cancel() }
      }
      lane.running = nil
    }
    for output in bindingOutputs.values {
      for pipe in output.pipes where !pipe.isClosed {
        close(pipe.writeDescriptor)
        if let token = pipe.token { watched.append(token) } else { close(pipe.descriptor) }
      }
    }
    for timer in [timeoutTimer, outputResumeTimer].compactMap({ $0 }) {
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
  public var runningCount: Int { running }
  /// Runs waiting to start. Call on `queue`.
  public var waitingCount: Int { waiting }

  /// Starts the request's command, or queues it behind its binding's (or stream's) running
  /// command or for room under the global limit, or merges it into a run already waiting;
  /// a one-shot firing within its cooldown is dropped. Logs the decision (an audit trail).
  /// Call on `queue`.
  @discardableResult
  public func run(_ request: Request) -> Decision {
    dispatchPrecondition(condition: .onQueue(queue))
    let label = Self.oneLine(request.label, limit: 256)
    let laneID: Lane.ID
    switch request.schedule {
    case .oneShot:
      if request.cooldown > 0, let last = lastAccepted[request.key] {
        let elapsed = request.firedAt - last.time
        if elapsed < request.cooldown {
          logger.info(
            "[\(label)] firing dropped: \(Self.duration(elapsed)) after the previous one, "
              + "within its \(Self.duration(request.cooldown)) cooldown")
          return .droppedCooldown
        }
      }
      rememberAcceptance(of: request)
      laneID = .binding(request.key)
    case .step(let stream), .end(let stream):
      laneID = .stream(stream)
    }
    let lane = lanes[laneID] ?? Lane(id: laneID)
    lanes[laneID] = lane
    if lane.running == nil, lane.waiting.isEmpty, running < maximumRunning {
      let decision = start(WaitingRun(request, label: label), in: lane)
      removeIfIdle(lane)
      return decision
    }
    return enqueue(request, label: label, in: lane)
  }

  /// SIGTERM: runs still waiting will not start; logs how many were dropped. Running ones
  /// are left alone. Call on `queue`.
  @discardableResult
  public func dropWaitingRuns() -> Int {
    dispatchPrecondition(condition: .onQueue(queue))
    let dropped = waiting
    for lane in lanes.values {
      lane.waiting.removeAll()
      lane.waitingSteps = 0
      lane.isWaitingForRoom = false
    }
    waiting = 0
    lanesWaitingForRoom.removeAll()
    for lane in Array(lanes.values) { removeIfIdle(lane) }
    if dropped > 0 {
      logger.notice("stopping: \(dropped) waiting action run\(dropped == 1 ? "" : "s") dropped")
    }
    return dropped
  }

  // MARK: - The queue

  private func enqueue(_ request: Request, label: String, in lane: Lane) -> Decision {
    let word = Self.word(for: request.schedule)
    switch request.schedule {
    case .oneShot:
      // One waiting run per binding: later firings join it.
      if !lane.waiting.isEmpty {
        let steps = lane.waiting[0].merge(request, label: label)
        logger.info("[\(label)] firing coalesced into its waiting run (now \(steps) firings)")
        return .coalesced(steps: steps)
      }
    case .step:
      if let last = lane.waiting.last, last.isStep, last.request.key == request.key {
        let steps = lane.waiting[lane.waiting.count - 1].merge(request, label: label)
        logger.info("[\(label)] step coalesced into its waiting run (now \(steps) steps)")
        return .coalesced(steps: steps)
      }
      if lane.waitingSteps >= Self.maximumWaitingStepsPerStream,
        let index = lane.waiting.lastIndex(where: { $0.isStep && $0.request.key == request.key })
      {
        let steps = lane.waiting[index].merge(request, label: label)
        logger.notice(
          "[\(label)] step merged into its newest waiting run (now \(steps) steps): "
            + "\(Self.laneName(lane.id)) has \(lane.waitingSteps) waiting runs, the most kept")
        return .coalesced(steps: steps)
      }
    case .end:
      break
    }
    if waiting >= maximumWaitingRuns, request.schedule != .oneShot,
      let (other, index) = newestWaiting(like: request)
    {
      let steps = other.waiting[index].merge(request, label: label)
      logger.warning(
        "[\(label)] \(word) merged into its newest waiting run in \(Self.laneName(other.id)) "
          + "(now \(steps) \(word)s): \(waiting) runs are waiting, the most kept")
      return .coalesced(steps: steps)
    }

    var run = WaitingRun(request, label: label)
    run.queuedAt = Self.now()
    if case .step = request.schedule { lane.waitingSteps += 1 }
    lane.waiting.append(run)
    waiting += 1
    if let previous = lane.running {
      let whose = request.schedule == .oneShot ? "its previous run" : "the run before it in its stream"
      logger.info(
        "[\(label)] \(word) queued: \(whose) (pid \(previous.pid)) is still running"
          + Self.waitingSuffix(lane))
    } else {
      logger.warning(
        "[\(label)] \(word) queued: \(running) actions are running, the most allowed at once"
          + Self.waitingSuffix(lane))
      if !lane.isWaitingForRoom {
        lane.isWaitingForRoom = true
        lanesWaitingForRoom.append(lane)
      }
    }
    return .queued
  }

  /// The newest waiting run of the request's binding and phase in any lane.
  private func newestWaiting(like request: Request) -> (Lane, Int)? {
    var best: (lane: Lane, index: Int, queuedAt: Timestamp)? = nil
    for lane in lanes.values {
      guard
        let index = lane.waiting.lastIndex(where: {
          $0.request.key == request.key && Self.samePhase($0.request.schedule, request.schedule)
        })
      else { continue }
      let queuedAt = lane.waiting[index].queuedAt ?? Timestamp(microseconds: 0)
      if best.map({ queuedAt > $0.queuedAt }) ?? true { best = (lane, index, queuedAt) }
    }
    return best.map { ($0.lane, $0.index) }
  }

  private static func samePhase(_ a: Request.Schedule, _ b: Request.Schedule) -> Bool {
    switch (a, b) {
    case (.oneShot, .oneShot), (.step, .step), (.end, .end): return true
    default: return false
    }
  }

  /// Starts the lane's waiting runs while it has no running one and there is room; a run
  /// that fails to start is logged and the next one tried.
  private func startWaiting(in lane: Lane) {
    while lane.running == nil, !lane.waiting.isEmpty, running < maximumRunning {
      let next = lane.waiting.removeFirst()
      waiting -= 1
      if next.isStep { lane.waitingSteps -= 1 }
      start(next, in: lane)
    }
    if lane.running == nil, !lane.waiting.isEmpty, !lane.isWaitingForRoom {
      lane.isWaitingForRoom = true
      lanesWaitingForRoom.append(lane)
    }
    removeIfIdle(lane)
  }

  /// A slot is free: lanes waiting for room start, first come first served.
  private func serveLanesWaitingForRoom() {
    while running < maximumRunning, !lanesWaitingForRoom.isEmpty {
      let lane = lanesWaitingForRoom.removeFirst()
      lane.isWaitingForRoom = false
      startWaiting(in: lane)
    }
  }

  private func removeIfIdle(_ lane: Lane) {
    guard lane.running == nil, lane.waiting.isEmpty, lanes[lane.id] === lane else { return }
    lanes[lane.id] = nil
  }

  private func rememberAcceptance(of request: Request) {
    lastAccepted[request.key] = (request.firedAt, request.cooldown)
    // Keys change with reloads: forget those whose cooldown is long over.
    if lastAccepted.count > 512 {
      lastAccepted = lastAccepted.filter { key, last in
        let elapsed = request.firedAt - last.time
        return key == request.key || (elapsed >= 0 && elapsed < last.cooldown)
      }
    }
  }

  private static func word(for schedule: Request.Schedule) -> String {
    switch schedule {
    case .oneShot: "firing"
    case .step: "step"
    case .end: "end"
    }
  }

  private static func laneName(_ id: Lane.ID) -> String {
    switch id {
    case .binding(let key): "binding \(oneLine(key, limit: 256))"
    case .stream(let stream): "stream \(oneLine(stream, limit: 256))"
    }
  }

  private static func waitingSuffix(_ lane: Lane) -> String {
    lane.waiting.count == 1 ? "" : " (\(lane.waiting.count) waiting in its \(laneName(lane.id)))"
  }

  /// Tests only: waits until no action runs or waits (their output, read at each exit, is
  /// logged by then); false if that did not happen within `timeout`. Never call on `queue`.
  @discardableResult
  public func waitUntilIdle(timeout: Microseconds) -> Bool {
    dispatchPrecondition(condition: .notOnQueue(queue))
    let deadline = Self.now() + timeout
    while true {
      let idle = queue.sync { running == 0 && waiting == 0 }
      if idle { return true }
      if Self.now() >= deadline { return false }
      usleep(5_000)
    }
  }

  // MARK: - Starting

  private struct StartFailure: Error {
    var message: String
  }

  /// Starts `run` as the lane's running action and logs it; a failure is logged as an error.
  @discardableResult
  private func start(_ run: WaitingRun, in lane: Lane) -> Decision {
    let request = run.request
    switch spawn(request, label: run.label, in: lane) {
    case .success(let action):
      var details = ""
      if let queuedAt = run.queuedAt { details += " after waiting \(Self.duration(action.startedAt - queuedAt))" }
      if run.firings > 1 {
        details += " for \(run.firings) \(Self.word(for: request.schedule))s"
      }
      if let user = request.user { details += " as user \(Self.oneLine(user, limit: 256))" }
      logger.info(
        "[\(run.label)] started pid \(action.pid)\(details): \(Self.oneLine(request.command, limit: 4096))")
      // The latency `make bench-vm` measures: from the kernel's stamp of the event that
      // decided the firing to the spawn's return (the clock is read for `startedAt` anyway).
      logger.debug(
        "[\(run.label)] pid \(action.pid) spawned \(action.startedAt - request.firedAt) µs after its firing's event")
      return .started(pid: action.pid)
    case .failure(let reason):
      logger.error("[\(run.label)] cannot start its action: \(reason.message)")
      return .failed(reason.message)
    }
  }

  private func spawn(_ request: Request, label: String, in lane: Lane) -> Result<RunningAction, StartFailure> {
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
    let spawned: SpawnedProcess
    do {
      output = try bindingOutput(key: request.key, label: label)
      spawned = try spawnShell(
        request.command, environment: request.environment,
        output: .descriptors(standardOutput: output.standardOutput, standardError: output.standardError),
        user: identity)
    } catch {
      return .failure(StartFailure(message: error.description))
    }

    let action = RunningAction(
      lane: lane, label: label, pid: spawned.pid, startedAt: Self.now(), timeout: request.timeout,
      output: output)
    do {
      try watchExit(of: action)
    } catch {
      // An action whose end would never be seen would hold its slot for ever: it never
      // takes one. SIGKILL ends a shell that has just started, so the wait is short.
      kill(-spawned.pid, SIGKILL)
      var status: Int32 = 0
      _ = retryOnInterrupt { valueOrErrno(waitpid(spawned.pid, &status, 0)) }
      return .failure(
        StartFailure(
          message: "cannot watch for its exit (\(error)): pid \(spawned.pid) and its process group killed"))
    }
    lane.running = action
    running += 1
    output.running += 1
    armTimeout(of: action)
    return .success(action)
  }

  // MARK: - Output

  /// The binding's output pipes, made at its first run (and again after they were closed);
  /// the least recently used binding's are closed beyond `maximumBindingOutputs`.
  private func bindingOutput(key: String, label: String) throws(SpawnError) -> BindingOutput {
    starts &+= 1
    let id = BindingOutput.ID(key: key, label: label)
    if let output = bindingOutputs[id] {
      guard output.pipes.contains(where: \.isClosed) else {
        output.lastStart = starts
        return output
      }
      // A read error closed one (drain logged it): new pipes for this run on.
      bindingOutputs[id] = nil
      for pipe in output.pipes { closePipe(pipe) }
    }
    let rate = OutputRate(label: label)
    let standardOutput = try watchedPipe(label: label, level: .info, rate: rate)
    var pipes = [standardOutput]
    if separatesErrorOutput {
      do {
        pipes.append(try watchedPipe(label: label, level: .notice, rate: rate))
      } catch {
        closePipe(standardOutput)
        throw error
      }
    }
    let output = BindingOutput(id: id, pipes: pipes, lastStart: starts)
    if bindingOutputs.count >= maximumKeptOutputs,
      let oldest = bindingOutputs.values.filter({ $0.running == 0 }).min(by: { $0.lastStart < $1.lastStart })
    {
      bindingOutputs[oldest.id] = nil
      for pipe in oldest.pipes { closePipe(pipe) }
      logger.info(
        "[\(oldest.id.label)] output pipes closed: the binding run least recently of more than "
          + "\(maximumKeptOutputs) (a process it left running can no longer write there)")
    }
    bindingOutputs[id] = output
    return output
  }

  /// A pipe for the output of a binding's runs, its read end watched.
  private func watchedPipe(label: String, level: LogLevel, rate: OutputRate) throws(SpawnError) -> OutputPipe {
    let ends = try PipeEnds()
    let pipe = OutputPipe(descriptor: ends.read, writeDescriptor: ends.write, label: label, level: level, rate: rate)
    rate.pipes.append(pipe)
    do {
      try watch(pipe)
    } catch {
      ends.closeBoth()
      throw SpawnError(operation: "watch the output pipe: \(error.operation)", errno: error.errno)
    }
    return pipe
  }

  private func watch(_ pipe: OutputPipe) throws(SystemError) {
    pipe.token = try multiplexer.watch(pipe.descriptor) { [weak self, weak pipe] in
      guard let self, let pipe else { return }
      self.drain(pipe, reads: 4)
    }
  }

  /// Reads what `pipe` has, at most `reads` times, stopping when it would block; at end of
  /// file (or an error that will not go away) flushes the last line and closes the pipe.
  private func drain(_ pipe: OutputPipe, reads: Int) {
    guard !pipe.isClosed, let buffer = readBuffer.baseAddress else { return }
    let rate = pipe.rate
    for _ in 0..<reads {
      guard rate.resumesAt == nil else { return }
      switch retryOnInterrupt({ valueOrErrno(read(pipe.descriptor, buffer, readBuffer.count)) }) {
      case .success(let count) where count > 0:
        let now = Self.now()
        if rate.windowStart.map({ now - $0 >= Self.outputWindow }) ?? true {
          summarizeHeldOutput(rate)
          rate.windowStart = now
          rate.lines = 0
          rate.bytes = 0
        }
        rate.bytes += count
        pipe.splitter.append(UnsafeRawBufferPointer(start: buffer, count: count)) {
          log(line: $0, cut: $1, of: pipe)
        }
        if rate.heldLines > 0 || rate.bytes >= Self.outputBytesPerSecond {
          pauseReading(rate)
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
    let rate = pipe.rate
    guard rate.lines < Self.outputLinesPerSecond else {
      rate.heldLines += 1
      rate.heldBytes += line.utf8.count + 1
      return
    }
    rate.lines += 1
    let marker = cut ? " [… cut at \(OutputLineSplitter.maximumLineBytes) bytes]" : ""
    logger.log(pipe.level, "[\(pipe.label)] \(line)\(marker)")
  }

  private func closePipe(_ pipe: OutputPipe) {
    guard !pipe.isClosed else { return }
    pipe.splitter.finish { log(line: $0, cut: $1, of: pipe) }
    pipe.isClosed = true
    unwatchAndClose(pipe)
  }

  private func unwatchAndClose(_ pipe: OutputPipe) {
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

  /// The binding printed more than a second's worth: its pipes are not read until the
  /// second is over (a writer then blocks once the pipe is full). Without a timer to resume
  /// them, they stay read, and lines past the limit are still not logged.
  private func pauseReading(_ rate: OutputRate) {
    guard let windowStart = rate.windowStart, rate.resumesAt == nil else { return }
    if outputResumeTimer == nil {
      do {
        outputResumeTimer = try DeadlineTimer(multiplexer: multiplexer) { [weak self] in self?.resumeReading() }
      } catch {
        logger.error("[\(rate.label)] cannot pause reading its output, lines past the limit are dropped: \(error)")
        return
      }
    }
    let resumesAt = windowStart + Self.outputWindow
    rate.resumesAt = resumesAt
    rate.pausedAt = Self.now()
    for pipe in rate.pipes {
      guard let token = pipe.token else { continue }
      multiplexer.unwatch(token)
      pipe.token = nil
    }
    pausedOutputs.append(rate)
    scheduleResume()
  }

  private func scheduleResume() {
    outputResumeTimer?.schedule(at: pausedOutputs.lazy.compactMap(\.resumesAt).min())
  }

  /// The resume timer fired: every binding whose second is over is read again.
  private func resumeReading() {
    let now = Self.now()
    let due = pausedOutputs.filter { ($0.resumesAt ?? now) <= now }
    pausedOutputs.removeAll { ($0.resumesAt ?? now) <= now }
    for rate in due {
      rate.resumesAt = nil
      summarizeHeldOutput(rate, pausedFor: now - (rate.pausedAt ?? now))
      rate.windowStart = nil
      for pipe in rate.pipes where !pipe.isClosed && pipe.token == nil {
        do {
          try watch(pipe)
        } catch {
          logger.warning("[\(pipe.label)] cannot watch its output again: \(error)")
          closePipe(pipe)
        }
      }
    }
    scheduleResume()
  }

  /// The summary of a second in which the binding printed past the limit.
  private func summarizeHeldOutput(_ rate: OutputRate, pausedFor pause: Microseconds? = nil) {
    guard rate.heldLines > 0 || pause != nil else { return }
    let limits = "\(Self.outputLinesPerSecond) lines or \(Self.outputBytesPerSecond / 1024) KiB a second"
    let paused = pause.map { ", its output not read for \(Self.duration($0))" } ?? ""
    logger.warning(
      "[\(rate.label)] output past \(limits): \(rate.heldLines) line\(rate.heldLines == 1 ? "" : "s") "
        + "(\(rate.heldBytes) bytes) not logged\(paused)")
    rate.heldLines = 0
    rate.heldBytes = 0
  }

  // MARK: - Exit and timeout

  /// Watches for the action's exit: its pidfd, or without pidfd_open a polling timer.
  /// Throws when neither could be made (no descriptor left).
  private func watchExit(of action: RunningAction) throws(SystemError) {
    if let error = failsToWatchExits { throw SystemError(operation: "timerfd_create", errno: error) }
    let pidfd = pollsForExit ? -ENOSYS : gestured_pidfd_open(action.pid)
    if pidfd >= 0,
      let token = try? multiplexer.watch(
        pidfd,
        handler: { [weak self, weak action] in
          guard let self, let action else { return }
          self.processExited(action)
        })
    {
      action.pidfd = (pidfd, token)
      return
    }
    if pidfd >= 0 { close(pidfd) }
    // Kernels before 5.3 (or a seccomp filter) lack pidfd_open: poll while it runs, on a
    // timerfd in the same event loop.
    let timer = try DeadlineTimer(multiplexer: multiplexer) { [weak self, weak action] in
      guard let self, let action else { return }
      self.processMayHaveExited(action)
    }
    timer.schedule(at: Self.now() + Self.exitPollInterval)
    action.exitPoll = timer
  }

  /// The pidfd is readable: the shell has exited.
  private func processExited(_ action: RunningAction) {
    guard action.lane.running === action else { return }
    if case .terminating = action.stage {
      // Not reaped until the SIGKILL stage: while the shell is a zombie, its pid (the process
      // group's id) cannot be reused, so that SIGKILL reaches only what is left of its group.
      action.stage = .terminating(shellExited: true)
      stopWatchingExit(of: action)
      return
    }
    reap(action)
  }

  /// Stops watching for the exit (pidfd or polling timer). Idempotent.
  private func stopWatchingExit(of action: RunningAction) {
    if let (_, token) = action.pidfd {
      multiplexer.unwatch(token, closingItsOnlyDescriptor: true)
      action.pidfd = nil
    }
    action.exitPoll?.cancel()
    action.exitPoll = nil
  }

  /// The polling fallback: reap it if it has exited, else look again later.
  private func processMayHaveExited(_ action: RunningAction) {
    guard action.lane.running === action else { return }
    // While terminating, leave the zombie for the SIGKILL stage (see processExited).
    if case .terminating = action.stage {
      action.exitPoll?.schedule(at: Self.now() + Self.exitPollInterval)
      return
    }
    reap(action)
    if action.lane.running === action { action.exitPoll?.schedule(at: Self.now() + Self.exitPollInterval) }
  }

  private func reap(_ action: RunningAction) {
    var status: Int32 = 0
    switch retryOnInterrupt({ valueOrErrno(waitpid(action.pid, &status, WNOHANG)) }) {
    case .success(0): return  // still running (polling)
    case .success(let pid): finish(action, status: pid == action.pid ? ProcessStatus(waitStatus: status) : nil)
    case .failure: finish(action, status: nil)  // ECHILD: something else reaped it
    }
  }

  private func finish(_ action: RunningAction, status: ProcessStatus?) {
    let lane = action.lane
    lane.running = nil
    running -= 1
    stopWatchingExit(of: action)
    setTimeout(of: action, at: nil)
    // Output the shell wrote before it exited is in the pipes now: log it before the exit,
    // and its last line even without a newline, unless another run of the binding still
    // writes there. A pipe not ready in the wake-up that saw the exit holds nothing (no
    // read that would only say EAGAIN).
    let output = action.output
    output.running -= 1
    for pipe in output.pipes {
      if let token = pipe.token, multiplexer.mayBeReady(token) { drain(pipe, reads: 16) }
      if output.running == 0 { pipe.splitter.finish { log(line: $0, cut: $1, of: pipe) } }
    }

    let elapsed = " after \(Self.duration(Self.now() - action.startedAt))"
    let timedOut = action.timedOut ? " (timed out after \(Self.duration(action.timeout)))" : ""
    switch status {
    case .exited(0):
      logger.info("[\(action.label)] pid \(action.pid) exited with status 0\(elapsed)")
    case .some(let status):
      logger.warning(
        "[\(action.label)] pid \(action.pid) failed: \(Self.describe(status))\(elapsed)\(timedOut)")
    case nil:
      logger.warning(
        "[\(action.label)] pid \(action.pid) ended, but something else collected its exit status")
    }

    // Its lane's next run goes behind lanes already waiting for room (there are some only
    // if every slot was taken until now).
    if !lane.waiting.isEmpty, !lane.isWaitingForRoom {
      lane.isWaitingForRoom = true
      lanesWaitingForRoom.append(lane)
    }
    serveLanesWaitingForRoom()
    removeIfIdle(lane)
  }

  private func armTimeout(of action: RunningAction) {
    // A timeout too long to express is no limit.
    let (deadline, overflow) = action.startedAt.microseconds.addingReportingOverflow(action.timeout)
    guard action.timeout > 0, !overflow else { return }
    if timeoutTimer == nil {
      do {
        timeoutTimer = try DeadlineTimer(multiplexer: multiplexer) { [weak self] in self?.timeoutsDue() }
      } catch {
        logger.error("[\(action.label)] cannot arm its timeout, it may run on: \(error)")
        return
      }
    }
    setTimeout(of: action, at: Timestamp(microseconds: deadline))
  }

  /// Sets (or with nil clears) when the action's next timeout stage is due, and schedules
  /// the shared timer for the earliest of all.
  private func setTimeout(of action: RunningAction, at time: Timestamp?) {
    let had = action.timeoutAt != nil
    action.timeoutAt = time
    if time == nil {
      guard had else { return }
      timed.removeAll { $0 === action }
    } else if !had {
      timed.append(action)
    }
    if !isHandlingTimeouts { scheduleTimeouts() }
  }

  /// The timerfd is set only when the earliest changes (and DeadlineTimer leaves it armed
  /// for an earlier time, re-arming when that passes): none per action when a later one
  /// starts while another runs.
  private func scheduleTimeouts() {
    let earliest = timed.lazy.compactMap(\.timeoutAt).min()
    guard earliest != timeoutsScheduledFor else { return }
    timeoutsScheduledFor = earliest
    timeoutTimer?.schedule(at: earliest)
  }

  /// The shared timer fired: every action due by the time it was scheduled for moves on.
  private func timeoutsDue() {
    guard let due = timeoutsScheduledFor else { return }
    timeoutsScheduledFor = nil
    isHandlingTimeouts = true
    for action in timed where action.timeoutAt.map({ $0 <= due }) ?? false {
      timerFired(for: action)
    }
    isHandlingTimeouts = false
    scheduleTimeouts()
  }

  private func timerFired(for action: RunningAction) {
    guard action.lane.running === action else { return }
    switch action.stage {
    case .running:
      logger.warning(
        "[\(action.label)] timed out after \(Self.duration(action.timeout)): "
          + "SIGTERM to process group \(action.pid)")
      action.timedOut = true
      action.stage = .terminating(shellExited: false)
      kill(-action.pid, SIGTERM)
      setTimeout(of: action, at: Self.now() + Self.killDelay)
    case .terminating(let shellExited):
      logger.warning(
        "[\(action.label)] \(Self.duration(Self.killDelay)) after SIGTERM: "
          + "SIGKILL to process group \(action.pid)")
      kill(-action.pid, SIGKILL)
      action.stage = .killed
      setTimeout(of: action, at: nil)
      // An exited shell was kept as a zombie for this moment; reap it now. Otherwise its exit
      // watch reports the exit SIGKILL causes.
      if shellExited { reap(action) }
    case .killed:
      break
    }
  }

  // MARK: - Formatting

  static func now() -> Timestamp { MonotonicClock.now() }

  /// "300 ms", "2 s", "1.25 s".
  static func duration(_ microseconds: Microseconds) -> String {
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    if magnitude < 1_000_000 { return "\(sign)\(magnitude / 1000) ms" }
    let seconds = magnitude / 1_000_000
    var milliseconds = magnitude % 1_000_000 / 1000
    guard milliseconds > 0 else { return "\(sign)\(seconds) s" }
    var digits = 3
    while milliseconds % 10 == 0 {
      milliseconds /= 10
      digits -= 1
    }
    let fraction = String(milliseconds)
    return
      "\(sign)\(seconds).\(String(repeating: "0", count: digits - fraction.count))\(fraction) s"
  }

  static func describe(_ status: ProcessStatus) -> String {
    guard case .signalled(let signal) = status else { return status.description }
    let names: [Int32: String] = [
      SIGHUP: "SIGHUP", SIGINT: "SIGINT", SIGQUIT: "SIGQUIT", SIGILL: "SIGILL",
      SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL",
      SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGALRM: "SIGALRM", SIGTERM: "SIGTERM",
    ]
    return names[signal].map { "\(status) (\($0))" } ?? status.description
  }

  /// Config text on one log line: control characters escaped, cut after `limit` characters.
  static func oneLine(_ text: String, limit: Int) -> String {
    // Most commands are one printable line under the limit, which the loop below would copy
    // scalar by scalar unchanged (fewer bytes than the limit means fewer scalars too).
    if text.utf8.count <= limit, !text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return text }
    var result = ""
    var count = 0
    for scalar in text.unicodeScalars {
      if count == limit {
        result += "…"
        break
      }
      count += 1
      switch scalar {
      case "\n": result += "\\n"
      case "\t": result += "\\t"
      case "\r": result += "\\r"
      case _ where scalar.value < 0x20 || scalar.value == 0x7f:
        let hex = String(scalar.value, radix: 16)
        result += "\\x" + (hex.count < 2 ? "0" : "") + hex
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }
}

/// Where runs wait their turn: one lane per binding for one-shot firings, one per stream for
/// steps and ends. At most one of its runs is running at a time.
private final class Lane {
  enum ID: Hashable {
    case binding(String)
    case stream(String)
  }

  let id: ID
  var running: RunningAction?
  /// In the order they will start.
  var waiting: [WaitingRun] = []
  /// How many of `waiting` are steps (ends are not bounded: one per binding per stream).
  var waitingSteps = 0
  /// In `lanesWaitingForRoom`.
  var isWaitingForRoom = false

  init(id: ID) { self.id = id }
}

/// A run not started yet: the newest request merged into it, and how many firings it stands
/// for.
private struct WaitingRun {
  var request: ActionRunner.Request
  var label: String
  /// Requests merged into it.
  var firings = 1
  /// When it started waiting; nil for a run that starts at once.
  var queuedAt: Timestamp?

  init(_ request: ActionRunner.Request, label: String) {
    self.request = request
    self.label = label
  }

  var isStep: Bool {
    if case .step = request.schedule { return true }
    return false
  }

  /// Takes `newer`'s values, with `GESTURED_STEPS` the sum of both; returns that sum.
  mutating func merge(_ newer: ActionRunner.Request, label newLabel: String) -> Int {
    let steps = request.steps + newer.steps
    request = newer
    request.environment.set("GESTURED_STEPS", String(steps))
    label = newLabel
    firings += 1
    return steps
  }
}

/// One started action, from spawn until its shell is reaped.
private final class RunningAction {
  enum Stage {
    case running
    /// SIGTERM sent; SIGKILL follows `killDelay` later. `shellExited`: the shell is a zombie
    /// left unreaped until then.
    case terminating(shellExited: Bool)
    /// SIGKILL sent; waiting for the exit.
    case killed
  }

  /// Its lane, which holds it as `running` until it is reaped.
  let lane: Lane
  let label: String
  let pid: pid_t
  let startedAt: Timestamp
  let timeout: Microseconds
  var stage = Stage.running
  var timedOut = false
  /// Its binding's output pipes, which it writes to.
  let output: BindingOutput
  /// The pidfd watched for the exit, or, without pidfd_open, the polling timer.
  var pidfd: (descriptor: Int32, token: EventMultiplexer.Token)?
  var exitPoll: DeadlineTimer?
  /// When its next timeout stage (SIGTERM, then SIGKILL) is due; nil when none is.
  var timeoutAt: Timestamp?

  init(
    lane: Lane, label: String, pid: pid_t, startedAt: Timestamp, timeout: Microseconds,
    output: BindingOutput
  ) {
    self.lane = lane
    self.label = label
    self.pid = pid
    self.startedAt = startedAt
    self.timeout = timeout
    self.output = output
  }

}

/// A binding's output: the pipes every run of it gets as stdout and stderr (one pipe for
/// both when the log shows no levels), kept from its first run on. Ours are both ends, so
/// the pipes never reach end of file: a run costs no pipe of its own and no wake-up for one,
/// and what a process it left running writes is logged under the binding's name too.
private final class BindingOutput {
  /// Which binding: its key and its label (a reload may give a key another binding).
  struct ID: Hashable {
    let key: String
    let label: String
  }

  let id: ID
  /// Stdout's pipe, then stderr's when the two are apart.
  let pipes: [OutputPipe]
  /// Runs of the binding running now.
  var running = 0
  /// ActionRunner's count of starts at its last run.
  var lastStart: UInt64

  init(id: ID, pipes: [OutputPipe], lastStart: UInt64) {
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
  let label: String
  let level: LogLevel
  var splitter = OutputLineSplitter()
  /// Set while the multiplexer watches the descriptor (not while its output is paused).
  var token: EventMultiplexer.Token?
  var isClosed = false
  /// Its binding's, shared with its other pipe.
  let rate: OutputRate

  init(descriptor: Int32, writeDescriptor: Int32, label: String, level: LogLevel, rate: OutputRate) {
    self.descriptor = descriptor
    self.writeDescriptor = writeDescriptor
    self.label = label
    self.level = level
    self.rate = rate
  }
}

/// What a binding's output pipes were read in the current second, against
/// `ActionRunner.outputLinesPerSecond` and `outputBytesPerSecond`.
private final class OutputRate {
  let label: String
  /// The binding's pipes (weak: the pipes hold this).
  var pipes: [OutputPipe] {
    get { pipeReferences.compactMap(\.pipe) }
    set { pipeReferences = newValue.map(WeakPipe.init) }
  }
  private var pipeReferences: [WeakPipe] = []
  /// When the current second began: at the first read after the last one ended.
  var windowStart: Timestamp?
  var lines = 0
  var bytes = 0
  /// Lines read past the limit in this second, not logged.
  var heldLines = 0
  var heldBytes = 0
  /// Set while the pipes are not read: when they are again, and since when.
  var resumesAt: Timestamp?
  var pausedAt: Timestamp?

  init(label: String) { self.label = label }

  private struct WeakPipe {
    weak var pipe: OutputPipe?
  }
}

/// A new pipe for children's output: both ends close-on-exec and above 2 (a daemon started
/// with a closed stdin must not hand the child its own pipe as stdin), the read end
/// non-blocking (the write end, a file of its own, stays blocking for the children).
struct PipeEnds {
  let read: Int32
  let write: Int32

  init() throws(SpawnError) {
    var ends: [Int32] = [-1, -1]
    let result = ends.withUnsafeMutableBufferPointer { gestured_pipe_cloexec($0.baseAddress) }
    guard result == 0 else { throw SpawnError(operation: "pipe", errno: Errno(rawValue: result)) }
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
      throw SpawnError(operation: "make the output pipe non-blocking", errno: error)
    }
  }

  func closeBoth() {
    close(read)
    close(write)
  }

  /// `descriptor` itself, or (closing it) a close-on-exec duplicate numbered 3 or higher.
  private static func aboveStandardStreams(_ descriptor: Int32) throws(SpawnError) -> Int32 {
    guard descriptor < 3 else { return descriptor }
    let duplicate = valueOrErrno(fcntl(descriptor, F_DUPFD_CLOEXEC, 3))
    close(descriptor)
    switch duplicate {
    case .success(let moved): return moved
    case .failure(let error): throw SpawnError(operation: "move a pipe above fd 2", errno: error)
    }
  }
}
