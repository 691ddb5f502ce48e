import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// What the daemon does with its bindings' firings, as a state machine: cooldown, lanes,
/// coalescing, the queue, the limit on running actions, timeouts and the output rate.
///
/// It starts nothing, reads no clock and touches no descriptor. Each input (a firing, a
/// start that succeeded or failed, an exit, a read of output, a deadline) comes with its
/// time and returns the `Action`s its owner carries out, in order: start a run, signal a
/// process group, reap a shell, log a line, pause or resume reading a binding's output,
/// arm the one timer, write input. `ActionRunner` is that owner for the daemon; the tests
/// drive it with virtual time and no processes.
///
/// Nothing accepted is lost: a run that cannot start yet waits in its lane (one lane per
/// binding for one-shot firings, one per stream for steps and ends), and waiting runs of a
/// binding coalesce into one run whose `GESTURED_STEPS` counts them, which keeps the queue
/// bounded. See "The queue" in docs/cli.md.
public struct ActionPolicy {
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

    /// What a firing does.
    public enum Kind: Sendable, Equatable {
      /// Runs `command` in a process: lanes, the queue, coalescing and timeouts apply.
      case command
      /// Keys or wheel clicks written by the daemon itself, at once: only the cooldown
      /// applies (never queued, merged or dropped otherwise). The owner writes it on
      /// `.writeInput`.
      case input(PreparedInput)
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
    public var kind: Kind = .command
    /// `label` and `command` as the log shows them, made from the same two once by the
    /// binding's table (set only within the module, so that they cannot disagree); nil:
    /// made from them at the firing.
    public internal(set) var logText: LogText?

    public init(
      key: String, label: String, command: String, environment: ActionEnvironment,
      timeout: Microseconds = 30_000_000, cooldown: Microseconds = 300_000, user: String? = nil,
      firedAt: Timestamp, schedule: Schedule = .oneShot, kind: Kind = .command
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
      self.kind = kind
    }

    /// `logText`, or made now.
    var text: LogText { logText ?? LogText(label: label, command: command) }

    /// How many firings it stands for: `GESTURED_STEPS`, 1 without it.
    var steps: Int {
      environment["GESTURED_STEPS"].flatMap { Int($0) }.map { max(1, $0) } ?? 1
    }
  }

  /// A request's label and command as its log lines show them: each on one line and cut to
  /// its limit (`oneLine`), then escaped as the log escapes a value. A binding's table
  /// makes them once, so that its firings do not scan the same text again.
  public struct LogText: Sendable, Equatable {
    /// On one line: how the runner's lines and output pipes name the binding.
    public let label: String
    /// `label` escaped.
    public let escapedLabel: String
    /// The command on one line, escaped.
    public let escapedCommand: String

    public init(label: String, command: String) {
      self.label = ActionPolicy.oneLine(label, limit: 256)
      escapedLabel = self.label.escapingControlCharacters()
      escapedCommand = ActionPolicy.oneLine(command, limit: 4096).escapingControlCharacters()
    }
  }

  /// One run from the moment the policy decides to start it until its shell is reaped.
  public typealias RunID = UInt64

  /// A binding's output pipes, all its runs together (a reload may give a key another
  /// binding, hence the label too).
  public struct OutputID: Hashable, Sendable {
    public let key: String
    public let label: String

    public init(key: String, label: String) {
      self.key = key
      self.label = label
    }
  }

  /// What the owner does, in the order given.
  public enum Action {
    /// Spawn the run's command; report `started` or `startFailed`.
    case start(RunID, Request, label: String)
    /// Send `signal` to the process group `processGroup` (the shell's pid).
    case signalGroup(processGroup: pid_t, signal: Int32)
    /// Log what the binding's output pipes hold, reap the shell, and report `reaped`.
    case reap(RunID)
    /// The shell has exited but is left a zombie until the SIGKILL stage: stop watching it.
    case stopWatchingExit(RunID)
    case log(LogLevel, LogMessage)
    /// Stop reading the binding's output pipes, until `resumeReading`.
    case pauseReading(OutputID)
    case resumeReading(OutputID)
    /// The one timer: call `deadlineReached` at this time (nil: disarm).
    case armTimer(Timestamp?)
    /// An input firing that passed its cooldown: write it now.
    case writeInput(Request)
  }

