import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon, and `gestured monitor`: live devices → the same pipeline as replay → actions
/// (or JSON lines).
///
/// A client of TouchGestures: each device's config profile becomes the library's
/// `GestureBindings`, whose handlers start the bound commands (or print the firings), and
/// recognition runs in the library's `GestureRecognizer`, the same as in a `TouchScreen`.
///
/// Everything runs on one serial Dispatch queue, from one event loop (EventMultiplexer: one
/// epoll set that the main thread waits on, running what is ready with `queue.sync`): the
/// signalfd, the udev monitor, the devices, one timerfd armed at the earliest deadline any
/// device's engine asks for (disarmed while nothing is pending), the watchdog's timerfd, and
/// the action runner's pipes, pidfds and timerfds. No global concurrent queue and no Swift
/// concurrency are used, so the daemon has one thread, asleep in epoll_wait while idle.
public final class Daemon: @unchecked Sendable {
  // @unchecked: every property is touched only on `queue`.

  public enum Mode: Sendable {
    /// Run the bound commands.
    case actions
    /// `gestured monitor`: print JSON lines, run nothing.
    case monitor
  }

  public struct Options: Sendable, Hashable {
    public var configPath: String
    public var verbose: Bool
    /// `monitor --pretty`: human text (`LiveView`) instead of JSON lines.
    public var pretty: Bool
    /// `monitor --continuous`: a JSON line per stream event too, as `replay --continuous`.
    public var continuous: Bool

    public init(
      configPath: String = Daemon.defaultConfigPath, verbose: Bool = false, pretty: Bool = false,
      continuous: Bool = false
    ) {
      self.configPath = configPath
      self.verbose = verbose
      self.pretty = pretty
      self.continuous = continuous
    }
  }

  public static let defaultConfigPath = "/etc/gestured/gestured.yaml"
  /// A deadline honoured later than this (gestured was stopped or starved, or the machine
  /// slept) cancels its gesture instead.
  static let lateDeadlineLimit: Microseconds = 2_000_000
  /// Events read from one device per wake-up, after which the other ready descriptors are
  /// served first (the rest stays in the kernel's buffer, and the level-triggered epoll set
  /// reports the device again): a device flooding events must not starve another panel.
  /// 256 holds several frames of a 10-finger panel (a frame is about 40 events), so a real
  /// panel is drained in one wake-up, and is far below the evdev buffer the kernel keeps for
  /// such a panel (a few thousand events), so a flood gives way after well under a
  /// millisecond of work.
  static let eventsPerWakeUp = 256

  /// What a binding's handler does with a firing: runs its command, or reports it.
  typealias FiringHandler = (GestureEvent) -> Void

  /// One opened device and its pipeline.
  final class OpenDevice {
    let node: InputNode
    let evdev: EvdevDevice
    // Variables: a reload may keep the device open under a new config.
    var profileIndex: Int
    var profile: Profile
    var actions: ProfileActions
    var recognizer: GestureRecognizer<FiringHandler>
    /// The recognizer's engine, in place (no copy per event).
    var engine: DeviceEngine {
      _read { yield recognizer.engine }
      _modify { yield &recognizer.engine }
    }
    /// `forward: true`, with its clone made: what does not become a gesture goes there.
    var forwarder: Forwarder?
    /// Set while the multiplexer watches the device's events (always, unless it is read at
    /// contact changes).
    var token: EventMultiplexer.Token?
    /// Read at contact changes (docs/devices.md): the batches' schedule, the doorbell's
    /// watch, and when the next batch is due (nil while no contact is down). nil when every
    /// frame is read as it comes.
    var batched: BatchedReading?
    var doorbellToken: EventMultiplexer.Token?
    var nextBatch: Timestamp?
    /// The device's SYN_DROPPEDs already looked at by `scheduleBatches`.
    var resyncsSeen = 0
    /// The kernel's time of the last event read.
    var lastEventTime: Timestamp?
    /// The engine's impossible-input count last logged.
    var impossibleLogged = 0
    var resyncLog = ResyncLog()

    init(
      node: InputNode, evdev: EvdevDevice, profileIndex: Int, profile: Profile, actions: ProfileActions,
      recognizer: GestureRecognizer<FiringHandler>
    ) {
      self.node = node
      self.evdev = evdev
      self.profileIndex = profileIndex
      self.profile = profile
      self.actions = actions
      self.recognizer = recognizer
    }

    var name: String { evdev.description.name }
  }

