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
/// A client of TouchGestures: recognition runs in the library's `GestureRecognizer`, the
/// same as in a `TouchScreen`, and each firing goes through its device's `BindingTable`
/// (indexed by binding) to the action runner, or is printed.
///
/// Split along its seams: this file holds its life (load, start, reload, stop);
/// Daemon+Devices the device table, Daemon+Reading the reading of events and the deadline
/// timer, Daemon+Dispatch where firings go.
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
    /// `gestured __recognizer`, started by the root launcher (Launcher.swift) without
    /// privileges: each firing goes to the launcher over the channel on descriptor 3, which
    /// also drives reloads.
    case recognizer
  }

  public struct Options: Sendable, Hashable {
    public var configPath: String
    public var verbose: Bool
    /// `monitor --pretty`: human text (`LiveView`) instead of JSON lines.
    public var pretty: Bool
    /// `monitor --continuous`: a JSON line per stream event too, as `replay --continuous`.
    public var continuous: Bool
    /// The recognizer: the config bytes the launcher accepted; it refuses to start on others.
    public var expectedIdentity: ConfigIdentity?
    /// The recognizer: its config, opened by the launcher (`recognizerConfigDescriptor`),
    /// which its own mount namespace and user may not reach by the path (/tmp, a home, a
    /// directory only root can enter); nil: read from `configPath`.
    public var configDescriptor: Int32?
    /// The recognizer: how many /dev/uinput descriptors for forwarding clones it inherited
    /// (as 5, 6, …).
    public var uinputDescriptors = 0

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
  /// The recognizer's end of the channel: the launcher hands it over as descriptor 3.
  public static let recognizerChannelDescriptor: Int32 = 3
  /// The recognizer's config, open for reading: descriptor 4; its /dev/uinput descriptors follow.
  public static let recognizerConfigDescriptor: Int32 = 4
  /// The most forwarding clones the recognizer can hold at once: the launcher opens this
  /// many /dev/uinput descriptors when the config forwards (fewer with a lower max-devices).
  public static let maximumPooledUinputDescriptors = 16
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
  var watcher: UdevWatcher?
  var runner: ActionRunner?
  /// Key and wheel bindings' virtual keyboard and pointer (actions mode only).
  var inputWriter: InputActionWriter?
  /// The event loop: every descriptor below, and the runner's, is watched in its one epoll
  /// set rather than through a Dispatch source each (see EventMultiplexer for why).
  var multiplexer: EventMultiplexer!
  var devices: [String: OpenDevice] = [:]
  /// Touchscreens no profile takes, logged once each.
  var leftAlone: Set<String> = []
  /// `max-devices`: nodes beyond it are not opened.
  var limit = DeviceLimit(maximum: Configuration.defaultMaximumDevices)
  /// The one deadline timer: a timerfd in the multiplexer, armed at the earliest deadline
  /// any engine asks for, disarmed when none does. Made in `start()`.
  var timer: DeadlineTimer?
  var signals: SignalReceiver?
  var watchdogTimer: DeadlineTimer?
  /// Signals the daemon handles, read from a signalfd (blocked in every thread by `run()`).
  static let handledSignals = [SIGHUP, SIGTERM, SIGINT]
  /// Reused for every drain, so reading events allocates nothing once it has grown.
  var firings: [GestureEvent] = []
  /// A wake-up's events, kept between wake-ups for its capacity (see `drain`).
  var eventBatch: [RawEvent] = []
  /// The config's `user:` names, looked up at each load (actions mode only).
  var users = ResolvedUsers() {
    didSet { runner?.users = users }
  }
  /// `monitor --pretty` only; nil otherwise, so nothing is formatted or kept for it.
  var liveView: LiveViewOutput?
  /// The recognizer's channel to the launcher, and the config generation both run.
  var channel: SeqPacketSocket?
  var generation: UInt32 = 1
  /// /dev/uinput descriptors the launcher passed with the reload request of `generation`,
  /// until the recognizer agrees (they join the pool) or refuses (they are closed).
  var pendingUinput: (generation: UInt32, descriptors: [Int32])?
  /// `monitor --continuous`: the engines report their streams and `fire` prints them.
  var printsStream: Bool { mode == .monitor && options.continuous }

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
    if mode == .recognizer && !RecognizerSandbox.rootIsReadOnly {
      logger.warning("the file system is writable for the recognizer (no private read-only mount namespace)")
    }
    let loadedOrFailure = loadIdentifiedConfiguration(
      path: options.configPath, descriptor: options.configDescriptor, logger: logger)
    if let descriptor = options.configDescriptor { Glibc.close(descriptor) }
    switch loadedOrFailure {
    case .failure(let code):
      return .failure(code)
    case .success(let loaded):
      if mode == .recognizer, loaded.identity != options.expectedIdentity {
        logger.error("\(options.configPath) changed since the launcher read it; not starting")
        return .failure(.badConfig)
      }
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
    loadIdentifiedConfiguration(path: path, logger: logger).map { ($0.configuration, $0.actions) }
  }

  /// As `loadConfiguration`, with which bytes it was read from (the launcher and the
  /// recognizer compare them); from `descriptor` when the launcher passed the file open.
  static func loadIdentifiedConfiguration(path: String, descriptor: Int32? = nil, logger: Logger) -> Result<
    (configuration: Configuration, actions: [ProfileActions], identity: ConfigIdentity), ExitCode
  > {
    let bytes: [UInt8]
    do {
      bytes = try readConfig(path: path, descriptor: descriptor)
    } catch {
      return .failure(logUnreadableConfig(error, path: path, logger: logger))
    }
    let result = ConfigLoader.parse(bytes: bytes, file: path)
    for diagnostic in result.diagnostics {
      logger.log(diagnostic.severity == .error ? .error : .warning, LogMessage(escaped: diagnostic.description))
    }
    guard let configuration = result.configuration else { return .failure(.badConfig) }
    return .success((configuration, result.actions, ConfigIdentity(of: bytes)))
  }

  /// Logs why the config was not read; the exit code that says it.
  static func logUnreadableConfig(_ error: ConfigPermissions.ReadError, path: String, logger: Logger) -> ExitCode {
    switch error {
    case .unsafe(let problem):
      logger.error("\(path): \(problem)")
      return .badConfig
    case .unreadable(let error):
      logger.error("cannot read config '\(path)': \(error)")
      return .missingFile
    }
  }

  static func readConfig(path: String, descriptor: Int32?) throws(ConfigPermissions.ReadError) -> [UInt8] {
    guard let descriptor else {
      return try ConfigPermissions.read(path: path, maximumSize: ConfigLoader.maximumFileSize)
    }
    do {
      return try InputFile.read(openDescriptor: descriptor, path: path, maximumSize: ConfigLoader.maximumFileSize)
    } catch {
      throw .unreadable(error)
    }
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

  func start() {
    signal(SIGPIPE, SIG_IGN)
    do {
      multiplexer = try EventMultiplexer(queue: queue)
      if mode == .actions {
        runner = ActionRunner(queue: queue, logger: logger, multiplexer: multiplexer)
        let writer = InputActionWriter(logger: logger)
        inputWriter = writer
        // The policy has applied the cooldown: the writer only writes.
        runner?.writeInput = { request in
          guard case .input(let input) = request.kind else { return }
          writer.write(
            input, key: request.key, label: request.label, firedAt: request.firedAt, cooldown: 0, oneShot: true)
        }
        provideInputDevices()
        runner?.users = users
      }
      timer = try DeadlineTimer(multiplexer: multiplexer) { [unowned self] in self.deadlineReached() }
      signals = try SignalReceiver(Self.handledSignals, multiplexer: multiplexer) { [unowned self] signal in
        if signal != SIGHUP {
          self.stop()
        } else if mode == .recognizer {
          logger.notice("SIGHUP ignored: the launcher reads the config and tells the recognizer")
        } else {
          self.reload()
        }
      }
      if mode == .recognizer { try openChannel() }
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
    ResidentMemory.returnUnusedPages()
    logger.notice("gestured started: \(statusText)")
    notifier?.ready(status: statusText)
    sendToLauncher(.ready(generation: generation, devices: devices.count))
    startWatchdog()
  }

  /// The virtual keyboard and pointer, when some binding of the config in force uses them.
  func provideInputDevices() {
    let used = actions.inputDevicesUsed
    inputWriter?.provide(keyboard: used.keyboard, pointer: used.pointer)
  }

  var statusText: String {
    let count = devices.count
    return count == 1 ? "1 touchscreen" : "\(count) touchscreens"
  }

  func startWatchdog() {
    watchdogTimer = startSystemdWatchdog(notifier: notifier, multiplexer: multiplexer, logger: logger)
  }

  func stop() {
    logger.notice("stopping")
    notifier?.stopping()
    // No `end:` commands start now: the service manager is about to stop the unit's processes.
    for syspath in Array(devices.keys) { close(syspath, runningEnds: false) }
    // Waiting runs will not start; running ones are left to finish (the service manager's
    // KillMode decides). A reload keeps both.
    runner?.dropWaitingRuns()
    // The launcher may be stopping first (it passed the SIGTERM on): no answer is needed.
    try? channel?.send(ChannelMessage.streamEnd(.stopping).encoded())
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
      adopt(new.configuration, actions: new.actions)
    }
    ResidentMemory.returnUnusedPages()
    notifier?.ready(status: statusText)
  }

  /// Puts a loaded config in force.
  /// `switched` runs once the devices the new config does not keep are closed (their ends
  /// fired under the old config) and before any device opens under the new one.
  func adopt(_ new: Configuration, actions newActions: [ProfileActions], switched: () -> Void = {}) {
    configuration = new
    actions = newActions
    if mode == .actions {
      users = Self.resolveUsers(of: newActions, logger: logger)
      provideInputDevices()
    }
    // Profiles are matched again on every device; a device whose profile did not change
    // stays open as it is, so the desktop never sees a forwarded panel's clone vanish.
    for (syspath, device) in devices where !keep(device) { close(syspath) }
    switched()
    leftAlone.removeAll()
    limit.reset(maximum: new.maximumDevices)
    enumerate()
    logger.notice("config reloaded: \(statusText)")
  }

}

/// WATCHDOG=1 at once, then every `watchdogInterval` (systemd asks for half its WatchdogSec),
/// from a timerfd in `multiplexer`'s loop: if that loop hangs, systemd notices. `beforeEachPing`
/// runs first at each ping (the launcher's check of its recognizer). nil when systemd asks
/// for no watchdog, or when the timer cannot be made (logged).
func startSystemdWatchdog(
  notifier: SystemdNotifier?, multiplexer: EventMultiplexer, logger: Logger, beforeEachPing: (() -> Void)? = nil
) -> DeadlineTimer? {
  guard let notifier, let interval = notifier.watchdogInterval else { return nil }
  // Weak: the timer owns this closure.
  weak var scheduled: DeadlineTimer?
  do {
    let watchdog = try DeadlineTimer(multiplexer: multiplexer) {
      beforeEachPing?()
      notifier.watchdog()
      scheduled?.schedule(at: MonotonicClock.now() + interval)
    }
    scheduled = watchdog
    watchdog.schedule(at: MonotonicClock.now())
    return watchdog
  } catch {
    logger.error("cannot start the watchdog timer, systemd will restart gestured: \(error)")
    return nil
  }
}