  /// What became of a firing.
  public enum Disposition: Equatable, Sendable {
    /// `.start` was returned for it.
    case starting(RunID)
    /// Waits its turn: behind its binding's (or stream's) running command, or for room under
    /// `maximumRunning`. It starts when that ends.
    case queued
    /// Merged into a run already waiting, which now stands for `steps` firings.
    case coalesced(steps: Int)
    /// A one-shot firing within `cooldown` of the binding's previous accepted firing.
    case droppedCooldown
    /// `.writeInput` was returned for it.
    case writingInput
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
  /// Step runs waiting in one stream, beyond which a step merges into the newest waiting run
  /// of its binding: a pinch held for minutes behind a hung command stays 64 runs.
  public static let maximumWaitingStepsPerStream = 64
  /// Runs waiting in all lanes together, beyond which steps and ends merge into the newest
  /// waiting run of their binding and phase in any stream: with every slot held by hung
  /// commands, new sequences must not grow the queue without bound either.
  public static let maximumWaiting = 1024

  public let maximumRunning: Int
  /// Tests only: a smaller `maximumWaiting`.
  var maximumWaitingRuns = ActionPolicy.maximumWaiting
  /// Whether debug lines are wanted: a log that drops them need not have them made at each start.
  public var logsDebug = true

  /// Lanes with a running or waiting run; an idle lane is removed before any call returns.
  /// This table, `runs`, `lastAccepted` and `outputs` are made with room at `init`, so that
  /// a daemon's first firing does not wait for the Swift runtime to set up their types (a
  /// scan of the executable's conformance records for each key type).
  private var lanes = [LaneID: Lane](minimumCapacity: 4)
  /// Lanes whose next run waits only for room under `maximumRunning`, in the order they
  /// started waiting for it. Non-empty only while `maximumRunning` actions run.
  private var lanesWaitingForRoom: [LaneID] = []
  /// Runs started (or being started) and not yet reaped.
  private var runs = [RunID: Run](minimumCapacity: 4)
  private var nextRunID: RunID = 1
  public private(set) var runningCount = 0
  public private(set) var waitingCount = 0
  /// When each key's one-shot firing was last accepted (started, queued or coalesced), for
  /// the cooldown.
  private var lastAccepted = Acceptances(minimumCapacity: 4)
  private typealias Acceptances = [String: (time: Timestamp, cooldown: Microseconds)]
  /// Each binding's output read in the current second.
  private var outputs = [OutputID: OutputRate](minimumCapacity: 4)
  /// What the timer was last armed for.
  private var armedFor: Timestamp?

  public init(maximumRunning: Int = ActionPolicy.defaultMaximumRunning) {
    self.maximumRunning = max(1, maximumRunning)
  }

  /// Nothing runs or waits.
  public var isIdle: Bool { runningCount == 0 && waitingCount == 0 }

  /// The process group of a run whose shell has started.
  public func pid(of run: RunID) -> pid_t? { runs[run]?.pid }

  /// Whether the run's exit may be collected now: not while it is being terminated (the
  /// zombie keeps its process group's id from being reused until the SIGKILL stage).
  public func mayReap(_ run: RunID) -> Bool {
    guard let run = runs[run], run.pid != nil else { return false }
    if case .terminating = run.stage { return false }
    return true
  }

  // MARK: - Inputs