  /// Not the main queue, which only `dispatchMain()` serves (parking the main thread in a
  /// sigsuspend that unblocks every signal): the main thread serves the epoll set instead and
  /// enters this queue with `sync` for each wake-up.
  let queue = DispatchQueue(label: "gestured.daemon")
  let mode: Mode
  let options: Options
  let logger: Logger
  let output: any OutputSink
  let notifier: SystemdNotifier?
  private(set) var configuration: Configuration
  /// What each profile's bindings run, parallel to `configuration.profiles`.
  private(set) var actions: [ProfileActions]
  private var watcher: UdevWatcher?
  private var runner: ActionRunner?
  /// Key and wheel bindings' virtual keyboard and pointer (actions mode only).
  private var inputWriter: InputActionWriter?
  /// The event loop: every descriptor below, and the runner's, is watched in its one epoll
  /// set rather than through a Dispatch source each (see EventMultiplexer for why).
  private var multiplexer: EventMultiplexer!
  private var devices: [String: OpenDevice] = [:]
  /// Touchscreens no profile takes, logged once each.
  private var leftAlone: Set<String> = []
  /// `max-devices`: nodes beyond it are not opened.
  private var limit = DeviceLimit(maximum: Configuration.defaultMaximumDevices)
  /// The one deadline timer: a timerfd in the multiplexer, armed at the earliest deadline
  /// any engine asks for, disarmed when none does. Made in `start()`.
  private var timer: DeadlineTimer?
  private var signals: SignalReceiver?
  private var watchdogTimer: DeadlineTimer?
  /// Signals the daemon handles, read from a signalfd (blocked in every thread by `run()`).
  static let handledSignals = [SIGHUP, SIGTERM, SIGINT]
  /// Reused for every drain, so reading events allocates nothing once it has grown.
  private var firings: [GestureEvent] = []
  /// A wake-up's events, kept between wake-ups for its capacity (see `drain`).
  private var eventBatch: [RawEvent] = []
  /// The config's `user:` names, looked up at each load (actions mode only).
  private var users = ResolvedUsers() {
    didSet { runner?.users = users }
  }
  /// `monitor --pretty` only; nil otherwise, so nothing is formatted or kept for it.
  private var liveView: LiveViewOutput?
  /// `monitor --continuous`: the engines report their streams and `fire` prints them.
  private var printsStream: Bool { mode == .monitor && options.continuous }

  /// Loads the config (exit codes as `gestured check`) and prepares; `start()` runs.
  public static func make(
    mode: Mode, options: Options, output: any OutputSink, errors: any OutputSink,
    environment: [String: String]
  ) -> Result<Daemon, ExitCode> {
    let journal = JournalStream.stderrIsJournal(environment: environment)
    let logger = Logger(sink: NonBlockingLogSink.replacing(errors), journalPrefixes: journal, verbose: options.verbose)
    // Before the config is loaded: its max-devices is checked against the raised limit.
    if case .failure(let error) = OpenFileLimit.raiseToHardLimit() {
      logger.warning("cannot raise the open-file limit: \(error)")
    }
    switch loadConfiguration(path: options.configPath, logger: logger) {
    case .failure(let code):
      return .failure(code)
    case .success(let loaded):
      guard fitsDescriptorBudget(loaded.configuration, logger: logger) else { return .failure(.badConfig) }
      let notifier = mode == .actions ? SystemdNotifier(environment: environment, logger: logger) : nil
      let daemon = Daemon(
        mode: mode, options: options, configuration: loaded.configuration, actions: loaded.actions,
        logger: logger, output: output, notifier: notifier)
      if mode == .actions { daemon.users = resolveUsers(of: loaded.actions, logger: logger) }
      return .success(daemon)
    }
  }

  /// Refuses (logging why) a config whose `max-devices` would not fit under the open-file
  /// limit beside everything else the daemon keeps open.
  static func fitsDescriptorBudget(_ configuration: Configuration, logger: Logger) -> Bool {
    guard case .success(let limit) = OpenFileLimit.current() else { return true }
    guard let problem = DescriptorBudget.problem(maximumDevices: configuration.maximumDevices, limit: limit.soft)
    else { return true }
    logger.error("\(problem)")
    return false
  }

  /// Looks up the config's `user:` names once, at load; an unknown one is a warning (the
  /// user may be created later: a reload then finds it), and its actions fail to start.
  static func resolveUsers(of actions: [ProfileActions], logger: Logger) -> ResolvedUsers {
    let users = ResolvedUsers(actions: actions)
    for (name, error) in users.failures {
      logger.warning("user: \(name): \(error); its actions will not start until a reload finds it")
    }
    return users
  }

  private init(
    mode: Mode, options: Options, configuration: Configuration, actions: [ProfileActions], logger: Logger,
    output: any OutputSink, notifier: SystemdNotifier?
  ) {
    self.mode = mode
    self.options = options
    self.configuration = configuration
    self.actions = actions
    self.logger = logger
    self.output = output
    self.notifier = notifier
    limit.maximum = configuration.maximumDevices
    if mode == .monitor && options.pretty { liveView = LiveViewOutput(output: output) }
  }

  /// Reads and validates the config; logs every diagnostic. As root, a config others could
  /// change is refused (like sshd's StrictModes), at start and at every reload.
  static func loadConfiguration(path: String, logger: Logger) -> Result<
    (configuration: Configuration, actions: [ProfileActions]), ExitCode
  > {
    let bytes: [UInt8]
    do {
      bytes = try ConfigPermissions.read(path: path, maximumSize: ConfigLoader.maximumFileSize)
    } catch {
      switch error {
      case .unsafe(let problem):
        logger.error("\(path): \(problem)")
        return .failure(.badConfig)
      case .unreadable(let error):
        logger.error("cannot read config '\(path)': \(error)")
        return .failure(.missingFile)
      }
    }
    let result = ConfigLoader.parse(bytes: bytes, file: path)
    for diagnostic in result.diagnostics {
      logger.log(diagnostic.severity == .error ? .error : .warning, LogMessage(escaped: diagnostic.description))
    }
    guard let configuration = result.configuration else { return .failure(.badConfig) }
    return .success((configuration, result.actions))
  }

