import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon started as root: a minimal launcher that reads and validates the config
/// itself, starts `gestured __recognizer` as an unprivileged user (devices, udev,
/// recognition, forwarding: every parser of untrusted input), and from then on only
/// receives which binding fired, checks it against its own config and runs the bound action
/// as its user through the action runner. Key and wheel bindings' virtual devices are the
/// launcher's: the recognizer never holds /dev/uinput for them.
///
/// If the recognizer dies, the launcher exits non-zero and the service manager restarts
/// both (Restart=on-failure in the unit), rather than restarting it here.
public final class Launcher: @unchecked Sendable {
  // @unchecked: every property is touched only on `queue`.

  /// Who the recognizer runs as: the package's system user, else `nobody`.
  public static let recognizerUser = "gestured"
  public static let fallbackUser = "nobody"
  public static let inputGroup = "input"

  let queue = DispatchQueue(label: "gestured.launcher")
  let options: Daemon.Options
  let logger: Logger
  let notifier: SystemdNotifier?
  var configuration: Configuration
  var actions: [ProfileActions]
  var generation: UInt32 = 1
  /// A config the launcher accepted, until the recognizer agrees or refuses, and whether
  /// /dev/uinput descriptors went with its request.
  var pending: (generation: UInt32, configuration: Configuration, actions: [ProfileActions], passedUinput: Bool)?
  /// Whether the recognizer holds /dev/uinput descriptors for forwarding (from its start or
  /// an agreed reload): a reload that makes a profile forward passes some only when not.
  var recognizerHoldsUinput = false
  /// Tests only: stands for opening /dev/uinput descriptors for a config.
  var openUinput: ((Configuration) -> [Int32])?
  /// Tests only: takes the checked requests instead of the action runner.
  var runAction: ((ActionRunner.Request) -> Void)?
  var multiplexer: EventMultiplexer!
  var runner: ActionRunner?
  var inputWriter: InputActionWriter?
  var signals: SignalReceiver?
  var channel: SeqPacketSocket?
  var recognizer: ChildProcess?
  var watchdogTimer: DeadlineTimer?
  /// The device of the last message that named one (ChannelMessage.decode).
  var lastDeviceNames: ChannelMessage.DeviceNames?
  /// Whether the recognizer still speaks, checked at each watchdog ping.
  var liveness = RecognizerLiveness(startedAt: Timestamp(microseconds: 0), silenceLimit: 0)
  /// One table per device and profile the recognizer reported, remade at each reload.
  var tables: [TableKey: BindingTable] = [:]
  /// The table of the last firing: firings come mostly from one panel, and a match costs
  /// a comparison where a lookup in `tables` hashes both names.
  var lastTable: (key: TableKey, table: BindingTable)?
  struct TableKey: Hashable {
    let profile: Int
    let devnode: String
    let deviceName: String
  }
  let identity: ConfigIdentity
  /// The config file the launcher loaded at start, open until the recognizer inherits it.
  var startConfig: Int32?

  /// Whether `gestured` (the daemon, not a command) runs as two processes: as root.
  public static var separatesPrivileges: Bool { geteuid() == 0 }

  public static func make(options: Daemon.Options, errors: any OutputSink, environment: [String: String]) -> Result<
    Launcher, ExitCode
  > {
    let journal = JournalStream.stderrIsJournal(environment: environment)
    let logger = Logger(sink: NonBlockingLogSink.replacing(errors), journalPrefixes: journal, verbose: options.verbose)
    switch openAndLoadConfig(path: options.configPath, logger: logger) {
    case .failure(let code): return .failure(code)
    case .success(let (loaded, descriptor)):
      let launcher = Launcher(
        options: options, logger: logger, configuration: loaded.configuration, actions: loaded.actions,
        identity: loaded.identity, notifier: SystemdNotifier(environment: environment, logger: logger))
      launcher.startConfig = descriptor
      return .success(launcher)
    }
  }