  /// A binding fired at `now`: starts its run, or queues it behind its binding's (or
  /// stream's) running command or for room under the global limit, or merges it into a run
  /// already waiting; a one-shot firing within its cooldown is dropped. Every decision is
  /// logged (an audit trail).
  public mutating func fire(_ request: Request, at now: Timestamp) -> (Disposition, [Action]) {
    var actions: [Action] = []
    let accepted = request.schedule == .oneShot ? lastAccepted.index(forKey: request.key) : nil
    if request.cooldown > 0, let accepted {
      let elapsed = request.firedAt - lastAccepted.values[accepted].time
      if elapsed < request.cooldown {
        actions.append(
          .log(
            .info,
            "[\(escaped: request.text.escapedLabel)] firing dropped: \(duration: elapsed) after the previous one, "
              + "within its \(duration: request.cooldown) cooldown"))
        return (.droppedCooldown, actions)
      }
    }
    if request.schedule == .oneShot { rememberAcceptance(of: request, at: accepted) }
    if case .input = request.kind { return (.writingInput, [.writeInput(request)]) }
    let text = request.text

    let laneID: LaneID
    switch request.schedule {
    case .oneShot: laneID = .binding(request.key)
    case .step(let stream), .end(let stream): laneID = .stream(stream)
    }
    let disposition: Disposition
    // Idle lanes are not kept: a lane that is not there has nothing running or waiting.
    let hasLane = lanes.index(forKey: laneID) != nil
    if !hasLane, runningCount < maximumRunning {
      disposition = .starting(start(WaitingRun(request, text: text), in: laneID, into: &actions))
    } else {
      if !hasLane { lanes[laneID] = Lane() }
      disposition = enqueue(request, text: text, in: laneID, at: now, into: &actions)
      removeIfIdle(laneID)
    }
    armTimer(into: &actions)
    return (disposition, actions)
  }

  /// The run's shell started at `now` as process (and process group) `pid`.
  public mutating func started(_ id: RunID, pid: pid_t, at now: Timestamp) -> [Action] {
    guard let run = runs[id] else { return [] }
    run.pid = pid
    run.startedAt = now
    // A timeout too long to express is no limit.
    let (deadline, overflow) = now.microseconds.addingReportingOverflow(run.request.timeout)
    if run.request.timeout > 0, !overflow { run.timeoutAt = Timestamp(microseconds: deadline) }
    var details = ""
    if let queuedAt = run.queuedAt { details += " after waiting \(Self.duration(now - queuedAt))" }
    if run.firings > 1 { details += " for \(run.firings) \(Self.word(for: run.request.schedule))s" }
    if let user = run.request.user { details += " as user \(Self.oneLine(user, limit: 256))" }
    var actions: [Action] = [
      .log(
        .info, "[\(escaped: run.text.escapedLabel)] started pid \(pid)\(details): \(escaped: run.text.escapedCommand)")
    ]
    if logsDebug {
      // The latency `make bench-vm` measures: from the kernel's stamp of the event that
      // decided the firing to the spawn's return.
      actions.append(
        .log(
          .debug,
          "[\(escaped: run.text.escapedLabel)] pid \(pid) spawned \(now - run.request.firedAt) µs after its firing's event"
        ))
    }
    armTimer(into: &actions)
    return actions
  }

  /// The run's command could not be started (or its exit could not be watched, and it was
  /// killed): logged as an error, and its lane's next run, or another lane's, is tried.
  public mutating func startFailed(_ id: RunID, reason: String, at now: Timestamp) -> [Action] {
    guard let run = runs.removeValue(forKey: id) else { return [] }
    runningCount -= 1
    lanes[run.laneID]?.running = nil
    var actions: [Action] = [.log(.error, "[\(run.label)] cannot start its action: \(reason)")]
    startWaiting(in: run.laneID, into: &actions)
    serveLanesWaitingForRoom(into: &actions)
    removeIfIdle(run.laneID)
    armTimer(into: &actions)
    return actions
  }

