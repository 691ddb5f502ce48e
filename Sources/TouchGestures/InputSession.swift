import Dispatch
import GestureCore
import GesturedSystem
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A screen's source being read: a live device (with its event loop, deadline timer and
/// udev watcher) or a recording, on its own serial queue, away from the screen's queue.
final class InputSession: @unchecked Sendable {
  // @unchecked: every var is touched only on `queue`; `stopping` is atomic.
  let screen: TouchScreen
  let report: (@Sendable (SourceEvent) -> Void)?
  let queue = DispatchQueue(label: "TouchGestures.input")
  /// Set by `stop()` so that a recording being played gives up between batches.
  private let stopping = Atomic<Bool>(false)

  /// Events read from the device per wake-up, as the daemon's bound (see
  /// `Daemon.eventsPerWakeUp`): the rest stays in the kernel's buffer for the next one.
  static let eventsPerWakeUp = 256
  /// A deadline honoured later than this (the process was stopped, the machine slept)
  /// cancels its gesture instead, as in the daemon.
  static let lateDeadlineLimit: Microseconds = 2_000_000

  private enum Wanted {
    /// A node by the path given (`/dev/input/eventN` or a udev link to it) and the node it
    /// named at the start.
    case node(given: String, resolved: String)
    case match(Configuration)
  }

  private struct LiveDevice {
    var evdev: EvdevDevice
    var node: InputNode?
    var pipeline: Pipeline
    var token: EventMultiplexer.Token
  }

  private var wanted: Wanted?
  private var multiplexer: EventMultiplexer?
  private var timer: DeadlineTimer?
  private var watcher: UdevWatcher?
  private var logger: Logger?
  private var live: LiveDevice?
  /// Nodes present that were not taken, tried in order when the device goes.
  private var present: [String: InputNode] = [:]
  private var presentOrder: [String] = []

  init(screen: TouchScreen, report: (@Sendable (SourceEvent) -> Void)?) {
    self.screen = screen
    self.report = report
  }

  func start(_ source: TouchSource) {
    queue.async {
      switch source {
      case .recording(let path):
        self.play(path, realTime: false)
        // Played (or failed): the screen and this session no longer keep each other.
        self.screen.forget(self)
      case .realTimeRecording(let path):
        self.play(path, realTime: true)
        // Played (or failed): the screen and this session no longer keep each other.
        self.screen.forget(self)
      case .device(let path): self.startLive(.node(given: path, resolved: Self.resolved(path)))
      case .firstTouchscreen(let match):
        var profile = Profile(name: "TouchScreen")
        profile.match = match.core
        self.startLive(.match(Configuration(profiles: [profile])))
      }
    }
  }

  /// Waits until the input queue is idle, then closes everything: no firing is produced
  /// after this returns (those already sent to the screen's queue still run).
  func stop() {
    stopping.store(true, ordering: .releasing)
    queue.sync { self.shutDown() }
  }

  private func post(_ event: SourceEvent) {
    guard let report else { return }
    screen.delivery.send(.source(report, event))
  }

  // MARK: Recordings

  /// `realTime`: each event (and each deadline between them) waits for its time on the
  /// recording's clock, from the first event on, so that an app sees it as it happened.
  private func play(_ path: String, realTime: Bool) {
    // First pass: every line checked, so that a bad file fires nothing.
    var checker = EvemuStreamParser(file: path)
    let device: DeviceDescription?
    switch Self.read(path, with: &checker, events: { _ in }) {
    case .failure(let failure): return post(.failed(failure.message))
    case .success(let found): device = found
    }
    guard let device else {
      return post(.failed("\(path): no device description (N:, I:, P:, B:, A: lines) in this recording"))
    }
    guard var pipeline = Pipeline(screen: screen, device: device, node: nil) else {
      return post(.failed("\(path): device '\(device.name)' reports no touch position"))
    }
    post(.connected(name: device.name, path: path))
    var parser = EvemuStreamParser(file: path)
    var last = Timestamp(microseconds: 0)
    var clock = realTime ? RealTimePacer() : nil
    let played = Self.read(path, with: &parser) { batch in
      for event in batch {
        guard !self.stopping.load(ordering: .acquiring) else { return }
        if clock != nil {
          while let due = pipeline.nextDeadline, due < event.time {
            clock?.wait(until: due)
            pipeline.advance(to: due)
            pipeline.flush()
          }
          clock?.wait(until: event.time)
        }
        pipeline.refresh(at: event.time)
        pipeline.handle(event)
        // Each frame's handlers in turn, in the order of the frames.
        pipeline.flush()
      }
      last = batch.last?.time ?? last
    }
    if case .failure(let failure) = played { return post(.failed(failure.message)) }
    pipeline.finish(at: last)
    pipeline.flush()
    post(.finished(path: path))
  }

