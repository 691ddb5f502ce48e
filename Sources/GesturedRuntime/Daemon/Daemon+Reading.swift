import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// Reading: devices' events through their engines, at every frame or at contact changes,
/// and the one deadline timer.
extension Daemon {
  // MARK: Events and deadlines

  func readable(_ device: OpenDevice) {
    drain(device)
    if device.batched != nil { scheduleBatches(device) }
    rearm()
  }

  /// Watches the device's events: every frame wakes the daemon.
  func watchEveryFrame(_ device: OpenDevice) throws(SystemError) {
    guard device.token == nil else { return }
    device.token = try multiplexer.watch(device.evdev.fileDescriptor) { [unowned self, unowned device] in
      self.readable(device)
    }
  }

  // MARK: Reading at contact changes

  /// A batched device's doorbell rang: a contact landed or lifted (or the device is gone,
  /// which the batch's read finds).
  func contactChanged(_ device: OpenDevice) {
    if let batched = device.batched, landingMayWait(device) {
      // Read with the frames after it: the lift's ring, another landing's, or the batch due
      // by then.
      device.landingUnread = true
      device.nextBatch = MonotonicClock.now() + batched.interval(contacts: 1)
      rearm()
      return
    }
    let complete = readBatch(device)
    if !device.evdev.isClosed { scheduleBatches(device, behind: !complete) }
    rearm()
  }

  /// Whether the doorbell rang for a landing on an idle panel that nothing needs handled
  /// at once (`DeviceEngine.landingMayWait`; nothing forwarded, shown or streamed, and no
  /// lift behind it on the doorbell): the wake-up then reads nothing but the doorbell.
  func landingMayWait(_ device: OpenDevice) -> Bool {
    guard !device.landingUnread, device.forwarder == nil, liveView == nil, !printsStream,
      case let reading = device.reading, reading.contactsDown == 0, reading.landingMayWait
    else { return false }
    return !device.evdev.doorbellMayHoldLift(after: device.lastEventTime)
  }

  /// Reads everything a batched device has pending (drain by drain, so that a batch is
  /// handled as a wake-up's events are). False when more is still pending after
  /// `batchLimit` drains (a flood): the next batch is then due at once.
  func readBatch(_ device: OpenDevice) -> Bool {
    device.landingUnread = false
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
  func scheduleBatches(_ device: OpenDevice, readAt time: Timestamp? = nil, behind: Bool = false) {
    guard let batched = device.batched, !device.evdev.isClosed else { return }
    if device.evdev.resyncs > device.resyncsSeen {
      device.resyncsSeen = device.evdev.resyncs
      if let dropped = device.evdev.lastResync, device.nextBatch.map({ dropped < $0 }) ?? true {
        readEveryFrame(device)
        return
      }
    }
    let reading = device.reading
    let everyFrame = reading.firesBetweenContactChanges
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
    let contacts = reading.contactsDown
    device.nextBatch = behind ? base : batched.nextBatch(after: base, contacts: contacts)
    if options.verbose, let next = device.nextBatch {
      logger.debug(
        "\(device.node.devnode): next batch of moves at \(next) (\(contacts) down, a frame every \(batched.scanPeriod) µs)"
      )
    }
  }

  /// Ends reading `device` at contact changes: its doorbell goes, its every frame is read.
  func readEveryFrame(_ device: OpenDevice) {
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
  func drain(_ device: OpenDevice) -> Bool {
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
        // Taken out of the class while it counts the frames: one access, not one a frame.
        if var batched = device.batched.take() {
          for event in batch where event.type == EventType.syn && event.code == SynCode.report {
            batched.sawFrame(at: event.time)
          }
          batched.batchEnded()
          device.batched = batched
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
  func drainEventByEvent(_ device: OpenDevice) -> EvdevDevice.DrainResult {
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
  func cancelIfLate(_ device: OpenDevice, now: Timestamp) {
    guard let due = device.engine.nextDeadline, now - due > Self.lateDeadlineLimit else { return }
    logger.info(
      "\(device.node.devnode): a gesture's deadline passed \((now - due) / 1000) ms ago (suspended?); cancelled")
    firings.removeAll(keepingCapacity: true)
    device.engine.cancel(at: now, into: &firings)
    device.forwarder?.releaseAll()
    fire(device)
  }

  func deadlineReached() {
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
  func rearm() {
    var next: Timestamp? = nil
    for device in devices.values {
      let deadline = device.batched != nil ? device.reading.nextFiringDeadline : device.engine.nextDeadline
      if let due = deadline, next.map({ due < $0 }) ?? true { next = due }
      if let due = device.nextBatch, next.map({ due < $0 }) ?? true { next = due }
    }
    guard let timer, next != timer.deadline else { return }
    timer.schedule(at: next)
  }
}
