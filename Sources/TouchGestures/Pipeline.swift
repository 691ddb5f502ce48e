import Dispatch
import GestureCore
import GesturedSystem

/// One device's recognizer, kept in step with its screen's bindings, and the firings it
/// owes the screen's queue. Used only on the input queue.
struct Pipeline {
  let screen: TouchScreen
  let device: DeviceDescription
  /// The udev node, whose calibration (LIBINPUT_CALIBRATION_MATRIX) applies; nil for a
  /// recording.
  let node: InputNode?
  private(set) var recognizer: GestureRecognizer<Entry>?
  /// Each profile region's named region; nil for the views' regions.
  private var regions: [ScreenRegion?] = []
  /// Each profile region's view; nil for the named regions.
  private var regionViews: [TouchView?] = []
  private var version = -1
  /// What each of the profile's regions is.
  private var layout: [RegionSlot] = []
  /// Whether the recognizer keeps bindings and regions for sequences that were in
  /// progress at a change (`patch`): dropped by `rebuild` once nothing is.
  private var isPatched = false
  /// The bindings the recognizer had before each `patch` since the last `rebuild`, by the
  /// engine's profile generation: the sequences in progress fire with their binding indices.
  private var earlierBindings: [(generation: Int, bindings: GestureBindings<Entry>)] = []
  /// The continuous gestures followed, as of the recognizer made.
  private var followers: [MotionFollower] = []
  /// The panel's size as the user sees it, mm: a view's frame in millimetres.
  private var panel = PanelSize(width: 1, height: 1)
  private var contactViews = ContactViews()
  /// What the recognizer's sequence numbers are offset by to count across every recognizer
  /// of the screen (`Setup.nextSequence`), as the handlers' stamps do.
  private var sequenceBase = 0
  /// The recognizer's last sequence as last published to `Setup.nextSequence`.
  private var publishedSequence = 0
  private var firings: [GestureEvent] = []
  /// The handler calls since the last flush, in order: a frame's touches, then its motions,
  /// then its firings. Kept with its capacity from flush to flush.
  private var outbox: [DeliveryItem] = []

  /// nil when the device reports no touch position.
  init?(screen: TouchScreen, device: DeviceDescription, node: InputNode?) {
    self.screen = screen
    self.device = device
    self.node = node
    rebuild()
    guard recognizer != nil else { return nil }
  }

  /// Whether the bindings changed since the recognizer was made.
  var isBehind: Bool { screen.version.load(ordering: .acquiring) != version }

  /// Takes the bindings now, if they changed, without cancelling a gesture: when nothing is
  /// in progress (no finger down, nothing waiting: a tap chain, a long press) the recognizer
  /// takes a profile made anew (`rebuild`); otherwise the sequences that begin from now on
  /// take them while the ones in progress go on with theirs (`patch`).
  mutating func refresh(at time: Timestamp) {
    // What the frames before a removal reported is followed before the removal cancels it.
    followStream()
    cancelRemovedViews(at: time)
    guard isBehind || isPatched, let engine = recognizer?.engine else { return }
    if engine.contactsDown == 0, engine.nextDeadline == nil {
      rebuild()
    } else if isBehind {
      patch()
    }
  }

  private mutating func rebuild() {
    let snapshot = screen.snapshot()
    var calibrated = snapshot.bindings
    if let node { calibrated.profile = DeviceSelection.effectiveProfile(calibrated.profile, node: node) }
    if recognizer != nil {
      // The engine stays: it knows where each slot's contact was, which the device does not
      // send again until it changes, and nothing is in progress that the new profile breaks.
      recognizer?.bindings = calibrated
      recognizer?.engine.replaceProfile(calibrated.profile)
    } else {
      recognizer = GestureRecognizer(device: device, bindings: calibrated)
      // The new recognizer's sequences come after every one of the screen's before.
      sequenceBase = screen.setup.withLock { $0.nextSequence } - 1
      publishedSequence = 0
    }
    isPatched = false
    earlierBindings.removeAll()
    take(snapshot, after: nil)
    if let geometry = recognizer?.engine.geometry { panel = PanelSize(width: geometry.width, height: geometry.height) }
  }