  // MARK: Running

  /// Starts on `queue`, then serves the event loop on the calling (main) thread; never
  /// returns (exit 0 on SIGTERM/SIGINT).
  public func run() -> Never {
    // Before any other thread can start (threads inherit the mask): the signals must wait
    // for the signalfd in every thread.
    SignalReceiver.block(Self.handledSignals)
    queue.sync { start() }
    multiplexer.run()
  }

  private func start() {
    signal(SIGPIPE, SIG_IGN)
    do {
      multiplexer = try EventMultiplexer(queue: queue)
      if mode == .actions {
        runner = ActionRunner(queue: queue, logger: logger, multiplexer: multiplexer)
        runner?.users = users
        inputWriter = InputActionWriter(logger: logger)
        provideInputDevices()
      }
      timer = try DeadlineTimer(multiplexer: multiplexer) { [unowned self] in self.deadlineReached() }
      signals = try SignalReceiver(Self.handledSignals, multiplexer: multiplexer) { [unowned self] signal in
        signal == SIGHUP ? self.reload() : self.stop()
      }
    } catch {
      logger.error("cannot start: \(error)")
      exit(ExitCode.systemError.rawValue)
    }
    do {
      // The monitor starts before enumeration so that nothing plugged in between is missed.
      watcher = try UdevWatcher(multiplexer: multiplexer, logger: logger) { [unowned self] change in
        self.udevChanged(change)
      }
    } catch {
      logger.error("cannot watch for input devices: \(error)")
      exit(ExitCode.systemError.rawValue)
    }
    enumerate()
    logger.notice("gestured started: \(statusText)")
    notifier?.ready(status: statusText)
    startWatchdog()
  }

  /// The virtual keyboard and pointer, when some binding of the config in force uses them.
  private func provideInputDevices() {
    let used = actions.inputDevicesUsed
    inputWriter?.provide(keyboard: used.keyboard, pointer: used.pointer)
  }

  private var statusText: String {
    let count = devices.count
    return count == 1 ? "1 touchscreen" : "\(count) touchscreens"
  }

  /// WATCHDOG=1 at once, then every `watchdogInterval` (systemd asks for half its
  /// WatchdogSec), from a timerfd in the event loop: if the loop hangs, systemd notices.
  private func startWatchdog() {
    guard let notifier, let interval = notifier.watchdogInterval else { return }
    do {
      let watchdog = try DeadlineTimer(multiplexer: multiplexer) { [unowned self] in
        notifier.watchdog()
        self.watchdogTimer?.schedule(at: MonotonicClock.now() + interval)
      }
      watchdog.schedule(at: MonotonicClock.now())
      watchdogTimer = watchdog
    } catch {
      logger.error("cannot start the watchdog timer, systemd will restart gestured: \(error)")
    }
  }

  private func stop() {
    logger.notice("stopping")
    notifier?.stopping()
    // No `end:` commands start now: the service manager is about to stop the unit's processes.
    for syspath in Array(devices.keys) { close(syspath, runningEnds: false) }
    // Waiting runs will not start; running ones are left to finish (the service manager's
    // KillMode decides). A reload keeps both.
    runner?.dropWaitingRuns()
    exit(ExitCode.success.rawValue)
  }

  /// SIGHUP: the new file is parsed and validated first; with an error the old config stays
  /// in force. Either way READY=1 follows.
  func reload() {
    notifier?.reloading(monotonicMicroseconds: MonotonicClock.now().microseconds)
    logger.notice("reloading \(options.configPath)")
    switch Self.loadConfiguration(path: options.configPath, logger: logger) {
    case .failure:
      logger.error("the new config has errors; keeping the previous one")
    case .success(let new) where !Self.fitsDescriptorBudget(new.configuration, logger: logger):
      logger.error("the new config cannot be met; keeping the previous one")
    case .success(let new):
      configuration = new.configuration
      actions = new.actions
      if mode == .actions {
        users = Self.resolveUsers(of: new.actions, logger: logger)
        provideInputDevices()
      }
      // Profiles are matched again on every device; a device whose profile did not change
      // stays open as it is, so the desktop never sees a forwarded panel's clone vanish.
      for (syspath, device) in devices where !keep(device) { close(syspath) }
      leftAlone.removeAll()
      limit.reset(maximum: new.configuration.maximumDevices)
      enumerate()
      logger.notice("config reloaded: \(statusText)")
    }
    notifier?.ready(status: statusText)
  }

