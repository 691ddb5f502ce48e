import GestureCore
import GesturedConfig
import GesturedSystem

/// One device's bindings under one profile of the current config, indexed by binding (the
/// index a `GestureEvent` names): what a firing of each runs, and what every firing of it
/// hands the runner alike. The daemon keeps one per open device and remakes it at a reload;
/// a firing reaches the runner through it (`ActionRunner.fire(_:of:)`), not through a
/// closure per binding. A class: a firing passes it on without copying what it holds.
public final class BindingTable: Sendable {
  public let profile: Profile
  /// The profile's index in the config: part of every binding's runner key.
  public let profileIndex: Int
  public let actions: ProfileActions
  public let devnode: String
  /// The evdev name (`GESTURED_DEVICE`).
  public let deviceName: String
  /// Parallel to `profile.bindings`; empty for a table that only reports (monitor).
  let runs: [BindingRun]
  /// `deviceName` and `devnode` as the recognizer sends them with each firing
  /// (`ChannelFiring.sendable`), made once rather than at every firing.
  let sentDeviceName: String
  let sentDevnode: String

  /// A table whose firings run commands. `daemonPath`: the daemon's own `PATH`, read once;
  /// `daemonIsRoot`: whether it runs as root (both decide each binding's `PATH`).
  public init(
    profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, deviceName: String,
    daemonPath: String?, daemonIsRoot: Bool
  ) {
    self.profile = profile
    self.profileIndex = profileIndex
    self.actions = actions
    self.devnode = devnode
    self.deviceName = deviceName
    (sentDeviceName, sentDevnode) = Self.sentNames(deviceName: deviceName, devnode: devnode)
    runs = profile.bindings.indices.map { index in
      BindingRun(
        profile: profile, profileIndex: profileIndex, actions: actions, binding: index, devnode: devnode,
        deviceName: deviceName,
        path: ActionEnvironment.startingPath(
          user: actions.action(ofBinding: index)?.user ?? actions.user, daemonPath: daemonPath,
          daemonIsRoot: daemonIsRoot))
    }
  }

  /// A table whose firings are only reported (`gestured monitor`).
  public init(profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, deviceName: String) {
    self.profile = profile
    self.profileIndex = profileIndex
    self.actions = actions
    self.devnode = devnode
    self.deviceName = deviceName
    (sentDeviceName, sentDevnode) = Self.sentNames(deviceName: deviceName, devnode: devnode)
    runs = []
  }

  private static func sentNames(deviceName: String, devnode: String) -> (String, String) {
    (
      ChannelFiring.sendable(deviceName, maximumLength: ChannelMessage.maximumDeviceNameLength),
      ChannelFiring.sendable(devnode, maximumLength: ChannelMessage.maximumDevnodeLength)
    )
  }

  /// The firing with its binding's names looked up; nil when the event names a binding or
  /// region the profile does not have (an engine bug, or a hostile message).
  public func firing(for event: GestureEvent) -> ResolvedFiring? {
    ResolvedFiring(event: event, profile: profile, actions: actions)
  }

  /// The request for a key or wheel binding's one-shot firing or step, made from the table
  /// alone (it needs none of the names `firing(for:)` looks up); nil for any other firing,
  /// and for one naming a binding or region the profile does not have.
  public func inputRequest(for event: GestureEvent) -> ActionRunner.Request? {
    guard runs.indices.contains(event.binding), var request = runs[event.binding].inputRequest else { return nil }
    if case .end = event.phase { return nil }
    if let region = event.region, !profile.regions.indices.contains(region) { return nil }
    request.firedAt = event.time
    request.schedule = BindingTable.schedule(of: event, devnode: devnode)
    return request
  }

  /// The runner's request for `firing` (one of this table's), nil when its binding runs
  /// nothing for it (an end without `end:`) or the table only reports.
  public func request(for firing: ResolvedFiring) -> ActionRunner.Request? {
    guard runs.indices.contains(firing.event.binding) else { return nil }
    let run = runs[firing.event.binding]
    // Keys and wheel clicks start no process: the firing's variables are not made.
    if firing.input != nil { return inputRequest(for: firing.event) }
    return run.request(for: firing, devnode: devnode)
  }