  /// The run's shell has exited (its pidfd became readable).
  public mutating func exited(_ id: RunID, at now: Timestamp) -> [Action] {
    guard let run = runs[id], run.pid != nil else { return [] }
    if case .terminating = run.stage {
      // Not reaped until the SIGKILL stage: while the shell is a zombie, its pid (the process
      // group's id) cannot be reused, so that SIGKILL reaches only what is left of its group.
      run.stage = .terminating(shellExited: true)
      return [.stopWatchingExit(id)]
    }
    return [.reap(id)]
  }

  /// The run's shell was reaped at `now`: `status`, or nil when something else collected it.
  /// Its lane's next run goes behind lanes already waiting for room.
  public mutating func reaped(_ id: RunID, status: ProcessStatus?, at now: Timestamp) -> [Action] {
    guard let run = runs.removeValue(forKey: id), let pid = run.pid else { return [] }
    runningCount -= 1
    let elapsed = now - run.startedAt
    var actions: [Action] = []
    switch status {
    case .exited(0):
      actions.append(
        .log(.info, "[\(escaped: run.text.escapedLabel)] pid \(pid) exited with status 0 after \(duration: elapsed)"))
    case .some(let status):
      let timedOut = run.timedOut ? " (timed out after \(Self.duration(run.request.timeout)))" : ""
      actions.append(
        .log(
          .warning,
          "[\(escaped: run.text.escapedLabel)] pid \(pid) failed: \(Self.describe(status)) after \(duration: elapsed)\(timedOut)"
        ))
    case nil:
      actions.append(
        .log(
          .warning, "[\(escaped: run.text.escapedLabel)] pid \(pid) ended, but something else collected its exit status"
        ))
    }
    if let index = lanes.index(forKey: run.laneID) {
      lanes.values[index].running = nil
      if lanes.values[index].waiting.isEmpty {
        lanes.remove(at: index)  // idle
      } else if !lanes.values[index].isWaitingForRoom {
        // Its lane's next run goes behind lanes already waiting for room (there are some
        // only if every slot was taken until now). A lane with waiting runs is not idle
        // after them either.
        lanes.values[index].isWaitingForRoom = true
        lanesWaitingForRoom.append(run.laneID)
      }
    }
    serveLanesWaitingForRoom(into: &actions)
    armTimer(into: &actions)
    return actions
  }

  /// The timer fired at `now`: timeouts due move on a stage (SIGTERM, then SIGKILL), and
  /// bindings whose output second is over are read again.
  public mutating func deadlineReached(at now: Timestamp) -> [Action] {
    armedFor = nil
    var actions: [Action] = []
    for id in runs.keys.sorted() {
      guard let run = runs[id], let pid = run.pid, let due = run.timeoutAt, due <= now else { continue }
      switch run.stage {
      case .running:
        actions.append(
          .log(
            .warning,
            "[\(run.label)] timed out after \(duration: run.request.timeout): SIGTERM to process group \(pid)"))
        run.timedOut = true
        run.stage = .terminating(shellExited: false)
        actions.append(.signalGroup(processGroup: pid, signal: SIGTERM))
        run.timeoutAt = now + Self.killDelay
      case .terminating(let shellExited):
        actions.append(
          .log(
            .warning, "[\(run.label)] \(duration: Self.killDelay) after SIGTERM: SIGKILL to process group \(pid)")
        )
        actions.append(.signalGroup(processGroup: pid, signal: SIGKILL))
        run.stage = .killed
        run.timeoutAt = nil
        // An exited shell was kept as a zombie for this moment; reap it now. Otherwise its exit
        // watch reports the exit SIGKILL causes.
        if shellExited { actions.append(.reap(id)) }
      case .killed:
        run.timeoutAt = nil
      }
    }
    for (id, rate) in outputs.sorted(by: { ($0.value.resumesAt ?? now) < ($1.value.resumesAt ?? now) }) {
      guard let resumesAt = rate.resumesAt, resumesAt <= now else { continue }
      var rate = rate
      rate.resumesAt = nil
      if let summary = rate.summarizeHeld(label: id.label, pausedFor: now - (rate.pausedAt ?? now)) {
        actions.append(.log(.warning, summary))
      }
      rate.windowStart = nil
      outputs[id] = rate
      actions.append(.resumeReading(id))
    }
    armTimer(into: &actions)
    return actions
  }

