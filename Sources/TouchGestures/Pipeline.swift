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

  /// Makes the recognizer anew from the bindings now. The sequence in progress is cancelled
  /// first (its steps end, through the handlers they were made with).
  mutating func refresh(at time: Timestamp, currentPositions: () -> [RawEvent] = { [] }) {
    guard isBehind else { return }
    cancel(at: time)
    rebuild()
    var nothing: [GestureEvent] = []
    for event in currentPositions() { recognizer?.engine.handle(event, into: &nothing) }
  }

  private mutating func rebuild() {
    let (version, bindings, regions) = screen.snapshot()
    var calibrated = bindings
    if let node { calibrated.profile = DeviceSelection.effectiveProfile(bindings.profile, node: node) }
    self.version = version
    self.regions = regions
    recognizer = GestureRecognizer(device: device, bindings: calibrated)
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
  /// the whole batch, none when nothing fired. A handler cancelled in the meantime is skipped.
  mutating func flush() {
    guard !firings.isEmpty else { return }
    defer { firings.removeAll(keepingCapacity: true) }
    guard let recognizer else { return }
    let batch = firings.compactMap { event in recognizer.handler(for: event).map { (entry: $0, event: event) } }
    guard !batch.isEmpty else { return }
    let regions = regions
    screen.firingHops.add(1, ordering: .relaxed)
    screen.queue.async {
      for (entry, event) in batch where !entry.token.isCancelled { entry.deliver(event, regions) }
    }
  }
}