  /// The bindings now for the sequences that begin from now on, in the order `rebuild` would
  /// give them, in a profile that keeps every region the sequences in progress may name at
  /// its index (a view gone leaves its region empty, and a named region made since comes
  /// after the views', until the next `rebuild`); the firings of the sequences begun before
  /// find their handlers in the bindings they began with.
  private mutating func patch() {
    guard let old = recognizer?.bindings, let generation = recognizer?.engine.profileGeneration,
      let oldestInUse = recognizer?.engine.oldestGenerationInUse,
      let lastSequence = recognizer?.engine.lastSequenceNumber
    else { return }
    let snapshot = screen.snapshot(keeping: layout)
    var calibrated = snapshot.bindings
    if let node { calibrated.profile = DeviceSelection.effectiveProfile(calibrated.profile, node: node) }
    // Only the bindings some sequence in progress began with are kept.
    earlierBindings.removeAll { $0.generation < oldestInUse }
    earlierBindings.append((generation, old))
    recognizer?.bindings = calibrated
    recognizer?.engine.replaceProfile(calibrated.profile)
    isPatched = true
    take(snapshot, after: lastSequence)
  }

  /// The entry of the binding `event` fired, in the bindings its sequence began with.
  private func bindingEntry(for event: GestureEvent) -> Entry? {
    for earlier in earlierBindings where earlier.generation == event.profileGeneration {
      let handlers = earlier.bindings.handlers
      return handlers.indices.contains(event.binding) ? handlers[event.binding] : nil
    }
    return recognizer?.handler(for: event)
  }

  /// The regions, views, followers and router of `snapshot`; `lastSequence`: the last touch
  /// sequence begun before it, whose motions its new handlers do not follow (nil: nothing
  /// is in progress).
  private mutating func take(_ snapshot: Snapshot, after lastSequence: Int?) {
    version = snapshot.version
    let setupViews = screen.setup.withLock { $0.views }
    var regions = [ScreenRegion?](repeating: nil, count: snapshot.layout.count)
    var regionViews = [TouchView?](repeating: nil, count: snapshot.layout.count)
    for (region, slot) in snapshot.layout.enumerated() {
      switch slot {
      case .named(let index): regions[region] = snapshot.regions[index]
      case .view(let id): regionViews[region] = setupViews.first { $0.id == id }
      case .empty:
        // A view removed while its sequence may go on: its firings are dropped.
        if self.regionViews.indices.contains(region) { regionViews[region] = self.regionViews[region] }
      }
    }
    self.regions = regions
    self.regionViews = regionViews
    layout = snapshot.layout
    // With nothing in progress, what the followers knew is over.
    followers = snapshot.motions.map { entry in
      guard let lastSequence else { return MotionFollower(entry: entry) }
      return followers.first { $0.entry === entry } ?? MotionFollower(entry: entry, after: lastSequence)
    }
    recognizer?.engine.reportsStream = !followers.isEmpty
    let viewRegions = snapshot.viewRegions
    guard !viewRegions.isEmpty else {
      recognizer?.engine.landingRouter = nil
      return
    }
    recognizer?.engine.landingRouter = { [weak screen] point in
      guard let screen, let view = screen.view(at: Position(x: point.x, y: point.y)) else { return nil }
      return viewRegions[view.id]
    }
  }

  var nextDeadline: Timestamp? { recognizer?.engine.nextDeadline }

  mutating func handle(_ event: RawEvent) {
    recognizer?.engine.handle(event, into: &firings)
    publishSequence()
    followTouches()
  }

  /// Tells the handlers added from now on which sequences began before them, once the
  /// landings of `handle` have begun some, and before their events are flushed.
  private mutating func publishSequence() {
    guard let last = recognizer?.engine.lastSequenceNumber, last != publishedSequence else { return }
    publishedSequence = last
    let next = sequenceBase + last + 1
    screen.setup.withLock { $0.nextSequence = next }
  }