  /// SIGTERM: runs still waiting will not start; logs how many were dropped. Running ones
  /// are left alone.
  public mutating func dropWaitingRuns() -> (dropped: Int, actions: [Action]) {
    let dropped = waitingCount
    for id in Array(lanes.keys) {
      lanes[id]?.waiting.removeAll()
      lanes[id]?.waitingSteps = 0
      lanes[id]?.isWaitingForRoom = false
      removeIfIdle(id)
    }
    waitingCount = 0
    lanesWaitingForRoom.removeAll()
    guard dropped > 0 else { return (0, []) }
    return (dropped, [.log(.notice, "stopping: \(dropped) waiting action run\(dropped == 1 ? "" : "s") dropped")])
  }

  // MARK: - Output

  /// `bytes` were read from the binding's output at `now`: a new second of output begins
  /// when the last one is over (with a summary of what it did not log).
  public mutating func outputRead(_ id: OutputID, bytes: Int, at now: Timestamp) -> [Action] {
    var rate = outputs[id] ?? OutputRate()
    var actions: [Action] = []
    if rate.windowStart.map({ now - $0 >= Self.outputWindow }) ?? true {
      if let summary = rate.summarizeHeld(label: id.label, pausedFor: nil) { actions.append(.log(.warning, summary)) }
      rate.windowStart = now
      rate.lines = 0
      rate.bytes = 0
    }
    rate.bytes += bytes
    outputs[id] = rate
    return actions
  }

  /// One line of the binding's output (`cut` at the line limit): logged at `level`, or held
  /// (counted, not logged) past this second's line limit.
  public mutating func outputLine(_ id: OutputID, _ line: String, cut: Bool, level: LogLevel) -> Action? {
    var rate = outputs[id] ?? OutputRate()
    defer { outputs[id] = rate }
    guard rate.lines < Self.outputLinesPerSecond else {
      rate.heldLines += 1
      rate.heldBytes += line.utf8.count + 1
      return nil
    }
    rate.lines += 1
    let marker = cut ? " [… cut at \(OutputLineSplitter.maximumLineBytes) bytes]" : ""
    return .log(level, "[\(id.label)] \(line)\(marker)")
  }

  /// Whether the binding's pipes are not being read (its second's output was too much).
  public func isPaused(_ id: OutputID) -> Bool { outputs[id]?.resumesAt != nil }

  /// After a read's lines: past a second's worth, the binding's pipes are not read until the
  /// second is over (a writer then blocks once the pipe is full).
  public mutating func outputReadEnded(_ id: OutputID, at now: Timestamp) -> [Action] {
    guard var rate = outputs[id], rate.resumesAt == nil, let windowStart = rate.windowStart,
      rate.heldLines > 0 || rate.bytes >= Self.outputBytesPerSecond
    else { return [] }
    rate.resumesAt = windowStart + Self.outputWindow
    rate.pausedAt = now
    outputs[id] = rate
    var actions: [Action] = [.pauseReading(id)]
    armTimer(into: &actions)
    return actions
  }

  /// The binding's pipes were closed: their second is forgotten.
  public mutating func outputClosed(_ id: OutputID) -> [Action] {
    guard outputs.removeValue(forKey: id) != nil else { return [] }
    var actions: [Action] = []
    armTimer(into: &actions)
    return actions
  }

  // MARK: - The queue