  /// The config opened as root, checked (`ConfigPermissions.openChecked`), and loaded from
  /// that descriptor, which stays open for the recognizer: in its own mount namespace, as its
  /// own user, the path may not be there (/tmp, a home) or not be reachable (a directory only
  /// root can enter). Logs why not; the caller closes the descriptor.
  static func openAndLoadConfig(path: String, logger: Logger) -> Result<
    (loaded: (configuration: Configuration, actions: [ProfileActions], identity: ConfigIdentity), descriptor: Int32),
    ExitCode
  > {
    let descriptor: Int32
    do {
      descriptor = try ConfigPermissions.openChecked(path: path)
    } catch {
      return .failure(Daemon.logUnreadableConfig(error, path: path, logger: logger))
    }
    switch Daemon.loadIdentifiedConfiguration(path: path, descriptor: descriptor, logger: logger) {
    case .failure(let code):
      close(descriptor)
      return .failure(code)
    case .success(let loaded):
      return .success((loaded, descriptor))
    }
  }

  private init(
    options: Daemon.Options, logger: Logger, configuration: Configuration, actions: [ProfileActions],
    identity: ConfigIdentity, notifier: SystemdNotifier?
  ) {
    self.options = options
    self.logger = logger
    self.configuration = configuration
    self.actions = actions
    self.identity = identity
    self.notifier = notifier
  }

  deinit {
    if let startConfig { close(startConfig) }
  }

  public func run() -> Never {
    SignalReceiver.block(Daemon.handledSignals)
    keepToOneCPU()
    queue.sync { start() }
    multiplexer.run()
  }

  /// The launcher and the recognizer wake each other at every firing: on one CPU, neither
  /// has a second CPU woken for it. Before the recognizer starts, which inherits it.
  func keepToOneCPU() {
    switch ProcessorAffinity.keepToOneCPU() {
    case .success(let cpu):
      logger.info("the launcher and the recognizer run on CPU \(cpu), actions on every CPU the daemon may use")
    case .failure(let error):
      logger.warning("cannot keep the launcher and the recognizer on one CPU: \(error)")
    }
  }

  func start() {
    signal(SIGPIPE, SIG_IGN)
    do {
      multiplexer = try EventMultiplexer(queue: queue)
      let runner = ActionRunner(queue: queue, logger: logger, multiplexer: multiplexer)
      let writer = InputActionWriter(logger: logger)
      runner.writeInput = { request in
        guard case .input(let input) = request.kind else { return }
        writer.write(
          input, key: request.key, label: request.label, firedAt: request.firedAt, cooldown: 0, oneShot: true)
      }
      self.runner = runner
      inputWriter = writer
      adopt(configuration, actions: actions)
      signals = try SignalReceiver(Daemon.handledSignals, multiplexer: multiplexer) { [unowned self] signal in
        signal == SIGHUP ? self.reload() : self.stop()
      }
      try startRecognizer()
    } catch {
      logger.error("cannot start: \(error)")
      exit(ExitCode.systemError.rawValue)
    }
    startWatchdog()
  }

  /// From the launcher's event loop (the main process is the one systemd watches); the
  /// recognizer's loop is watched through its answers to the launcher's pings, sent with
  /// each of systemd's.
  func startWatchdog() {
    guard let interval = notifier?.watchdogInterval else { return }
    liveness = RecognizerLiveness(
      startedAt: MonotonicClock.now(), silenceLimit: RecognizerLiveness.silenceLimit(pingInterval: interval))
    watchdogTimer = startSystemdWatchdog(notifier: notifier, multiplexer: multiplexer, logger: logger) {
      [unowned self] in checkRecognizerLiveness()
    }
  }

  /// Checks that the recognizer spoke within the limit, then pings it.
  func checkRecognizerLiveness() {
    // What is waiting in the channel counts: the launcher itself may have been late.
    drainChannel()
    let now = MonotonicClock.now()
    guard liveness.isHung(at: now) else {
      do {
        try channel?.send(ChannelMessage.alive.encoded())
      } catch {
        logger.error("cannot reach the recognizer: \(error)")
        exit(ExitCode.systemError.rawValue)
      }
      return
    }
    let silence = Double(now - liveness.lastHeard) / 1e6
    logger.error("the recognizer has said nothing for \(silence) s: it hangs; stopping it")
    recognizerHung()
  }

