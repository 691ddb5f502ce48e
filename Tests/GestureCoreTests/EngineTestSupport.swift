@testable import GestureCore

/// A 200 mm × 100 mm protocol-B test panel (4000 × 2000 units, 20 units/mm), so tests speak
/// millimetres and milliseconds.
enum TestPanel {
  static let unitsPerMillimetre: Int32 = 20
  static let width = 200.0
  static let height = 100.0

  static var device: DeviceDescription {
    let x = AxisInfo(minimum: 0, maximum: 4000, resolution: unitsPerMillimetre)
    let y = AxisInfo(minimum: 0, maximum: 2000, resolution: unitsPerMillimetre)
    return DeviceDescription(
      name: "Test Panel", vendor: 0x1234, product: 0x5678, properties: [InputProperty.direct],
      keys: [KeyCode.btnTouch],
      axes: [
        AbsCode.x: x, AbsCode.y: y, AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9),
        AbsCode.mtPositionX: x, AbsCode.mtPositionY: y,
        AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
      ])
  }
}

/// Writes protocol-B events the way the kernel would, one frame per call.
struct Touches {
  private(set) var events: [RawEvent] = []
  private var slots: [Int: Int32] = [:]  // finger → slot
  private var currentSlot: Int32 = 0
  private var nextTrackingID: Int32 = 100

  private mutating func emit(_ ms: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) {
    events.append(
      RawEvent(time: Timestamp(microseconds: Int64((ms * 1000).rounded())), type: type, code: code, value: value))
  }

  private mutating func select(_ slot: Int32, _ ms: Double) {
    if slot != currentSlot {
      emit(ms, EventType.abs, AbsCode.mtSlot, slot)
      currentSlot = slot
    }
  }

  private func units(_ mm: Double) -> Int32 { Int32((mm * Double(TestPanel.unitsPerMillimetre)).rounded()) }

  /// Finger `finger` touches down at (x, y) mm.
  mutating func down(_ finger: Int, _ x: Double, _ y: Double, at ms: Double) {
    downWithoutSync(finger, x, y, at: ms)
    emit(ms, EventType.syn, SynCode.report, 0)
  }

  mutating func downWithoutSync(_ finger: Int, _ x: Double, _ y: Double, at ms: Double) {
    var slot: Int32 = 0
    while slots.values.contains(slot) { slot += 1 }
    slots[finger] = slot
    select(slot, ms)
    emit(ms, EventType.abs, AbsCode.mtTrackingID, nextTrackingID)
    nextTrackingID += 1
    emit(ms, EventType.abs, AbsCode.mtPositionX, units(x))
    emit(ms, EventType.abs, AbsCode.mtPositionY, units(y))
  }

  mutating func move(_ finger: Int, _ x: Double, _ y: Double, at ms: Double) {
    moveWithoutSync(finger, x, y, at: ms)
    emit(ms, EventType.syn, SynCode.report, 0)
  }

  mutating func moveWithoutSync(_ finger: Int, _ x: Double, _ y: Double, at ms: Double) {
    guard let slot = slots[finger] else { return }
    select(slot, ms)
    emit(ms, EventType.abs, AbsCode.mtPositionX, units(x))
    emit(ms, EventType.abs, AbsCode.mtPositionY, units(y))
  }

  mutating func up(_ finger: Int, at ms: Double) {
    upWithoutSync(finger, at: ms)
    emit(ms, EventType.syn, SynCode.report, 0)
  }

  mutating func upWithoutSync(_ finger: Int, at ms: Double) {
    guard let slot = slots.removeValue(forKey: finger) else { return }
    select(slot, ms)
    emit(ms, EventType.abs, AbsCode.mtTrackingID, -1)
  }

  /// Another axis of finger `finger`'s slot (touch-major, tool type), without a SYN_REPORT.
  mutating func axisWithoutSync(_ finger: Int, _ code: UInt16, _ value: Int32, at ms: Double) {
    guard let slot = slots[finger] else { return }
    select(slot, ms)
    emit(ms, EventType.abs, code, value)
  }

  mutating func sync(at ms: Double) { emit(ms, EventType.syn, SynCode.report, 0) }

  /// Raw events as they are, for what the helpers above cannot write.
  mutating func append(_ raw: [RawEvent]) { events += raw }

  /// A tap of `fingers` fingers 12 mm apart at (x, y), lasting `duration` ms.
  mutating func tap(_ x: Double, _ y: Double, at ms: Double, duration: Double = 80, fingers: Int = 1) {
    for f in 0..<fingers { down(f + 1, x + Double(f) * 12, y, at: ms + Double(f) * 10) }
    for f in 0..<fingers { up(f + 1, at: ms + duration + Double(f) * 5) }
  }

  /// Moves fingers in a straight line from their start to their end in `steps` frames.
  mutating func drag(
    _ paths: [(finger: Int, from: (Double, Double), to: (Double, Double))], from start: Double, to end: Double,
    steps: Int = 10, lift: Bool = true
  ) {
    for path in paths { downWithoutSync(path.finger, path.from.0, path.from.1, at: start) }
    sync(at: start)
    for step in 1...steps {
      let t = Double(step) / Double(steps)
      let ms = start + (end - start) * t
      for path in paths {
        moveWithoutSync(
          path.finger, path.from.0 + (path.to.0 - path.from.0) * t, path.from.1 + (path.to.1 - path.from.1) * t,
          at: ms)
      }
      sync(at: ms)
    }
    if lift {
      for path in paths { upWithoutSync(path.finger, at: end) }
      sync(at: end)
    }
  }
}

/// Bindings for tests, written compactly.
func bind(
  _ gesture: GestureKind, taps: Int = 1, fingers: Int? = nil, _ direction: Direction? = nil, edge: Edge? = nil,
  region: Int? = nil, name: String? = nil, step: Double? = nil
) -> Binding {
  Binding(
    name: name, gesture: gesture, taps: taps, fingers: fingers, direction: direction, edge: edge, region: region,
    step: step)
}

func profile(
  _ bindings: [Binding], regions: [Region] = [], thresholds: Thresholds = Thresholds(), rotation: Rotation = .none,
  simultaneous: [GestureKind] = []
) -> Profile {
  var p = Profile()
  p.bindings = bindings
  p.regions = regions
  p.thresholds = thresholds
  p.rotation = rotation
  p.simultaneous = GestureKindSet(simultaneous)
  return p
}

/// What fired, compactly: "gesture[/dir][xN taps][fingers f] @ms binding#i".
struct Fired: Equatable, CustomStringConvertible {
  var event: GestureEvent
  var ms: Double { Double(event.time.microseconds) / 1000 }
  var description: String {
    var s = "\(event.gesture.rawValue)"
    if let d = event.direction { s += "/\(d.rawValue)" }
    if event.gesture == .tap { s += " taps=\(event.taps)" }
    s += " fingers=\(event.fingers) @\(ms)ms binding=\(event.binding)"
    return s
  }
}

/// Runs a script through the engine as replay does (finish at the last event).
func run(_ touches: Touches, _ profile: Profile, device: DeviceDescription = TestPanel.device) -> [Fired] {
  Replay.run(device: device, events: touches.events, configuration: Configuration(profiles: [profile])).firings.map {
    Fired(event: $0)
  }
}

/// The short form of firings, for readable expectations.
func summary(_ fired: [Fired]) -> [String] { fired.map(\.description) }