  private mutating func enqueue(
    _ request: Request, text: LogText, in laneID: LaneID, at now: Timestamp, into actions: inout [Action]
  ) -> Disposition {
    let word = Self.word(for: request.schedule)
    let label = text.label
    var lane = lanes[laneID]!
    defer { lanes[laneID] = lane }
    switch request.schedule {
    case .oneShot:
      // One waiting run per binding: later firings join it.
      if !lane.waiting.isEmpty {
        let steps = lane.waiting[0].merge(request, text: text)
        actions.append(.log(.info, "[\(label)] firing coalesced into its waiting run (now \(steps) firings)"))
        return .coalesced(steps: steps)
      }
    case .step:
      if let last = lane.waiting.last, last.isStep, last.request.key == request.key {
        let steps = lane.waiting[lane.waiting.count - 1].merge(request, text: text)
        actions.append(.log(.info, "[\(label)] step coalesced into its waiting run (now \(steps) steps)"))
        return .coalesced(steps: steps)
      }
      if lane.waitingSteps >= Self.maximumWaitingStepsPerStream,
        let index = lane.waiting.lastIndex(where: { $0.isStep && $0.request.key == request.key })
      {
        let steps = lane.waiting[index].merge(request, text: text)
        actions.append(
          .log(
            .notice,
            "[\(label)] step merged into its newest waiting run (now \(steps) steps): "
              + "\(Self.laneName(laneID)) has \(lane.waitingSteps) waiting runs, the most kept"))
        return .coalesced(steps: steps)
      }
    case .end:
      break
    }
    if waitingCount >= maximumWaitingRuns, request.schedule != .oneShot,
      let (otherID, index) = newestWaiting(like: request)
    {
      let steps: Int
      if otherID == laneID {
        steps = lane.waiting[index].merge(request, text: text)
      } else {
        steps = lanes[otherID]!.waiting[index].merge(request, text: text)
      }
      actions.append(
        .log(
          .warning,
          "[\(label)] \(word) merged into its newest waiting run in \(Self.laneName(otherID)) "
            + "(now \(steps) \(word)s): \(waitingCount) runs are waiting, the most kept"))
      return .coalesced(steps: steps)
    }

    var run = WaitingRun(request, text: text)
    run.queuedAt = now
    if case .step = request.schedule { lane.waitingSteps += 1 }
    lane.waiting.append(run)
    waitingCount += 1
    let suffix = Self.waitingSuffix(lane, laneID)
    if let previous = lane.running {
      let whose = request.schedule == .oneShot ? "its previous run" : "the run before it in its stream"
      let pid = runs[previous]?.pid.map { String($0) } ?? "not started yet"
      actions.append(.log(.info, "[\(label)] \(word) queued: \(whose) (pid \(pid)) is still running" + suffix))
    } else {
      actions.append(
        .log(
          .warning,
          "[\(label)] \(word) queued: \(runningCount) actions are running, the most allowed at once" + suffix))
      if !lane.isWaitingForRoom {
        lane.isWaitingForRoom = true
        lanesWaitingForRoom.append(laneID)
      }
    }
    return .queued
  }

  /// The newest waiting run of the request's binding and phase in any lane.
  private func newestWaiting(like request: Request) -> (LaneID, Int)? {
    var best: (lane: LaneID, index: Int, queuedAt: Timestamp)? = nil
    for (id, lane) in lanes {
      guard
        let index = lane.waiting.lastIndex(where: {
          $0.request.key == request.key && Self.samePhase($0.request.schedule, request.schedule)
        })
      else { continue }
      let queuedAt = lane.waiting[index].queuedAt ?? Timestamp(microseconds: 0)
      if best.map({ queuedAt > $0.queuedAt }) ?? true { best = (id, index, queuedAt) }
    }
    return best.map { ($0.lane, $0.index) }
  }

  private static func samePhase(_ a: Request.Schedule, _ b: Request.Schedule) -> Bool {
    switch (a, b) {
    case (.oneShot, .oneShot), (.step, .step), (.end, .end): return true
    default: return false
    }
  }