  /// As when the recognizer dies: the service manager restarts both.
  func recognizerHung() {
    recognizer?.signalGroup(SIGKILL)
    exit(ExitCode.systemError.rawValue)
  }

  func adopt(_ new: Configuration, actions newActions: [ProfileActions]) {
    configuration = new
    actions = newActions
    tables.removeAll()
    lastTable = nil
    runner?.users = Daemon.resolveUsers(of: newActions, logger: logger)
    let used = newActions.inputDevicesUsed
    inputWriter?.provide(keyboard: used.keyboard, pointer: used.pointer)
  }

  /// The recognizer's user: `gestured`, else `nobody` (said in the log), with the input
  /// group as its only supplementary group.
  func recognizerCredentials() throws(SystemError) -> ChildCredentials {
    let user: UserIdentity
    do {
      user = try UserIdentity(lookingUp: Self.recognizerUser)
    } catch {
      do {
        user = try UserIdentity(lookingUp: Self.fallbackUser)
      } catch {
        throw SystemError(
          operation: "look up users \(Self.recognizerUser) and \(Self.fallbackUser)", errno: .invalidArgument)
      }
      logger.warning(
        "no user \(Self.recognizerUser) (the package creates it): the recognizer runs as \(Self.fallbackUser) with the input group"
      )
    }
    guard let input = getgrnam(Self.inputGroup) else {
      throw SystemError(operation: "look up group \(Self.inputGroup)", errno: .invalidArgument)
    }
    let inputGID = input.pointee.gr_gid
    return ChildCredentials(uid: user.uid, gid: user.gid, groups: [inputGID])
  }

  func startRecognizer() throws(SystemError) {
    let (launcherEnd, recognizerEnd) = try SeqPacketSocket.pair()
    channel = launcherEnd
    let credentials = try recognizerCredentials()
    var arguments = [
      "gestured", "__recognizer", "--config", options.configPath, "--config-identity",
      "\(identity.length):\(identity.hash)",
    ]
    guard let config = startConfig else {
      throw SystemError(operation: "hand the config to the recognizer", errno: .badFileDescriptor)
    }
    defer {
      close(config)
      startConfig = nil
    }
    let uinput = openUinputDescriptors()
    defer { for descriptor in uinput { close(descriptor) } }
    if !uinput.isEmpty { arguments += ["--uinput-descriptors", "\(uinput.count)"] }
    if options.verbose { arguments.append("--verbose") }
    // Only what its log needs: the journal's stream, so its lines keep their priorities.
    let environment = ProcessEnvironment.current().filter { $0.key == "JOURNAL_STREAM" }.map { "\($0.key)=\($0.value)" }
    let process = try ChildProcess.spawn(
      path: try RunningExecutable.path(executableBy: credentials), arguments: arguments, environment: environment,
      inherited: [recognizerEnd.descriptor, config] + uinput,
      credentials: credentials, noNewPrivileges: true, readOnlyFileSystem: true
    ).get()
    recognizerEnd.close()
    recognizer = process
    logger.notice("recognizer started as uid \(credentials.uid), pid \(process.pid)")
    let pidfd = try process.openPidfd()
    _ = try multiplexer.watch(pidfd) { [unowned self] in
      let status = (try? process.reap().get()).flatMap { $0 }
      logger.error("the recognizer ended (\(status.map { "\($0)" } ?? "unknown")); stopping")
      exit(ExitCode.systemError.rawValue)
    }
    _ = try multiplexer.watch(launcherEnd.descriptor) { [unowned self] in self.channelReadable() }
  }

  /// The recognizer's /dev/uinput descriptors at its start (`openUinputDescriptors(for:)`).
  func openUinputDescriptors() -> [Int32] {
    let descriptors = openUinputDescriptors(for: configuration)
    recognizerHoldsUinput = !descriptors.isEmpty
    return descriptors
  }

