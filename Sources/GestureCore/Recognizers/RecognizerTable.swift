/// Every recognizer of one touch sequence, one per gesture kind: the kind table, and the
/// one place that names each kind. The arbiter goes through it with `forEachKind` (every
/// kind, in this order: the order their transitions are traced in), asking each kind's
/// recognizer with `ask` and moving it with `apply`; inlined, each call has its kind as a
/// constant and the switch on it folds away.
struct RecognizerTable {
  var tap = TapRecognizer()
  var longPress = LongPressRecognizer()
  var swipe = SwipeRecognizer()
  var pan = ContinuousRecognizer<PanMeasure>()
  var pinch = ContinuousRecognizer<PinchMeasure>()
  var rotate = ContinuousRecognizer<RotateMeasure>()

  /// `body` for every kind, in the table's order.
  @inline(__always)
  static func forEachKind(_ body: (GestureKind) -> Void) {
    body(.tap)
    body(.longPress)
    body(.swipe)
    body(.pan)
    body(.pinch)
    body(.rotate)
  }

  /// `body` for the kinds judged at the last finger's lift, in the order they are judged:
  /// the swipe, on the fingers' motion, before the tap, which a swipe that won fails.
  @inline(__always)
  static func forEachKindAtLastLift(_ body: (GestureKind) -> Void) {
    body(.swipe)
    body(.tap)
  }

  /// `body` for each kind that steps, in the order one frame's steps fire (the levels of a
  /// sequence are kept in runs in this order): pan, pinch, rotate, then the long press's
  /// drag. Unrolled: inlined, each call has its kind as a constant, and the switches on it
  /// in the methods below fold.
  @inline(__always)
  static func forEachSteppingKind(_ body: (GestureKind) -> Void) {
    body(.pan)
    body(.pinch)
    body(.rotate)
    body(.longPress)
  }

  /// `forEachSteppingKind` without the long press: the kinds recognized by a measure
  /// crossing a threshold, which a frame evaluates.
  @inline(__always)
  static func forEachContinuousKind(_ body: (GestureKind) -> Void) {
    body(.pan)
    body(.pinch)
    body(.rotate)
  }

  /// Asks `kind`'s recognizer `query`.
  @inline(__always)
  func ask<Q: RecognizerQuery>(_ kind: GestureKind, _ query: Q) -> Q.Answer {
    switch kind {
    case .tap: query.ask(tap)
    case .longPress: query.ask(longPress)
    case .swipe: query.ask(swipe)
    case .pan: query.ask(pan)
    case .pinch: query.ask(pinch)
    case .rotate: query.ask(rotate)
    }
  }

  /// `action` on `kind`'s recognizer, its transition traced; whether it moved.
  @inline(__always)
  mutating func apply<A: RecognizerAction>(_ kind: GestureKind, _ action: inout A, trace: inout Tracer) -> Bool {
    switch kind {
    case .tap: Self.apply(&action, to: &tap, trace: &trace)
    case .longPress: Self.apply(&action, to: &longPress, trace: &trace)
    case .swipe: Self.apply(&action, to: &swipe, trace: &trace)
    case .pan: Self.apply(&action, to: &pan, trace: &trace)
    case .pinch: Self.apply(&action, to: &pinch, trace: &trace)
    case .rotate: Self.apply(&action, to: &rotate, trace: &trace)
    }
  }

  @inline(__always)
  private static func apply<A: RecognizerAction, R: Recognizer>(
    _ action: inout A, to recognizer: inout R, trace: inout Tracer
  ) -> Bool {
    guard action.includes(R.kind), let t = action.apply(to: &recognizer) else { return false }
    trace.record(R.kind.rawValue, t)
    return true
  }

  /// The recognizer type of `kind`, for what is asked once per profile.
  static func recognizer(of kind: GestureKind) -> any Recognizer.Type {
    switch kind {
    case .tap: TapRecognizer.self
    case .longPress: LongPressRecognizer.self
    case .swipe: SwipeRecognizer.self
    case .pan: ContinuousRecognizer<PanMeasure>.self
    case .pinch: ContinuousRecognizer<PinchMeasure>.self
    case .rotate: ContinuousRecognizer<RotateMeasure>.self
    }
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
    // Inlined: each kind's call then holds its measure's test alone.
    @inline(__always)
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

  /// The continuous measures a `QuietBox` holds: dx, dy, scale, angle (0 where a kind has no
  /// measure, which its box does not bound).
  var quietCoordinates: (Double, Double, Double, Double) {
    (pan.measure?.dx ?? 0, pan.measure?.dy ?? 0, pinch.measure?.scale ?? 0, rotate.measure?.angle ?? 0)
  }

  /// Whether `window` holds `kind`'s measure now; false without a measure.
  func isInside(_ kind: GestureKind, _ window: StepWindow) -> Bool {
    switch kind {
    case .pan: pan.measure.map { window.contains($0.windowCoordinates) } ?? false
    case .pinch: pinch.measure.map { window.contains($0.windowCoordinates) } ?? false
    case .rotate: rotate.measure.map { window.contains($0.windowCoordinates) } ?? false
    case .tap, .longPress, .swipe: false
    }
  }

  /// Whether `level` (of `kind`) moves at its measure now; false without a measure.
  func wouldMove(_ kind: GestureKind, _ level: StepLevel) -> Bool {
    switch kind {
    case .pan: pan.measure?.wouldMove(level) ?? false
    case .pinch: pinch.measure?.wouldMove(level) ?? false
    case .rotate: rotate.measure?.wouldMove(level) ?? false
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

extension GestureKindSet {
  func isDisjoint(with other: GestureKindSet) -> Bool { bits & other.bits == 0 }
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