  /// Reads a recording in pieces, handing over its events; its description, or the error
  /// as `gestured replay` prints it.
  private static func read(
    _ path: String, with parser: inout EvemuStreamParser, events: ([RawEvent]) -> Void
  ) -> Result<DeviceDescription?, Failure> {
    do throws(InputFile.PieceError<RecordingError>) {
      try InputFile.forEachPiece(path: path) { (piece) throws(RecordingError) in
        try parser.feed(piece, events: events)
      }
    } catch {
      switch error {
      case .read(let error): return .failure(Failure("cannot read '\(path)': \(error)"))
      case .body(let error): return .failure(Failure("\(error.file):\(error.line): error: \(error.message)"))
      }
    }
    do {
      return .success(try parser.finish(events: events))
    } catch {
      return .failure(Failure("\(error.file):\(error.line): error: \(error.message)"))
    }
  }

  struct Failure: Error {
    var message: String
    init(_ message: String) { self.message = message }
  }

  // MARK: Live devices

  private func startLive(_ wanted: Wanted) {
    self.wanted = wanted
    let logger = Logger(sink: NoticeSink(session: self))
    self.logger = logger
    do {
      let multiplexer = try EventMultiplexer(queue: queue)
      self.multiplexer = multiplexer
      timer = try DeadlineTimer(multiplexer: multiplexer) { [unowned self] in self.deadlineReached() }
      // The app's threads are its own: a thread of the session's waits on the set and runs
      // what is ready on `queue`, with no hop per frame.
      try multiplexer.serveOnThreadOfItsOwn()
    } catch {
      post(.failed("cannot start reading touches: \(error)"))
      return screen.forget(self)
    }
    do {
      watcher = try UdevWatcher(multiplexer: multiplexer!, logger: logger) { [unowned self] change in
        self.udevChanged(change)
      }
    } catch {
      post(.notice("cannot watch for input devices (\(error)): a device plugged in later is not seen"))
    }
    if let watcher {
      for node in watcher.enumerate() { appeared(node) }
    }
    if live == nil, case .node(_, let path) = wanted {
      // Not a node udev knows (or no udev): opened directly, which says why it cannot be.
      open(path, node: nil)
    }
    if live == nil { postWaiting() }
    rearm()
  }

  /// Tells the app that nothing is read until a device wanted comes.
  private func postWaiting() {
    switch wanted {
    case .node(let given, _): post(.waiting(for: given))
    case .match: post(.waiting(for: "a touchscreen"))
    case nil: break
    }
  }

  /// A node is there: taken if nothing is being read and it is wanted, else remembered.
  private func appeared(_ node: InputNode) {
    guard node.isInitialized, node.sysname.hasPrefix("event") else { return }
    if present[node.syspath] == nil { presentOrder.append(node.syspath) }
    present[node.syspath] = node
    guard live == nil, let wanted else { return }
    switch wanted {
    case .node(let given, let resolved):
      // A link such as /dev/input/by-path/… follows its device to a new eventN on a replug.
      let links = node.properties["DEVLINKS"]?.split(separator: " ") ?? []
      if node.devnode == resolved || node.devnode == given || links.contains(Substring(given)) {
        open(node.devnode, node: node)
      }
    case .match(let configuration):
      guard node.isTouchscreen || configuration.profiles.contains(where: { $0.match != nil }) else { return }
      open(node.devnode, node: node, taking: configuration)
    }
  }

  private func open(_ devnode: String, node: InputNode?, taking configuration: Configuration? = nil) {
    guard let multiplexer else { return }
    let evdev: EvdevDevice
    do {
      evdev = try EvdevDevice(devnode: devnode, logger: logger)
    } catch {
      if configuration == nil || node?.isTouchscreen == true {
        let failure: SourceFailure
        if error.operation == .open, error.isPermissionDenied {
          failure = .permissionDenied(path: devnode, remedy: SourceFailure.inputGroupRemedy)
        } else if error.operation == .open, error.errno == .noSuchFileOrDirectory {
          failure = .absent(path: devnode)
        } else {
          failure = .unreadable(path: devnode, reason: "\(error)")
        }
        post(.unavailable(failure))
      }
      return
    }
    if let configuration, let node,
      DeviceSelection.profile(for: node, device: evdev.description, in: configuration) == nil
    {
      evdev.close()
      return
    }
    guard var pipeline = Pipeline(screen: screen, device: evdev.description, node: node) else {
      post(.notice("\(devnode) '\(evdev.description.name)': reports no touch position; left alone"))
      evdev.close()
      return
    }
    // Start from the kernel's positions, which it will not resend while they do not change.
    for event in evdev.currentPositions(at: MonotonicClock.now()) { pipeline.handle(event) }
    pipeline.flush()
    do {
      let token = try multiplexer.watch(evdev.fileDescriptor) { [unowned self] in self.readable() }
      live = LiveDevice(evdev: evdev, node: node, pipeline: pipeline, token: token)
      post(.connected(name: evdev.description.name, path: devnode))
    } catch {
      post(.notice("\(devnode): cannot watch: \(error)"))
      evdev.close()
    }
  }