  /// /dev/uinput descriptors for the recognizer's forwarding clones, when a profile of
  /// `configuration` forwards: it cannot open /dev/uinput itself, so it can make no other
  /// input device.
  func openUinputDescriptors(for configuration: Configuration) -> [Int32] {
    if let openUinput { return openUinput(configuration) }
    guard configuration.profiles.contains(where: \.forward) else { return [] }
    let count = min(configuration.maximumDevices, Daemon.maximumPooledUinputDescriptors)
    var descriptors: [Int32] = []
    for _ in 0..<count {
      let descriptor = open("/dev/uinput", O_RDWR | O_CLOEXEC)
      guard descriptor >= 0 else {
        let error = Errno.current
        logger.error("cannot open /dev/uinput for forwarding: \(error)\(UinputClone.hint(for: error))")
        break
      }
      descriptors.append(descriptor)
    }
    return descriptors
  }

  /// The channel is readable: one message per wake-up (epoll reports the channel again at
  /// once while more wait), so a firing costs no receive that finds nothing.
  func channelReadable() { receiveFromRecognizer() }

  /// Everything waiting in the channel.
  func drainChannel() {
    while receiveFromRecognizer() {}
  }

  /// Receives and handles one message; false when none was waiting.
  @discardableResult
  func receiveFromRecognizer() -> Bool {
    guard let channel else { return false }
    let datagram: SeqPacketSocket.Received
    do {
      datagram = try channel.receive(maximumLength: ChannelMessage.maximumLength)
    } catch {
      logger.error("the recognizer's channel: \(error)")
      exit(ExitCode.systemError.rawValue)
    }
    switch datagram {
    case .none: return false
    case .closed:
      logger.error("the recognizer closed its channel; stopping")
      exit(ExitCode.systemError.rawValue)
    case .oversized(let length):
      liveness.heard()
      logger.error("refused a message from the recognizer: oversized message: \(length) bytes")
    case .message(let bytes):
      liveness.heard()
      do {
        try received(ChannelMessage.decode(bytes, reusing: &lastDeviceNames))
      } catch {
        logger.error("refused a message from the recognizer: \(error)")
      }
    }
    return true
  }

  /// Handles one message from the recognizer.
  func received(_ message: ChannelMessage) throws(ChannelError) {
    switch message {
    case .fired(let firing):
      try firing.check(against: configuration, generation: generation)
      let table = table(for: firing)
      // nil: the binding runs nothing for it (an end without `end:`).
      guard
        let request = table.inputRequest(for: firing.event)
          ?? table.firing(for: firing.event).flatMap({ table.request(for: $0) })
      else { return }
      perform(request)
    case .woke(let wake):
      let checked = try wake.validated(
        profileCount: configuration.profiles.count, hasWake: { actions[$0].wake != nil }, generation: generation)
      runWake(checked)
    case .ready(_, let devices):
      ResidentMemory.returnUnusedPages()
      notifier?.ready(status: devices == 1 ? "1 touchscreen" : "\(devices) touchscreens")
    case .streamEnd(let reason):
      logger.notice("the recognizer stops (\(reason)); stopping")
      exit(reason == .stopping ? ExitCode.success.rawValue : ExitCode.systemError.rawValue)
    case .reloadAgreed(let agreed):
      guard let pending, pending.generation == agreed else { throw .staleConfig(generation: agreed) }
      self.pending = nil
      generation = agreed
      if pending.passedUinput { recognizerHoldsUinput = true }
      adopt(pending.configuration, actions: pending.actions)
      logger.notice("config reloaded")
    case .reloadRefused(let refused, let reason):
      guard let pending, pending.generation == refused else { throw .staleConfig(generation: refused) }
      self.pending = nil
      logger.error("the recognizer refused the new config (\(reason)); both keep the previous one")
      notifier?.ready()
    case .alive:
      // Every message counts as a sign of life (`channelReadable`).
      break
    case .reloadRequest, .uinputDescriptors:
      throw .malformed("a message only the launcher sends")
    }
  }

