/// Every recognizer of one touch sequence, one per gesture kind: the kind table. The arbiter
/// goes through it with `applyToTap` and `applyToTheOthers` (every kind, in this order: the
/// order their transitions are traced in) and, for a frame's measures and steps, through
/// `forEachContinuousKind` (pan, pinch, rotate: the order one frame's steps fire in).
struct RecognizerTable {
  var tap = TapRecognizer()
  var longPress = LongPressRecognizer()
  var swipe = SwipeRecognizer()
  var pan = ContinuousRecognizer<PanMeasure>()
  var pinch = ContinuousRecognizer<PinchMeasure>()
  var rotate = ContinuousRecognizer<RotateMeasure>()

  /// `action` on the tap, traced; whether it moved.
  @inline(__always)
  mutating func applyToTap<A: RecognizerAction>(_ action: inout A, trace: inout Tracer) -> Bool {
    Self.apply(&action, to: &tap, trace: &trace)
  }

  /// `action` on every kind but the tap, in the table's order, each transition traced.
  @inline(__always)
  mutating func applyToTheOthers<A: RecognizerAction>(_ action: inout A, trace: inout Tracer) {
    Self.apply(&action, to: &longPress, trace: &trace)
    Self.apply(&action, to: &swipe, trace: &trace)
    Self.apply(&action, to: &pan, trace: &trace)
    Self.apply(&action, to: &pinch, trace: &trace)
    Self.apply(&action, to: &rotate, trace: &trace)
  }

  @inline(__always)
  @discardableResult
  private static func apply<A: RecognizerAction, R: Recognizer>(
    _ action: inout A, to recognizer: inout R, trace: inout Tracer
  ) -> Bool {
    guard action.includes(R.kind), let t = action.apply(to: &recognizer) else { return false }
    trace.record(R.kind.rawValue, t)
    return true
  }

  /// `body` for each continuous kind, in the order one frame's steps fire. Unrolled: inlined,
  /// each call has its kind as a constant, and the switches on it in the methods below fold.
  @inline(__always)
  static func forEachContinuousKind(_ body: (GestureKind) -> Void) {
    body(.pan)
    body(.pinch)
    body(.rotate)
  }

  /// The measures of `kinds` follow the track's frame. Inlined into the arbiter's frame, with
  /// each measure's `update`.
  @inline(__always)
  mutating func frame(_ motion: MotionFrame, kinds: GestureKindSet) {
    if kinds.contains(.pan) { pan.frame(motion) }
    if kinds.contains(.pinch) { pinch.frame(motion) }
    if kinds.contains(.rotate) { rotate.frame(motion) }
  }

  /// Recognizes `kind` if it is tracking and its measure has crossed the threshold of a
  /// bound direction; returns that direction. Mutating, so that the arbiter passes the
  /// table in place rather than a copy.
  mutating func recognizeIfCrossed(
    _ kind: GestureKind, _ bound: [BindingIndex.Continuous], limits: RecognitionLimits, trace: inout Tracer
  ) -> Direction? {
    func attempt<M>(_ r: inout ContinuousRecognizer<M>) -> Direction? {
      guard r.isTracking, let direction = r.measure?.crossed(bound, limits: limits) else { return nil }
      trace.record(M.kind.rawValue, r.recognize(direction))
      return direction
    }
    switch kind {
    case .pan: return attempt(&pan)
    case .pinch: return attempt(&pinch)
    case .rotate: return attempt(&rotate)
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

  func isTracking(_ kind: GestureKind) -> Bool {
    switch kind {
    case .pan: pan.isTracking
    case .pinch: pinch.isTracking
    case .rotate: rotate.isTracking
    case .tap, .longPress, .swipe: false
    }
  }

  /// Whether `kind` may still be recognized in this sequence.
  func isPossible(_ kind: GestureKind) -> Bool {
    switch kind {
    case .tap: tap.isPossible
    case .longPress: longPress.isPossible
    case .swipe: swipe.isPossible
    case .pan: pan.isPossible
    case .pinch: pinch.isPossible
    case .rotate: rotate.isPossible
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