  /// After a reload: whether `device` stays open. It does when the new config gives it the
  /// same profile (only its commands may have changed), and when it was and stays forwarded
  /// (the clone stays; a new engine starts, and the clone's contacts are released).
  private func keep(_ device: OpenDevice) -> Bool {
    guard
      let index = DeviceSelection.profile(for: device.node, device: device.evdev.description, in: configuration)
    else { return false }
    let profile = DeviceSelection.effectiveProfile(configuration.profiles[index], node: device.node)
    let profileActions = actions.indices.contains(index) ? actions[index] : ProfileActions()
    if profile == device.profile {
      device.profileIndex = index
      device.actions = profileActions
      // Same bindings (same indices), new commands: the handlers are remade, the engine kept.
      device.recognizer.bindings = firingHandlers(
        profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
        deviceName: device.name)
      logger.info("\(device.node.devnode) '\(device.name)': profile '\(profile.name)' (unchanged: kept open)")
      return true
    }
    guard profile.forward, let forwarder = device.forwarder,
      let (recognizer, _) = makeRecognizer(
        profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
        evdev: device.evdev)
    else { return false }
    firings.removeAll(keepingCapacity: true)
    device.engine.cancel(at: MonotonicClock.now(), into: &firings)
    fire(device)
    forwarder.releaseAll()
    device.recognizer = recognizer
    device.profile = profile
    device.profileIndex = index
    device.actions = profileActions
    logger.info("\(device.node.devnode) '\(device.name)': profile '\(profile.name)' (reloaded; its clone stays)")
    return true
  }

  /// A device's recognizer for `profile`, started from the kernel's positions (which it
  /// will not resend while they do not change), and those positions; nil when the device
  /// reports no touch position.
  private func makeRecognizer(
    profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, evdev: EvdevDevice
  ) -> (GestureRecognizer<FiringHandler>, positions: [RawEvent])? {
    let bindings = firingHandlers(
      profile: profile, profileIndex: profileIndex, actions: actions, devnode: devnode,
      deviceName: evdev.description.name)
    guard var recognizer = GestureRecognizer(device: evdev.description, bindings: bindings) else { return nil }
    recognizer.engine.tracing = options.verbose
    recognizer.engine.keepsRecords = liveView != nil
    recognizer.engine.reportsStream = printsStream
    var nothing: [GestureEvent] = []
    let positions = evdev.currentPositions(at: MonotonicClock.now())
    for event in positions { recognizer.engine.handle(event, into: &nothing) }
    recognizer.engine.clearDispositions()
    recognizer.engine.clearStreamEvents()
    return (recognizer, positions)
  }

  // MARK: Devices

  private func enumerate() {
    guard let watcher else { return }
    for node in watcher.enumerate() { consider(node) }
    rearm()
  }

  private func udevChanged(_ change: UdevWatcher.Change) {
    switch change {
    case .added(let node):
      consider(node)
    case .changed(let node):
      if devices[node.syspath] == nil { consider(node) }
    case .removed(let syspath, _):
      close(syspath)
      leftAlone.remove(syspath)
      limit.forget(syspath)
    }
    notifier?.status(statusText)
    rearm()
  }