  private func udevChanged(_ change: UdevWatcher.Change) {
    switch change {
    case .added(let node), .changed(let node):
      appeared(node)
    case .removed(let syspath, _):
      present[syspath] = nil
      presentOrder.removeAll { $0 == syspath }
      if live?.node?.syspath == syspath { close() }
    }
    rearm()
  }

  /// Stops reading the device (cancelling its gestures), then takes the next one wanted.
  private func close(lookingForAnother: Bool = true) {
    guard var device = live else { return }
    live = nil
    device.pipeline.cancel(at: MonotonicClock.now())
    multiplexer?.unwatch(device.token)
    device.evdev.close()
    post(.disconnected(path: device.evdev.devnode))
    guard lookingForAnother else { return }
    if let syspath = device.node?.syspath {
      present[syspath] = nil
      presentOrder.removeAll { $0 == syspath }
    }
    for syspath in presentOrder where live == nil {
      if let node = present[syspath] { appeared(node) }
    }
    if live == nil { postWaiting() }
  }

  private func readable() {
    drain()
    rearm()
  }

  /// Feeds at most `eventsPerWakeUp` pending events; true when more may be pending.
  @discardableResult
  private func drain() -> Bool {
    guard var device = live else { return false }
    live = nil
    var first = true
    let evdev = device.evdev
    let result = evdev.drain(atMost: Self.eventsPerWakeUp) { event in
      if first {
        first = false
        Self.cancelIfLate(&device.pipeline, now: event.time)
        device.pipeline.refresh(at: event.time)
      }
      device.pipeline.handle(event)
    }
    device.pipeline.flush()
    live = device
    switch result {
    case .drained: return false
    case .more: return true
    case .gone(let error):
      if error != .noSuchDevice { post(.notice("\(evdev.devnode): read failed: \(error)")) }
      close()
      return false
    }
  }

  private static func cancelIfLate(_ pipeline: inout Pipeline, now: Timestamp) {
    guard let due = pipeline.nextDeadline, now - due > lateDeadlineLimit else { return }
    pipeline.cancel(at: now)
  }

  private func deadlineReached() {
    // Events stamped before the deadline first, so that live and replay agree.
    guard !drain(), var device = live else { return rearm() }
    // Moved out while it runs, so that the pipeline is not copied.
    live = nil
    let now = MonotonicClock.now()
    Self.cancelIfLate(&device.pipeline, now: now)
    device.pipeline.refresh(at: now)
    device.pipeline.advance(to: now)
    device.pipeline.flush()
    live = device
    rearm()
  }

  private func rearm() {
    guard let timer else { return }
    let next = live?.pipeline.nextDeadline
    if next != timer.deadline { timer.schedule(at: next) }
  }

  private func shutDown() {
    close(lookingForAnother: false)
    wanted = nil
    watcher?.cancel()
    watcher = nil
    timer?.cancel()
    timer = nil
    multiplexer?.stopServing()
    multiplexer = nil
  }

  /// `/dev/input/by-path/…` links name the node udev reports.
  private static func resolved(_ path: String) -> String {
    guard let real = realpath(path, nil) else { return path }
    defer { free(real) }
    return String(cString: real)
  }
}

/// libevdev's and udev's log lines, as `SourceEvent.notice`.
private final class NoticeSink: OutputSink {
  private unowned let session: InputSession

  init(session: InputSession) { self.session = session }

  func write(_ text: String) {
    guard let report = session.report else { return }
    let line = String(text.hasSuffix("\n") ? text.dropLast() : text[...])
    session.screen.delivery.send(.source(report, .notice(line)))
  }
}

/// Waits until an event's time on a recording's clock has come on the monotonic clock, the
/// first event given being now.
struct RealTimePacer {
  private var origin: (recording: Timestamp, clock: Timestamp)?

  mutating func wait(until time: Timestamp) {
    guard let origin else {
      origin = (time, MonotonicClock.now())
      return
    }
    let due = origin.clock.microseconds + (time.microseconds - origin.recording.microseconds)
    let now = MonotonicClock.now().microseconds
    if due > now { usleep(UInt32(min(due - now, 1_000_000))) }
    if due - now > 1_000_000 { wait(until: time) }
  }
}