  /// Whether a handler stamped `firstSequence` gets the events of the recognizer's sequence
  /// `sequence`.
  private func sees(_ sequence: Int, from firstSequence: Int) -> Bool { sequenceBase + sequence >= firstSequence }

  /// The views' touch handlers learn of the frame just completed, if any wants it.
  private mutating func followTouches() {
    guard screen.touchHandlerCount.load(ordering: .acquiring) > 0, let frame = recognizer?.engine.completedFrame
    else { return }
    contactViews.touches(in: frame, screen: screen, into: &outbox)
  }

  mutating func advance(to time: Timestamp) { recognizer?.engine.advance(to: time, into: &firings) }

  mutating func finish(at time: Timestamp) {
    recognizer?.engine.finish(at: time, into: &firings)
    followTouches()
  }

  mutating func cancel(at time: Timestamp) {
    recognizer?.engine.cancel(at: time, into: &firings)
    followTouches()
    flush()
  }

  /// Sends what fired since the last flush to the screen's queue, in one batch: one hop for
  /// however many handlers and views, none when nothing fired. A handler cancelled or
  /// disabled in the meantime is skipped, and so is a firing of a view removed in the meantime.
  mutating func flush() {
    followStream()
    if !firings.isEmpty {
      for event in firings {
        guard let entry = bindingEntry(for: event) else { continue }
        let view = event.region.flatMap { regionViews.indices.contains($0) ? regionViews[$0] : nil }
        if let view, view.isRemoved { continue }
        let firing = Firing(regions: regions, view: view)
        let handlers = entry.handlers.all
        // A multi-tap began at its first tap: a handler added between its taps waits for the next.
        for handler in handlers where sees(event.firstSequence, from: handler.firstSequence) {
          outbox.append(.firing(handler, event, firing))
        }
        if let view, !handlers.isEmpty { view.publish(ViewEvent(event, firing)) }
      }
    }
    firings.removeAll(keepingCapacity: true)
    screen.delivery.send(&outbox)
  }
}

extension Pipeline {
  /// The stream events since the last call, each turned into the motions of the handlers
  /// that follow it.
  fileprivate mutating func followStream() {
    guard !followers.isEmpty, recognizer?.engine.streamEvents.isEmpty == false else { return }
    followStream(recognizer?.engine.streamEvents ?? [])
    // Cleared once no copy is held, so that the engine's buffer is reused, not copied.
    recognizer?.engine.clearStreamEvents()
  }

  private mutating func followStream(_ events: [GestureStreamEvent]) {
    for event in events {
      // A view removed since goes on here until `cancelRemovedViews` cancels what it follows.
      let view = event.region.flatMap { regionViews.indices.contains($0) ? regionViews[$0] : nil }
      let frame = view?.frame
      for k in followers.indices where followers[k].entry.view === view {
        guard let phase = followers[k].phase(for: event) else { continue }
        let motion = Motion(
          event, gesture: followers[k].entry.kind, phase: phase, view: view, frame: frame, panel: panel)
        for handler in followers[k].entry.all where sees(event.sequence, from: handler.firstSequence) {
          outbox.append(.motion(handler, motion))
        }
        view?.publish(.motion(motion))
      }
    }
  }

  /// Views removed since the last call: what their fingers were doing is cancelled.
  fileprivate mutating func cancelRemovedViews(at time: Timestamp) {
    let removed = screen.removals.withLock { removals -> [Int] in
      defer { removals.removeAll() }
      return removals
    }
    guard !removed.isEmpty else { return }
    for id in removed { contactViews.removeView(id, at: time, into: &outbox) }
    for k in followers.indices {
      guard let view = followers[k].entry.view, removed.contains(view.id), let last = followers[k].last,
        followers[k].cancel()
      else { continue }
      let motion = Motion(
        last, gesture: followers[k].entry.kind, phase: .cancelled, view: view, frame: nil, panel: panel)
      for handler in followers[k].entry.all where sees(last.sequence, from: handler.firstSequence) {
        outbox.append(.motion(handler, motion))
      }
    }
    flush()
  }
}