  /// Opens the node if a profile takes it.
  private func consider(_ node: InputNode) {
    guard node.isInitialized, node.sysname.hasPrefix("event"), devices[node.syspath] == nil else { return }
    // gestured's own keyboard and pointer are not even opened.
    if let writer = inputWriter, writer.devnodes.contains(node.devnode) { return }
    // Only touchscreens, or nodes an explicit match may select, are worth opening.
    guard node.isTouchscreen || configuration.profiles.contains(where: { $0.match != nil }) else { return }
    if case .refuse(let log) = limit.admit(node.syspath, openCount: devices.count) {
      if log { logger.warning(DeviceLimit.message(devnode: node.devnode, maximum: limit.maximum)) }
      return
    }
    let evdev: EvdevDevice
    do {
      evdev = try EvdevDevice(devnode: node.devnode, logger: logger)
    } catch {
      if node.isTouchscreen { logger.warning("\(node.devnode): cannot open: \(error)") }
      return
    }
    // By its phys, and by its node for a clone of this very process (whatever its phys).
    if UinputClone.isClone(phys: evdev.description.phys)
      || devices.values.contains(where: { $0.forwarder?.clone.devnode == node.devnode })
    {
      if leftAlone.insert(node.syspath).inserted {
        logger.info("\(node.devnode) '\(evdev.description.name)': gestured's own forwarding clone; left alone")
      }
      evdev.close()
      return
    }
    if VirtualInputDevice.isVirtualInput(phys: evdev.description.phys) {
      if leftAlone.insert(node.syspath).inserted {
        logger.info("\(node.devnode) '\(evdev.description.name)': gestured's virtual keyboard or pointer; left alone")
      }
      evdev.close()
      return
    }
    guard let index = DeviceSelection.profile(for: node, device: evdev.description, in: configuration) else {
      if node.isTouchscreen, leftAlone.insert(node.syspath).inserted {
        logger.info("\(node.devnode) '\(evdev.description.name)': no profile takes this touchscreen; left alone")
      }
      evdev.close()
      return
    }
    let profile = DeviceSelection.effectiveProfile(configuration.profiles[index], node: node)
    let profileActions = actions.indices.contains(index) ? actions[index] : ProfileActions()
    guard
      let (recognizer, positions) = makeRecognizer(
        profile: profile, profileIndex: index, actions: profileActions, devnode: node.devnode, evdev: evdev)
    else {
      logger.warning("\(node.devnode) '\(evdev.description.name)': reports no touch position; left alone")
      evdev.close()
      return
    }
    var grabbed = false
    if profile.grab {
      do {
        try evdev.grab(true)
        grabbed = true
      } catch {
        logger.warning("\(node.devnode): cannot grab: \(error)\(profile.forward ? "; not forwarding" : "")")
      }
    }
    var forwarder: Forwarder?
    if profile.forward && grabbed {
      do {
        let clone = try evdev.makeClone()
        forwarder = Forwarder(
          clone: clone, device: evdev.description, devnode: node.devnode, logger: logger, positions: positions)
        logger.info(
          "\(node.devnode): forwarding every touch that is not a gesture to its clone \(clone.devnode ?? "(no node yet)")"
        )
      } catch {
        // Grabbed without a clone, the desktop would get no touch at all: rather let it have
        // every touch, gestures included, as without forward.
        logger.error("\(node.devnode): \(error); not grabbed, so the desktop still gets every touch")
        try? evdev.grab(false)
      }
    }
    let device = OpenDevice(
      node: node, evdev: evdev, profileIndex: index, profile: profile, actions: profileActions,
      recognizer: recognizer)
    device.forwarder = forwarder
    // A forwarder, the live view and the printed stream act at every frame, a grab keeps the
    // doorbell deaf, and a bound pan, pinch or rotation fires on moves: those read every frame.
    if forwarder == nil, !grabbed, liveView == nil, !printsStream, !recognizer.engine.firesBetweenContactChanges,
      let batched = BatchedReading(device: evdev.description)
    {
      do {
        try evdev.openDoorbell()
        if let doorbell = evdev.doorbellDescriptor {
          device.doorbellToken = try multiplexer.watch(doorbell, edgeTriggered: true) {
            [unowned self, unowned device] in
            self.contactChanged(device)
          }
          device.batched = batched
        }
      } catch {
        logger.info("\(node.devnode): reading every frame: \(error)")
        evdev.closeDoorbell()
      }
    }
    do {
      if device.batched == nil { try watchEveryFrame(device) }
    } catch {
      logger.warning("\(node.devnode): cannot watch: \(error)")
      forwarder?.close()
      evdev.close()
      return
    }
    devices[node.syspath] = device
    let geometry = recognizer.engine.geometry
    logger.info(
      "\(node.devnode) '\(evdev.description.name)': profile '\(profile.name)', protocol \(evdev.description.touchProtocol.map { "\($0)" } ?? "?"), \(Self.wholeMillimetres(geometry.width))×\(Self.wholeMillimetres(geometry.height)) mm\(geometry.sizeSource == .guessed ? " (guessed: set size: in the profile)" : ""), read \(device.batched != nil ? "at contact changes" : "at every frame")"
    )
    if let liveView {
      liveView.deviceAdded(
        devnode: node.devnode, name: device.name, profile: profile, geometry: geometry, at: MonotonicClock.now())
    } else if mode == .monitor {
      report(event: "added", device: device)
    }
  }

  /// A panel side for the log; a device's axis ranges can make it too large for an Int.
  static func wholeMillimetres(_ value: Double) -> String {
    Int64(exactly: value.rounded()).map(String.init) ?? "?"
  }

  /// Closes a device: its in-flight gestures are cancelled, nothing new fires from them;
  /// steps that were going end (their `end:` commands run, unless `runningEnds` is false).
  private func close(_ syspath: String, runningEnds: Bool = true) {
    guard let device = devices.removeValue(forKey: syspath) else { return }
    firings.removeAll(keepingCapacity: true)
    device.engine.cancel(at: MonotonicClock.now(), into: &firings)
    if runningEnds { fire(device) }
    firings.removeAll(keepingCapacity: true)
    // The clone first, released and gone, then the panel goes back to the desktop.
    device.forwarder?.close()
    device.forwarder = nil
    if device.profile.grab { try? device.evdev.grab(false) }
    if let token = device.token { multiplexer.unwatch(token) }
    if let token = device.doorbellToken { multiplexer.unwatch(token) }
    if let count = device.resyncLog.takeUnlogged() {
      logger.warning(ResyncLog.message(devnode: device.node.devnode, count: count, closing: true))
    }
    device.evdev.close()
    logger.info("\(device.node.devnode) '\(device.name)': removed")
    if let liveView {
      liveView.deviceRemoved(devnode: device.node.devnode, at: MonotonicClock.now())
    } else if mode == .monitor {
      report(event: "removed", device: device)
    }
  }

  private func report(event: String, device: OpenDevice) {
    var json = JSONLine()
    json.add("event", event)
    json.add("time", MonotonicClock.now())
    json.add("devnode", device.node.devnode)
    json.add("device", device.name)
    json.add("profile", device.profile.name)
    output.write(json.line + "\n")
  }

  // MARK: Events and deadlines

  private func readable(_ device: OpenDevice) {
    drain(device)
    if device.batched != nil { scheduleBatches(device) }
    rearm()
  }