  /// What every firing of one binding on one device hands the runner alike, made with the
  /// table (when the device opens and at a reload) rather than at each firing: the runner's
  /// key and label and the environment's shared part (ActionEnvironment.Shared).
  struct BindingRun: Sendable {
    /// The runner's key: one running instance per profile and binding.
    let key: String
    /// "profile/binding", prefixing the binding's lines in the log.
    let label: String
    let environment: ActionEnvironment.Shared
    /// The binding's key or wheel action, made ready for its firings; nil for `run:`.
    let input: PreparedInput?
    /// The request of every one-shot firing and step of a key or wheel binding but for its
    /// time and schedule; nil for `run:`.
    let inputRequest: ActionRunner.Request?
    /// How the log shows the label with the binding's `run` and with its `end`.
    let runText: ActionPolicy.LogText?
    let endText: ActionPolicy.LogText?

    /// `path`: the binding's actions' `PATH` (ActionEnvironment.startingPath).
    init(
      profile: Profile, profileIndex: Int, actions: ProfileActions, binding: Int, devnode: String,
      deviceName: String, path: String?
    ) {
      let bindingName = profile.displayName(ofBinding: binding)
      key = "\(profileIndex)#\(binding)"
      let label = "\(profile.name)/\(bindingName)"
      self.label = label
      let action = actions.action(ofBinding: binding)
      runText = action?.run.map { ActionPolicy.LogText(label: label, command: $0) }
      endText = action?.end.map { ActionPolicy.LogText(label: label, command: $0) }
      let input = action?.input.map { PreparedInput($0, label: label) }
      self.input = input
      let environment = ActionEnvironment.Shared(
        profileName: profile.name, profileEnvironment: actions.environment, bindingName: bindingName,
        bindingEnvironment: action?.environment ?? [:], deviceName: deviceName, devnode: devnode, path: path)
      self.environment = environment
      if let action, let input, profile.bindings[binding].region.map(profile.regions.indices.contains) ?? true {
        inputRequest = ActionRunner.Request(
          key: key, label: label, command: "", environment: ActionEnvironment(shared: environment),
          timeout: action.timeout, cooldown: action.cooldown, user: action.user ?? actions.user,
          firedAt: Timestamp(microseconds: 0), kind: .input(input))
      } else {
        inputRequest = nil
      }
    }

    /// The request for one of the binding's firings, which runs its command (`run`, or
    /// `end` for an end event; nil when it has none) in `environment` (by default the
    /// firing's).
    func request(
      for firing: ResolvedFiring, devnode: String, environment given: ActionEnvironment? = nil
    ) -> ActionRunner.Request? {
      guard let command = firing.command else { return nil }
      var request = ActionRunner.Request(
        key: key, label: label, command: command,
        environment: given ?? ActionEnvironment(firing: firing, shared: environment), timeout: firing.action.timeout,
        cooldown: firing.action.cooldown, user: firing.user, firedAt: firing.event.time,
        schedule: BindingTable.schedule(of: firing.event, devnode: devnode))
      if case .end = firing.event.phase { request.logText = endText } else { request.logText = runText }
      return request
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

extension ActionRunner {
  /// The entry point for a firing: binding `event.binding` of `table` (one device's profile
  /// of the current config) fired with the event's values at `event.time`. Its run starts,
  /// waits, merges or is dropped as `run` decides; nil when the binding runs nothing for it
  /// (an end without `end:`), and when the table has no such binding (logged as an error:
  /// nothing runs that the config does not bind). Call on the runner's queue.
  @discardableResult
  public func fire(_ event: GestureEvent, of table: BindingTable) -> Decision? {
    if let request = table.inputRequest(for: event) { return run(request) }
    guard let firing = table.firing(for: event) else {
      logUnknownBinding(devnode: table.devnode)
      return nil
    }
    return table.request(for: firing).map { run($0) }
  }
}
