import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// Dispatch: what the engines recognized goes, binding by binding, through the device's
/// BindingTable to the runner (or, monitoring, to the output).
extension Daemon {
  func fire(_ device: OpenDevice) {
    if options.verbose {
      for line in device.engine.takeTrace() { logger.debug("\(device.node.devnode): \(line)") }
    }
    let impossibleInputs = device.reading.impossibleInputs
    if impossibleInputs > device.impossibleLogged {
      logger.warning(
        "\(device.node.devnode): \(impossibleInputs - device.impossibleLogged) impossible input(s) ignored (a bug: run with --verbose to see them)"
      )
      device.impossibleLogged = impossibleInputs
    }
    liveView?.records(device.engine.takeRecords(), devnode: device.node.devnode)
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
    if !firings.isEmpty {
      let table = device.bindings
      for event in firings {
        printStream(through: event.time)
        dispatch(event, of: table)
      }
    }
    firings.removeAll(keepingCapacity: true)
    liveView?.show()
  }

  /// One device's binding table under the current config: one that runs commands, or in
  /// monitor mode one that only reports.
  func bindingTable(
    profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, deviceName: String
  ) -> BindingTable {
    guard mode == .actions else {
      return BindingTable(
        profile: profile, profileIndex: profileIndex, actions: actions, devnode: devnode, deviceName: deviceName)
    }
    // The daemon's PATH does not change while it runs: read once per table.
    return BindingTable(
      profile: profile, profileIndex: profileIndex, actions: actions, devnode: devnode, deviceName: deviceName,
      daemonPath: ActionEnvironment.currentPath(), daemonIsRoot: geteuid() == 0)
  }

  /// A firing of one of the device's bindings: its command goes to the runner, or (monitor)
  /// it is reported.
  func dispatch(_ event: GestureEvent, of table: BindingTable) {
    switch mode {
    case .actions:
      runner?.fire(event, of: table)
    case .recognizer:
      sendToLauncher(
        .fired(
          ChannelFiring(
            generation: generation, profile: table.profileIndex, event: event,
            deviceName: table.sentDeviceName, devnode: table.sentDevnode)))
    case .monitor:
      guard let firing = table.firing(for: event) else {
        logger.error("\(table.devnode): a gesture named a binding the profile does not have (a bug)")
        return
      }
      // End events of bindings without `end:` are not reported.
      guard firing.isReported else { return }
      if let liveView {
        liveView.fired(firing, devnode: table.devnode)
      } else {
        output.write(FiringReport.jsonLine(file: table.devnode, deviceName: table.deviceName, firing: firing) + "\n")
      }
    }
  }

  /// What runs when a touch wakes a forwarded panel (`wake:` with `run:` or `key:`): the
  /// command or keys, as a binding's, labelled "profile/wake"; monitor prints that it woke.
  func wakeHandler(
    profile: Profile, profileIndex: Int, actions: ProfileActions, devnode: String, deviceName: String
  ) -> ((Timestamp) -> Void)? {
    guard let wake = actions.wake else { return nil }
    let label = "\(profile.name)/wake"
    let input = wake.input.map { PreparedInput($0, label: label) }
    let environment = ActionEnvironment.Shared(
      profileName: profile.name, profileEnvironment: actions.environment, bindingName: "wake",
      bindingEnvironment: wake.environment, deviceName: deviceName, devnode: devnode,
      path: mode == .actions ? ActionEnvironment.currentPath() : nil)
    return { [unowned self] time in
      switch mode {
      case .monitor:
        logger.info("\(devnode): a touch woke the panel; not forwarded")
      case .recognizer:
        sendToLauncher(
          .woke(
            ChannelWake(
              generation: generation, profile: profileIndex, time: time,
              deviceName: ChannelFiring.sendable(deviceName, maximumLength: ChannelMessage.maximumDeviceNameLength),
              devnode: ChannelFiring.sendable(devnode, maximumLength: ChannelMessage.maximumDevnodeLength))))
      case .actions:
        var request = ActionRunner.Request(
          key: "\(devnode)#wake", label: label, command: wake.run ?? "",
          environment: ActionEnvironment(shared: environment),
          timeout: wake.timeout, cooldown: wake.cooldown, user: wake.user ?? actions.user, firedAt: time)
        if let input { request.kind = .input(input) }
        runner?.run(request)
      }
    }
  }
}