  /// Watches the device's events: every frame wakes the daemon.
  private func watchEveryFrame(_ device: OpenDevice) throws(SystemError) {
    guard device.token == nil else { return }
    device.token = try multiplexer.watch(device.evdev.fileDescriptor) { [unowned self, unowned device] in
      self.readable(device)
    }
  }

  // MARK: Reading at contact changes

  /// A batched device's doorbell rang: a contact landed or lifted (or the device is gone,
  /// which the batch's read finds).
  private func contactChanged(_ device: OpenDevice) {
    let complete = readBatch(device)
    if !device.evdev.isClosed { scheduleBatches(device, behind: !complete) }
    rearm()
  }

  /// Reads everything a batched device has pending (drain by drain, so that a batch is
  /// handled as a wake-up's events are). False when more is still pending after
  /// `batchLimit` drains (a flood): the next batch is then due at once.
  private func readBatch(_ device: OpenDevice) -> Bool {
    for _ in 0..<Self.batchLimit {
      guard drain(device) else { return true }
    }
    return false
  }

  /// Drains per batch: the kernel's buffer for a ten-finger panel is a few thousand events,
  /// a few drains of `eventsPerWakeUp`.
  static let batchLimit = 32

  /// After a batched device's events were read (at `time`, the timer's, or the last
  /// event's): whether its every frame must be read for now, and when its next batch is
  /// due. A device whose buffer overflowed before its batch was due (no batch was due:
  /// frames with no contact down; or the schedule was wrong for it) is read at every frame
  /// from then on; one that overflowed after it (the daemon was stopped or starved) is not.
  private func scheduleBatches(_ device: OpenDevice, readAt time: Timestamp? = nil, behind: Bool = false) {
    guard let batched = device.batched, !device.evdev.isClosed else { return }
    if device.evdev.resyncs > device.resyncsSeen {
      device.resyncsSeen = device.evdev.resyncs
      if let dropped = device.evdev.lastResync, device.nextBatch.map({ dropped < $0 }) ?? true {
        readEveryFrame(device)
        return
      }
    }
    let everyFrame = device.engine.firesBetweenContactChanges
    do {
      if everyFrame {
        try watchEveryFrame(device)
      } else if let token = device.token {
        multiplexer.unwatch(token)
        device.token = nil
      }
    } catch {
      logger.warning("\(device.node.devnode): cannot watch: \(error)")
      close(device.node.syspath)
      return
    }
    // The later of the two (not through an array: this runs at every wake-up of the device).
    let base: Timestamp? =
      switch (time, device.lastEventTime) {
      case (let a?, let b?): max(a, b)
      case (let a, let b): a ?? b
      }
    guard !everyFrame, let base else {
      device.nextBatch = nil
      return
    }
    let contacts = device.engine.contactsDown
    device.nextBatch = behind ? base : batched.nextBatch(after: base, contacts: contacts)
    if options.verbose, let next = device.nextBatch {
      logger.debug(
        "\(device.node.devnode): next batch of moves at \(next) (\(contacts) down, a frame every \(batched.scanPeriod) µs)"
      )
    }
  }

  /// Ends reading `device` at contact changes: its doorbell goes, its every frame is read.
  private func readEveryFrame(_ device: OpenDevice) {
    device.batched = nil
    device.nextBatch = nil
    if let token = device.doorbellToken { multiplexer.unwatch(token) }
    device.doorbellToken = nil
    device.evdev.closeDoorbell()
    logger.warning(
      "\(device.node.devnode): reading every frame from now on: the kernel dropped events before the next batch of moves was due"
    )
    do {
      try watchEveryFrame(device)
    } catch {
      logger.warning("\(device.node.devnode): cannot watch: \(error)")
      close(device.node.syspath)
    }
  }

  /// Feeds what the device has pending, at most `eventsPerWakeUp` events, through its engine
  /// and fires what it recognized. No clock is read: events carry the kernel's time. True
  /// when it stopped at that bound, with more events possibly pending.
  @discardableResult
  private func drain(_ device: OpenDevice) -> Bool {
    firings.removeAll(keepingCapacity: true)
    let result: EvdevDevice.DrainResult
    if device.forwarder != nil || liveView != nil {
      result = drainEventByEvent(device)
    } else {
      // Nothing needs the engine between two events: the wake-up's events go to it in one
      // call, not one exclusivity-checked access to this class's engine per event.
      var batch: [RawEvent] = []
      swap(&batch, &eventBatch)
      batch.removeAll(keepingCapacity: true)
      result = device.evdev.drain(atMost: Self.eventsPerWakeUp) { batch.append($0) }
      if let first = batch.first {
        cancelIfLate(device, now: first.time)
        batch.withUnsafeBufferPointer { device.engine.handle(events: $0, into: &firings) }
        device.lastEventTime = batch[batch.count - 1].time
        if device.batched != nil {
          for event in batch where event.type == EventType.syn && event.code == SynCode.report {
            device.batched?.sawFrame(at: event.time)
          }
          device.batched?.batchEnded()
        }
      }
      swap(&batch, &eventBatch)
    }
    fire(device)
    if let time = device.evdev.lastResync,
      let count = device.resyncLog.update(total: device.evdev.resyncs, lastAt: time)
    {
      logger.warning(ResyncLog.message(devnode: device.node.devnode, count: count))
    }
    switch result {
    case .drained:
      return false
    case .more:
      return true
    case .gone(let error):
      if error != .noSuchDevice { logger.warning("\(device.node.devnode): read failed: \(error)") }
      close(device.node.syspath)
      return false
    }
  }

