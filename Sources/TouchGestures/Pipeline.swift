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
  private var regions: [ScreenRegion] = []
  /// Each profile region's view; nil for the named regions.
  private var regionViews: [TouchView?] = []
  private var version = -1
  private var firings: [GestureEvent] = []

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

  /// Makes the recognizer anew from the bindings now, if they changed and nothing is in
  /// progress: no finger down and nothing waiting (a tap chain, a long press), so that a
  /// change never cancels a gesture. Until then the recognizer made before goes on.
  mutating func refresh(at time: Timestamp) {
    guard isBehind, let engine = recognizer?.engine, engine.contactsDown == 0, engine.nextDeadline == nil else {
      return
    }
    rebuild()
  }

  private mutating func rebuild() {
    let snapshot = screen.snapshot()
    var calibrated = snapshot.bindings
    if let node { calibrated.profile = DeviceSelection.effectiveProfile(calibrated.profile, node: node) }
    version = snapshot.version
    regions = snapshot.regions
    var regionViews = [TouchView?](repeating: nil, count: calibrated.profile.regions.count)
    let setupViews = screen.setup.withLock { $0.views }
    for view in setupViews {
      if let region = snapshot.viewRegions[view.id], regionViews.indices.contains(region) {
        regionViews[region] = view
      }
    }
    self.regionViews = regionViews
    recognizer = GestureRecognizer(device: device, bindings: calibrated)
    let viewRegions = snapshot.viewRegions
    if !viewRegions.isEmpty {
      recognizer?.engine.landingRouter = { [weak screen] point in
        guard let screen, let view = screen.view(at: Position(x: point.x, y: point.y)) else { return nil }
        return viewRegions[view.id]
      }
    }
  }

  var nextDeadline: Timestamp? { recognizer?.engine.nextDeadline }

  mutating func handle(_ event: RawEvent) { recognizer?.engine.handle(event, into: &firings) }

  mutating func advance(to time: Timestamp) { recognizer?.engine.advance(to: time, into: &firings) }

  mutating func finish(at time: Timestamp) { recognizer?.engine.finish(at: time, into: &firings) }

  mutating func cancel(at time: Timestamp) {
    recognizer?.engine.cancel(at: time, into: &firings)
    flush()
  }

  /// Sends what fired since the last flush to the screen's queue, in one block: one hop for
  /// the whole batch, none when nothing fired. A handler cancelled or disabled in the
  /// meantime is skipped, and so is a firing of a view removed in the meantime.
  mutating func flush() {
    guard !firings.isEmpty else { return }
    defer { firings.removeAll(keepingCapacity: true) }
    guard let recognizer else { return }
    var batch: [(handler: Handler, event: GestureEvent, firing: Firing)] = []
    for event in firings {
      guard let entry = recognizer.handler(for: event) else { continue }
      let view = event.region.flatMap { regionViews.indices.contains($0) ? regionViews[$0] : nil }
      if let view, view.isRemoved { continue }
      let firing = Firing(regions: regions, view: view)
      for handler in entry.handlers.all { batch.append((handler, event, firing)) }
    }
    guard !batch.isEmpty else { return }
    screen.firingHops.add(1, ordering: .relaxed)
    let sent = batch
    screen.queue.async {
      for (handler, event, firing) in sent where handler.token.isEnabled {
        if let view = firing.view, view.isRemoved { continue }
        handler.deliver(event, firing)
      }
    }
  }
}