  /// Makes `waiting` the lane's running run and asks for its start.
  private mutating func start(_ waiting: WaitingRun, in laneID: LaneID, into actions: inout [Action]) -> RunID {
    let id = nextRunID
    nextRunID += 1
    runs[id] = Run(waiting, laneID: laneID)
    lanes[laneID, default: Lane()].running = id
    runningCount += 1
    actions.append(.start(id, waiting.request, label: waiting.label))
    return id
  }

  /// Starts the lane's next waiting run if it has no running one and there is room; a lane
  /// left waiting only for room joins the others waiting for it.
  private mutating func startWaiting(in laneID: LaneID, into actions: inout [Action]) {
    guard var lane = lanes[laneID] else { return }
    if lane.running == nil, !lane.waiting.isEmpty, runningCount < maximumRunning {
      let next = lane.waiting.removeFirst()
      waitingCount -= 1
      if next.isStep { lane.waitingSteps -= 1 }
      lanes[laneID] = lane
      _ = start(next, in: laneID, into: &actions)
      return
    }
    if lane.running == nil, !lane.waiting.isEmpty, !lane.isWaitingForRoom {
      lane.isWaitingForRoom = true
      lanesWaitingForRoom.append(laneID)
    }
    lanes[laneID] = lane
    removeIfIdle(laneID)
  }

  /// A slot is free: lanes waiting for room start, first come first served.
  private mutating func serveLanesWaitingForRoom(into actions: inout [Action]) {
    while runningCount < maximumRunning, !lanesWaitingForRoom.isEmpty {
      let laneID = lanesWaitingForRoom.removeFirst()
      lanes[laneID]?.isWaitingForRoom = false
      startWaiting(in: laneID, into: &actions)
    }
  }

  private mutating func removeIfIdle(_ laneID: LaneID) {
    guard let lane = lanes[laneID], lane.running == nil, lane.waiting.isEmpty else { return }
    lanes[laneID] = nil
  }

  /// `index`: where the key's last acceptance is in `lastAccepted`, if it has one.
  private mutating func rememberAcceptance(of request: Request, at index: Acceptances.Index?) {
    guard let index else { return insertAcceptance(of: request) }
    lastAccepted.values[index] = (request.firedAt, request.cooldown)
  }

  private mutating func insertAcceptance(of request: Request) {
    lastAccepted[request.key] = (request.firedAt, request.cooldown)
    // Keys change with reloads: forget those whose cooldown is long over.
    if lastAccepted.count > 512 {
      lastAccepted = lastAccepted.filter { key, last in
        let elapsed = request.firedAt - last.time
        return key == request.key || (elapsed >= 0 && elapsed < last.cooldown)
      }
    }
  }

  /// Appends `.armTimer` when the earliest deadline (a timeout stage or an output resume)
  /// differs from what the timer is armed for.
  private mutating func armTimer(into actions: inout [Action]) {
    var earliest: Timestamp? = nil
    for run in runs.values {
      if let due = run.timeoutAt, earliest.map({ due < $0 }) ?? true { earliest = due }
    }
    for rate in outputs.values {
      if let due = rate.resumesAt, earliest.map({ due < $0 }) ?? true { earliest = due }
    }
    guard earliest != armedFor else { return }
    armedFor = earliest
    actions.append(.armTimer(earliest))
  }

  // MARK: - Formatting

  static func word(for schedule: Request.Schedule) -> String {
    switch schedule {
    case .oneShot: "firing"
    case .step: "step"
    case .end: "end"
    }
  }

  private static func laneName(_ id: LaneID) -> String {
    switch id {
    case .binding(let key): "binding \(oneLine(key, limit: 256))"
    case .stream(let stream): "stream \(oneLine(stream, limit: 256))"
    }
  }

  private static func waitingSuffix(_ lane: Lane, _ id: LaneID) -> String {
    lane.waiting.count == 1 ? "" : " (\(lane.waiting.count) waiting in its \(laneName(id)))"
  }