  /// A wake-up's events one at a time, for a forwarder (which passes or holds each frame as
  /// the engine decides) or the live view (which shows each frame).
  private func drainEventByEvent(_ device: OpenDevice) -> EvdevDevice.DrainResult {
    let forwarder = device.forwarder
    let resynchronizing: () -> Void = { forwarder?.resynchronizing() }
    var first = true
    return device.evdev.drain(atMost: Self.eventsPerWakeUp, resynchronizing: resynchronizing) { event in
      if first {
        first = false
        cancelIfLate(device, now: event.time)
      }
      device.engine.handle(event, into: &firings)
      forwarder?.handled(event, engine: &device.engine)
      if let liveView, let frame = device.engine.completedFrame {
        // The frame first: what the fingers did, then what the recognizers made of it.
        liveView.frame(frame, devnode: device.node.devnode)
        liveView.records(device.engine.takeRecords(), devnode: device.node.devnode)
      }
    }
  }

  /// After a suspend, a deadline long past is not honoured: its gesture is cancelled. `now`
  /// is the first event a wake-up read: a deadline this far before it was not honoured in
  /// time (the daemon was stopped or starved), so it is cancelled rather than fired late.
  private func cancelIfLate(_ device: OpenDevice, now: Timestamp) {
    guard let due = device.engine.nextDeadline, now - due > Self.lateDeadlineLimit else { return }
    logger.info(
      "\(device.node.devnode): a gesture's deadline passed \((now - due) / 1000) ms ago (suspended?); cancelled")
    firings.removeAll(keepingCapacity: true)
    device.engine.cancel(at: now, into: &firings)
    device.forwarder?.releaseAll()
    fire(device)
  }

  private func deadlineReached() {
    // Events stamped before the deadline must be seen first, so live and replay agree. A
    // device with more than `eventsPerWakeUp` pending is not advanced now: its events come
    // first (the engine runs a deadline when an event passes it), and the timer, rearmed at
    // the deadline still due, comes back at once for the next batch. A batched device is
    // read whole; the timer may have come for its next batch alone.
    let due = timer?.lastDue
    var behind: Set<ObjectIdentifier> = []
    for device in Array(devices.values) {
      let more = device.batched != nil ? !readBatch(device) : drain(device)
      if more { behind.insert(ObjectIdentifier(device)) }
    }
    // Only an engine's deadline needs the clock (the time to advance to); a batch's does not.
    let enginesDue = devices.values.contains { device in
      device.engine.nextDeadline.map { next in due.map { next <= $0 } ?? true } ?? false
    }
    if enginesDue {
      let now = MonotonicClock.now()
      for device in devices.values where !behind.contains(ObjectIdentifier(device)) {
        cancelIfLate(device, now: now)
        firings.removeAll(keepingCapacity: true)
        device.engine.advance(to: now, into: &firings)
        device.forwarder?.advanced(&device.engine)
        fire(device)
      }
    }
    for device in Array(devices.values) where device.batched != nil {
      scheduleBatches(device, readAt: due, behind: behind.contains(ObjectIdentifier(device)))
    }
    rearm()
  }

  /// Arms the one timer at the earliest deadline, or disarms it: an idle daemon never wakes.
  /// A batched device's deadlines that cannot fire anything are not waited for: they run
  /// when its next batch, landing or lift is read (`DeviceEngine.nextFiringDeadline`).
  private func rearm() {
    var next: Timestamp? = nil
    for device in devices.values {
      let deadline = device.batched != nil ? device.engine.nextFiringDeadline : device.engine.nextDeadline
      if let due = deadline, next.map({ due < $0 }) ?? true { next = due }
      if let due = device.nextBatch, next.map({ due < $0 }) ?? true { next = due }
    }
    guard let timer, next != timer.deadline else { return }
    timer.schedule(at: next)
  }

  private func fire(_ device: OpenDevice) {
    if options.verbose {
      for line in device.engine.takeTrace() { logger.debug("\(device.node.devnode): \(line)") }
    }
    let impossibleInputs = device.engine.impossibleInputs
    if impossibleInputs > device.impossibleLogged {
      logger.warning(
        "\(device.node.devnode): \(impossibleInputs - device.impossibleLogged) impossible input(s) ignored (a bug: run with --verbose to see them)"
      )
      device.impossibleLogged = impossibleInputs
    }
    liveView?.records(device.engine.takeRecords(), devnode: device.node.devnode)
    // The handlers themselves, not `recognizer.handler(for:)`: a call on the recognizer
    // from this class's storage is passed a copy of all of it, the engine too.
    let handlers = firings.isEmpty ? [] : device.recognizer.bindings.handlers
    let stream = printsStream ? device.engine.streamEvents : []
    var nextStream = stream.startIndex
    // A frame's stream lines go before its firings, as replay prints them.
    func printStream(through time: Timestamp?) {
      while nextStream < stream.endIndex, time.map({ stream[nextStream].time <= $0 }) ?? true {
        if let line = StreamReport.jsonLine(
          file: device.node.devnode, deviceName: device.name, profile: device.profile, event: stream[nextStream])
        {
          output.write(line + "\n")
        }
        nextStream += 1
      }
    }
    defer {
      printStream(through: nil)
      if !stream.isEmpty { device.engine.clearStreamEvents() }
    }
    for event in firings {
      printStream(through: event.time)
      guard handlers.indices.contains(event.binding) else {
        logger.error("\(device.node.devnode): a gesture named a binding the profile does not have (a bug)")
        continue
      }
      handlers[event.binding](event)
    }
    firings.removeAll(keepingCapacity: true)
    liveView?.show()
  }

