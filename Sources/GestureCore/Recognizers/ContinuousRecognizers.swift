/// The continuous recognizers, one per kind, and the only place that lists them: a new
/// continuous kind is its `GestureMeasure` file, its row in `GestureKind.traits` and its
/// line in each switch here. The arbiter speaks to them by kind.
struct ContinuousRecognizers {
  private var pan = ContinuousRecognizer<PanMeasure>()
  private var pinch = ContinuousRecognizer<PinchMeasure>()
  private var rotate = ContinuousRecognizer<RotateMeasure>()

  /// `body` for each kind, in the order one frame's steps fire. Unrolled: inlined, each
  /// call has its kind as a constant, and the switches on it in the methods below fold.
  @inline(__always)
  static func forEachKind(_ body: (GestureKind) -> Void) {
    body(.pan)
    body(.pinch)
    body(.rotate)
  }

  mutating func reset() {
    pan.reset()
    pinch.reset()
    rotate.reset()
  }

  /// A finger of the sequence landed: every kind takes its reference afresh.
  mutating func fingersLanded(_ fingers: [SequenceFinger], geometry: PanelGeometry, trace: inout Tracer) {
    trace.record("pan", pan.fingersLanded(fingers, geometry: geometry))
    trace.record("pinch", pinch.fingersLanded(fingers, geometry: geometry))
    trace.record("rotate", rotate.fingersLanded(fingers, geometry: geometry))
  }

  mutating func countFixed(_ count: Int, trace: inout Tracer) {
    trace.record("pan", pan.countFixed(count))
    trace.record("pinch", pinch.countFixed(count))
    trace.record("rotate", rotate.countFixed(count))
  }

  /// The measures of `kinds` follow the fingers. Inlined into the arbiter's frame, with each
  /// measure's `update`: a call was passed a copy of the arbiter's geometry (161 bytes, a
  /// `memcpy` every frame).
  @inline(__always)
  mutating func update(_ fingers: [SequenceFinger], geometry: PanelGeometry, kinds: GestureKindSet) {
    if kinds.contains(.pan) { pan.update(fingers, geometry: geometry) }
    if kinds.contains(.pinch) { pinch.update(fingers, geometry: geometry) }
    if kinds.contains(.rotate) { rotate.update(fingers, geometry: geometry) }
  }

  /// Fails every kind for which `fails` is true.
  mutating func fail(_ why: RecognizerFailure, trace: inout Tracer, where fails: (GestureKind) -> Bool = { _ in true })
  {
    if fails(.pan) { trace.record("pan", pan.fail(why)) }
    if fails(.pinch) { trace.record("pinch", pinch.fail(why)) }
    if fails(.rotate) { trace.record("rotate", rotate.fail(why)) }
  }

  /// Recognizes `kind` if it is tracking and its measure has crossed the threshold of a
  /// bound direction; returns that direction. Mutating, so the arbiter passes these
  /// recognizers in place: a non-mutating call copied them (160 bytes) every frame.
  mutating func recognizeIfCrossed(
    _ kind: GestureKind, _ bound: [BindingIndex.Continuous], limits: RecognitionLimits, trace: inout Tracer
  ) -> Direction? {
    func attempt<M>(_ r: inout ContinuousRecognizer<M>, _ name: String) -> Direction? {
      guard r.isTracking, let direction = r.measure?.crossed(bound, limits: limits) else { return nil }
      trace.record(name, r.recognize(direction))
      return direction
    }
    switch kind {
    case .pan: return attempt(&pan, "pan")
    case .pinch: return attempt(&pinch, "pinch")
    case .rotate: return attempt(&rotate, "rotate")
    case .tap, .longPress, .swipe: return nil
    }
  }

  func isRecognized(_ kind: GestureKind) -> Bool {
    switch kind {
    case .pan: pan.isRecognized
    case .pinch: pinch.isRecognized
    case .rotate: rotate.isRecognized
    case .tap, .longPress, .swipe: false
    }
  }

  /// Neither failed nor recognized: it may still be recognized.
  func isPossible(_ kind: GestureKind) -> Bool {
    func open<M>(_ r: ContinuousRecognizer<M>) -> Bool { r.state == .waiting || r.state == .tracking }
    switch kind {
    case .pan: return open(pan)
    case .pinch: return open(pinch)
    case .rotate: return open(rotate)
    case .tap, .longPress, .swipe: return false
    }
  }

  func isTracking(_ kind: GestureKind) -> Bool {
    switch kind {
    case .pan: pan.isTracking
    case .pinch: pinch.isTracking
    case .rotate: rotate.isTracking
    case .tap, .longPress, .swipe: false
    }
  }

  func levelMeasure(_ kind: GestureKind, along direction: Direction) -> Double? {
    switch kind {
    case .pan: pan.measure?.levelMeasure(along: direction)
    case .pinch: pinch.measure?.levelMeasure(along: direction)
    case .rotate: rotate.measure?.levelMeasure(along: direction)
    case .tap, .longPress, .swipe: nil
    }
  }

  func report(_ kind: GestureKind, into event: inout GestureEvent) {
    switch kind {
    case .pan: pan.measure?.report(into: &event)
    case .pinch: pinch.measure?.report(into: &event)
    case .rotate: rotate.measure?.report(into: &event)
    case .tap, .longPress, .swipe: break
    }
  }
}

/// The arbiter's trace: lines of text while `isOn` (--verbose), nothing built when off.
struct Tracer {
  var isOn = false
  var lines: [String] = []
  /// The time lines are stamped with.
  var now = Timestamp(microseconds: 0)

  /// Structured records (`TraceRecord`) are kept while this is on (trace pictures, the
  /// monitor's live view), independently of the text lines.
  var keepsRecords = false
  var records: [TraceRecord] = []

  mutating func record<State: CustomStringConvertible>(_ name: String, _ t: Transition<State>?) {
    guard let t else { return }
    if isOn { lines.append("\(now) \(name): \(t.from) → \(t.event) → \(t.to)") }
    if keepsRecords { records.append(TraceRecord(recognizer: name, transition: t, at: now)) }
  }

  /// Call as `if tracer.keepsRecords { tracer.keep(…) }`.
  mutating func keep(_ what: TraceRecord.What) {
    records.append(TraceRecord(time: now, what: what))
  }

  /// Call as `if tracer.isOn { tracer.note(…) }` so that nothing is formatted when off.
  mutating func note(_ message: String) {
    lines.append("\(now) \(message)")
  }
}
