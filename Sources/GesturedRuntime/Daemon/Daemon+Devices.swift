import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// The device table: which nodes are opened under which profile, kept at a reload, and
/// closed.
extension Daemon {
  /// After a reload: whether `device` stays open. It does when the new config gives it the
  /// same profile (only its commands may have changed), and when it was and stays forwarded
  /// (the clone stays; a new engine starts, and the clone's contacts are released).
  func keep(_ device: OpenDevice) -> Bool {
    guard
      let index = DeviceSelection.profile(for: device.node, device: device.evdev.description, in: configuration)
    else { return false }
    let profile = DeviceSelection.effectiveProfile(configuration.profiles[index], node: device.node)
    let profileActions = actions.indices.contains(index) ? actions[index] : ProfileActions()
    if profile == device.profile {
      device.profileIndex = index
      device.actions = profileActions
      // Same bindings (same indices), new commands: the table is remade, the engine kept.
      device.bindings = bindingTable(
        profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
        deviceName: device.name)
      device.forwarder?.onWake = wakeHandler(
        profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
        deviceName: device.name)
      logger.info("\(device.node.devnode) '\(device.name)': profile '\(profile.name)' (unchanged: kept open)")
      return true
    }
    guard profile.forward, let forwarder = device.forwarder,
      let (recognizer, _) = makeRecognizer(profile: profile, evdev: device.evdev)
    else { return false }
    firings.removeAll(keepingCapacity: true)
    device.engine.cancel(at: MonotonicClock.now(), into: &firings)
    fire(device)
    forwarder.releaseAll()
    forwarder.adopt(recognizer.engine)
    forwarder.onWake = wakeHandler(
      profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
      deviceName: device.name)
    device.recognizer = recognizer
    device.bindings = bindingTable(
      profile: profile, profileIndex: index, actions: profileActions, devnode: device.node.devnode,
      deviceName: device.name)
    device.profile = profile
    device.profileIndex = index
    device.actions = profileActions
    logger.info("\(device.node.devnode) '\(device.name)': profile '\(profile.name)' (reloaded; its clone stays)")
    return true
  }

  /// A device's recognizer for `profile`, started from the kernel's positions (which it
  /// will not resend while they do not change), and those positions; nil when the device
  /// reports no touch position.
  func makeRecognizer(
    profile: Profile, evdev: EvdevDevice
  ) -> (GestureRecognizer<Void>, positions: [RawEvent])? {
    let bindings = GestureBindings(profile: profile) { _ in () }
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

  func enumerate() {
    guard let watcher else { return }
    for node in watcher.enumerate() { consider(node) }
    rearm()
  }

  func udevChanged(_ change: UdevWatcher.Change) {
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
  func consider(_ node: InputNode) {
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
    guard let (recognizer, positions) = makeRecognizer(profile: profile, evdev: evdev) else {
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
        let clone = try evdev.makeClone(addingToolType: ForwardGate.cloneAddsToolType(evdev.description))
        let made = Forwarder(
          clone: clone, engine: recognizer.engine, devnode: node.devnode, logger: logger, positions: positions,
          openedAt: MonotonicClock.now())
        made.onWake = wakeHandler(
          profile: profile, profileIndex: index, actions: profileActions, devnode: node.devnode,
          deviceName: evdev.description.name)
        forwarder = made
        logger.info(
          "\(node.devnode): forwarding every touch that is not a gesture to its clone \(clone.devnode ?? "(no node yet)")"
        )
      } catch {
        // Grabbed without a clone, the desktop would get no touch at all: rather let it have
        // every touch, gestures included, as without forward.
        logger.error(
          "\(node.devnode): \(error)\(UinputClone.hint(for: error.errno)); not grabbed, so the desktop still gets every touch"
        )
        try? evdev.grab(false)
      }
    }
    let device = OpenDevice(
      node: node, evdev: evdev, profileIndex: index, profile: profile, actions: profileActions,
      bindings: bindingTable(
        profile: profile, profileIndex: index, actions: profileActions, devnode: node.devnode,
        deviceName: evdev.description.name),
      recognizer: recognizer)
    device.forwarder = forwarder
    // Recognition alone reads the device: the kernel keeps back what it does not use.
    if forwarder == nil, liveView == nil, !printsStream, let axes = recognizer.engine.axesRead {
      do {
        try evdev.readOnly(axes: axes)
      } catch {
        logger.info("\(node.devnode): reading every event: \(error)")
      }
    }
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
  func close(_ syspath: String, runningEnds: Bool = true) {
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

  func report(event: String, device: OpenDevice) {
    var json = JSONLine()
    json.add("event", event)
    json.add("time", MonotonicClock.now())
    json.add("devnode", device.node.devnode)
    json.add("device", device.name)
    json.add("profile", device.profile.name)
    output.write(json.line + "\n")
  }
}