  /// The profile's `wake:` (command or keys), labelled "profile/wake", as the one-process
  /// daemon runs it.
  func runWake(_ wake: ChannelWake) {
    let profile = configuration.profiles[wake.profile]
    let profileActions = actions[wake.profile]
    guard let action = profileActions.wake else { return }
    let environment = ActionEnvironment.Shared(
      profileName: profile.name, profileEnvironment: profileActions.environment, bindingName: "wake",
      bindingEnvironment: action.environment, deviceName: wake.deviceName, devnode: wake.devnode,
      path: ActionEnvironment.currentPath())
    var request = ActionRunner.Request(
      key: "\(wake.devnode)#wake", label: "\(profile.name)/wake", command: action.run ?? "",
      environment: ActionEnvironment(shared: environment), timeout: action.timeout, cooldown: action.cooldown,
      user: action.user ?? profileActions.user, firedAt: wake.time)
    if let input = action.input { request.kind = .input(PreparedInput(input, label: request.label)) }
    perform(request)
  }

  /// A checked request to the action runner.
  func perform(_ request: ActionRunner.Request) {
    if let runAction { return runAction(request) }
    runner?.run(request)
  }

  /// The table for the device a firing came from, under the launcher's own config.
  func table(for firing: ChannelFiring) -> BindingTable {
    let key = TableKey(profile: firing.profile, devnode: firing.devnode, deviceName: firing.deviceName)
    if let lastTable, lastTable.key == key { return lastTable.table }
    if let table = tables[key] {
      lastTable = (key, table)
      return table
    }
    // Bounded: at most one entry per device and profile the recognizer could name.
    if tables.count >= 4 * max(configuration.maximumDevices, 1) { tables.removeAll() }
    let table = BindingTable(
      profile: configuration.profiles[firing.profile], profileIndex: firing.profile, actions: actions[firing.profile],
      devnode: firing.devnode, deviceName: firing.deviceName, daemonPath: ActionEnvironment.currentPath(),
      daemonIsRoot: true)
    tables[key] = table
    lastTable = (key, table)
    return table
  }

  /// SIGHUP: the launcher reads the file; if it accepts it, the recognizer is asked to move
  /// to the same bytes, and both move on its agreement (a refusal keeps both on the old).
  func reload() {
    // One reload at a time: the recognizer answers each request in order.
    guard pending == nil else {
      logger.warning("a reload is under way; SIGHUP ignored")
      return
    }
    notifier?.reloading(monotonicMicroseconds: MonotonicClock.now().microseconds)
    logger.notice("reloading \(options.configPath)")
    switch Self.openAndLoadConfig(path: options.configPath, logger: logger) {
    case .failure:
      logger.error("the new config has errors; keeping the previous one")
      notifier?.ready()
    case .success(let (new, config)):
      defer { close(config) }
      let next = generation &+ 1
      // A config that makes a profile forward for the first time: the recognizer gets its
      // descriptors with the request, before it agrees.
      let uinput = recognizerHoldsUinput ? [] : openUinputDescriptors(for: new.configuration)
      defer { for descriptor in uinput { close(descriptor) } }
      pending = (next, new.configuration, new.actions, !uinput.isEmpty)
      do {
        if !uinput.isEmpty {
          try channel?.send(
            ChannelMessage.uinputDescriptors(generation: next, count: uinput.count).encoded(), passing: uinput)
          logger.notice("passing \(uinput.count) /dev/uinput descriptors to the recognizer for forwarding")
        }
        try channel?.send(
          ChannelMessage.reloadRequest(generation: next, identity: new.identity).encoded(), passing: [config])
      } catch {
        logger.error("cannot reach the recognizer: \(error)")
        exit(ExitCode.systemError.rawValue)
      }
    }
  }

  func stop() {
    logger.notice("stopping")
    notifier?.stopping()
    recognizer?.signalGroup(SIGTERM)
    runner?.dropWaitingRuns()
    exit(ExitCode.success.rawValue)
  }
}