  /// The config's bindings of one device as the library's: each binding's handler runs its
  /// command (or, for `gestured monitor`, prints the firing). Called on `queue`, as are the
  /// handlers.
  private func firingHandlers(
    profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, deviceName: String
  ) -> GestureBindings<FiringHandler> {
    // The daemon's PATH does not change while it runs: read once for every binding.
    let path = mode == .actions ? ActionEnvironment.currentPath() : nil
    let isRoot = geteuid() == 0
    return GestureBindings(profile: profile) { index in
      let run =
        mode == .actions
        ? BindingRun(
          profile: profile, profileIndex: profileIndex, actions: actions, binding: index, devnode: devnode,
          deviceName: deviceName,
          path: ActionEnvironment.startingPath(
            user: actions.action(ofBinding: index)?.user ?? actions.user, daemonPath: path, daemonIsRoot: isRoot)
        ) : nil
      return { [unowned self] event in
        self.perform(
          event, profile: profile, actions: actions, devnode: devnode, deviceName: deviceName, run: run)
      }
    }
  }

  /// What every firing of one binding on one device hands the runner alike, made with the
  /// binding's handler (when the device opens and at a reload) rather than at each firing:
  /// the runner's key and label and the environment's shared part (ActionEnvironment.Shared).
  struct BindingRun {
    /// The runner's key: one running instance per profile and binding.
    let key: String
    /// "profile/binding", prefixing the binding's lines in the log.
    let label: String
    let environment: ActionEnvironment.Shared

    /// `path`: the binding's actions' `PATH` (ActionEnvironment.startingPath).
    init(
      profile: Profile, profileIndex: Int, actions: ProfileActions, binding: Int, devnode: String,
      deviceName: String, path: String?
    ) {
      let bindingName = profile.displayName(ofBinding: binding)
      key = "\(profileIndex)#\(binding)"
      label = "\(profile.name)/\(bindingName)"
      environment = ActionEnvironment.Shared(
        profileName: profile.name, profileEnvironment: actions.environment, bindingName: bindingName,
        bindingEnvironment: actions.action(ofBinding: binding)?.environment ?? [:], deviceName: deviceName,
        devnode: devnode, path: path)
    }

    /// The request for one of the binding's firings, which runs `command`.
    func request(for firing: ResolvedFiring, command: String, devnode: String) -> ActionRunner.Request {
      ActionRunner.Request(
        key: key, label: label, command: command,
        environment: ActionEnvironment(firing: firing, shared: environment), timeout: firing.action.timeout,
        cooldown: firing.action.cooldown, user: firing.user, firedAt: firing.event.time,
        schedule: Daemon.schedule(of: firing.event, devnode: devnode))
    }
  }

  private func perform(
    _ event: GestureEvent, profile: Profile, actions: ProfileActions, devnode: String, deviceName: String,
    run: BindingRun?
  ) {
    guard let firing = ResolvedFiring(event: event, profile: profile, actions: actions) else {
      logger.error("\(devnode): a gesture named a binding the profile does not have (a bug)")
      return
    }
    // End events of bindings without `end:` are neither run nor reported.
    guard firing.isReported else { return }
    switch mode {
    case .monitor:
      if let liveView {
        liveView.fired(firing, devnode: devnode)
      } else {
        output.write(FiringReport.jsonLine(file: devnode, deviceName: deviceName, firing: firing) + "\n")
      }
    case .actions:
      guard let run else { return }  // made for every binding in this mode
      if let input = firing.input {
        inputWriter?.write(
          input, key: run.key, label: run.label, firedAt: event.time, cooldown: firing.action.cooldown,
          oneShot: event.phase == .oneShot)
      } else if let command = firing.command {
        runner?.run(run.request(for: firing, command: command, devnode: devnode))
      }
    }
  }

  /// How the runner schedules a firing's run. Steps and ends queue in the stream of one
  /// device's touch sequence × gesture kind (pinch in and out alike, every pan direction),
  /// e.g. "/dev/input/event5#12/pinch".
  static func schedule(of event: GestureEvent, devnode: String) -> ActionRunner.Request.Schedule {
    func stream() -> String { "\(devnode)#\(event.sequence)/\(event.gesture.rawValue)" }
    switch event.phase {
    case .oneShot: return .oneShot
    case .step: return .step(stream: stream())
    case .end: return .end(stream: stream())
    }
  }
}