  /// A duration as the log shows it ("300 ms", "2 s", "1.25 s"), for text put together
  /// before it reaches a log line.
  static func duration(_ microseconds: Microseconds) -> String { LogMessage("\(duration: microseconds)").text }

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

// MARK: - State

/// Where runs wait their turn: one lane per binding for one-shot firings, one per stream for
/// steps and ends. At most one of its runs is running at a time.
private enum LaneID: Hashable {
  case binding(String)
  case stream(String)
}

private struct Lane {
  var running: ActionPolicy.RunID?
  /// In the order they will start.
  var waiting: [WaitingRun] = []
  /// How many of `waiting` are steps (ends are not bounded: one per binding per stream).
  var waitingSteps = 0
  /// In `lanesWaitingForRoom`.
  var isWaitingForRoom = false
}

/// A run not started yet: the newest request merged into it, and how many firings it stands
/// for.
private struct WaitingRun {
  var request: ActionPolicy.Request
  var text: ActionPolicy.LogText
  var label: String { text.label }
  /// Requests merged into it.
  var firings = 1
  /// When it started waiting; nil for a run that starts at once.
  var queuedAt: Timestamp?

  init(_ request: ActionPolicy.Request, text: ActionPolicy.LogText) {
    self.request = request
    self.text = text
  }

  var isStep: Bool {
    if case .step = request.schedule { return true }
    return false
  }

  /// Takes `newer`'s values, with `GESTURED_STEPS` the sum of both; returns that sum.
  mutating func merge(_ newer: ActionPolicy.Request, text newText: ActionPolicy.LogText) -> Int {
    let steps = request.steps + newer.steps
    request = newer
    request.environment.set("GESTURED_STEPS", String(steps))
    text = newText
    firings += 1
    return steps
  }
}

/// One run from its start until its shell is reaped. A class: looking a run up in `runs`
/// shares it rather than copying (and retaining) each of its strings, and a change made to
/// it needs no writing back. Copies of a policy would share their runs; each policy is one
/// value, its runner's (or a test's), never copied.
private final class Run {
  enum Stage {
    case running
    /// SIGTERM sent; SIGKILL follows `killDelay` later. `shellExited`: the shell is a zombie
    /// left unreaped until then.
    case terminating(shellExited: Bool)
    /// SIGKILL sent; waiting for the exit.
    case killed
  }

  let laneID: LaneID
  let request: ActionPolicy.Request
  let text: ActionPolicy.LogText
  var label: String { text.label }
  let firings: Int
  let queuedAt: Timestamp?
  /// Set once its shell has started.
  var pid: pid_t?
  var startedAt = Timestamp(microseconds: 0)
  var stage = Stage.running
  var timedOut = false
  /// When its next timeout stage (SIGTERM, then SIGKILL) is due; nil when none is.
  var timeoutAt: Timestamp?

  init(_ waiting: WaitingRun, laneID: LaneID) {
    self.laneID = laneID
    request = waiting.request
    text = waiting.text
    firings = waiting.firings
    queuedAt = waiting.queuedAt
  }
}

/// What a binding's output pipes were read in the current second, against
/// `outputLinesPerSecond` and `outputBytesPerSecond`.
private struct OutputRate {
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

  /// The summary of a second in which the binding printed past the limit (always after a
  /// pause); nil when there is nothing to say.
  mutating func summarizeHeld(label: String, pausedFor pause: Microseconds?) -> LogMessage? {
    guard heldLines > 0 || pause != nil else { return nil }
    let limits =
      "\(ActionPolicy.outputLinesPerSecond) lines or \(ActionPolicy.outputBytesPerSecond / 1024) KiB a second"
    let paused = pause.map { ", its output not read for \(ActionPolicy.duration($0))" } ?? ""
    let message: LogMessage =
      "[\(label)] output past \(limits): \(heldLines) line\(heldLines == 1 ? "" : "s") "
      + "(\(heldBytes) bytes) not logged\(paused)"
    heldLines = 0
    heldBytes = 0
    return message
  }
}
