/// What one continuous gesture kind measures from the fingers (pan: the centroid's offset,
/// pinch: the scale, rotate: the angle), relative to the reference: the fingers' positions
/// when the sequence's last finger landed. Each frame it reads the sequence's `MotionTrack`
/// (its `MotionFrame`), the one measurement the stream reports too. A new kind is one of these plus its row in
/// `GestureKind.traits`.
protocol GestureMeasure: CustomStringConvertible {
  static var kind: GestureKind { get }
  /// Measures from the reference, or says why the fingers give no usable reference.
  static func reference(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Result<Self, RecognizerFailure>
  /// Follows the track, restarted at the reference this measure was taken at.
  mutating func update(_ motion: MotionFrame)
  /// The measure step levels are counted on, along `direction`'s axis (growing towards the
  /// directions that raise a level); see `ContinuousMeasure`.
  func levelMeasure(along direction: Direction) -> Double
  /// `level.wouldMove(levelMeasure(along: level.direction))`, where a measure may decide it
  /// without working its level measure out.
  func wouldMove(_ level: StepLevel) -> Bool
  /// What a `StepWindow` is tested on: on each axis (`StepLevel.axis`), the number its
  /// levels' `quietBounds` are in.
  var windowCoordinates: (Double, Double) { get }
  /// The bound direction whose recognition threshold the gesture has crossed, if any.
  func crossed(_ bound: [BindingIndex.Continuous], limits: RecognitionLimits) -> Direction?
  /// Puts the values a firing reports (scale, angle, dx/dy) into `event`.
  func report(into event: inout GestureEvent)
}

extension GestureMeasure {
  func wouldMove(_ level: StepLevel) -> Bool { level.wouldMove(levelMeasure(along: level.direction)) }
}

/// The thresholds the continuous measures are recognized at (from `Thresholds`, `tap-slop`
/// in millimetres): the four numbers they read, so that a frame does not pass the whole
/// `Thresholds` to every tracking kind.
struct RecognitionLimits {
  var pinchIn: Double
  var pinchOut: Double
  var rotateAngle: Double
  var slop: Double

  init(_ thresholds: Thresholds, slop: Double) {
    pinchIn = thresholds.pinchIn
    pinchOut = thresholds.pinchOut
    rotateAngle = thresholds.rotateAngle
    self.slop = slop
  }
}

/// The recognizer every continuous kind shares:
///
/// ```
///  waiting ──(its finger count landed)──▶ tracking ──(threshold crossed, bound)──▶ recognized
///     │                 └──(a finger lands: new reference)──▶ tracking
///     └──(a finger lifts | wrong finger count | spoiled | another gesture won)──▶ failed
/// ```
/// Recognized stays recognized until the sequence ends: the arbiter steps its bindings.
struct ContinuousRecognizer<Measure: GestureMeasure> {
  enum State: Equatable, CustomStringConvertible {
    case waiting
    case tracking
    case failed(RecognizerFailure)
    case recognized(Direction)

    var description: String {
      switch self {
      case .waiting: "waiting"
      case .tracking: "tracking"
      case .failed(let why): "failed (\(why))"
      case .recognized(let direction): "recognized (\(direction.rawValue))"
      }
    }
  }

  private(set) var state = State.waiting {
    didSet {
      isTracking = if case .tracking = state { true } else { false }
      isRecognized = if case .recognized = state { true } else { false }
    }
  }
  /// Whether `state` is `.tracking`, and whether it is `.recognized`: kept by its observer,
  /// since every frame asks several times and a flag is cheaper to read than a match.
  private(set) var isTracking = false
  private(set) var isRecognized = false
  /// Valid while tracking or recognized.
  private(set) var measure: Measure?

  mutating func reset() {
    state = .waiting
    measure = nil
  }

  /// Tracking or recognized: the measure follows the fingers.
  var isLive: Bool { isTracking || isRecognized }

  /// A finger landed: the reference is taken afresh from all fingers down now.
  mutating func fingersLanded(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Transition<State>? {
    guard state == .waiting || state == .tracking else { return nil }
    let allowed = Measure.kind.traits.fingers
    if fingers.count < allowed.lowerBound { return nil }
    if fingers.count > allowed.upperBound { return move(to: .failed(.wrongFingerCount), on: "finger landed") }
    switch Measure.reference(fingers, geometry: geometry) {
    case .success(let reference):
      measure = reference
      return move(to: .tracking, on: "reference taken")
    case .failure(let why):
      return move(to: .failed(why), on: "reference taken")
    }
  }

  /// The count is fixed: a count the kind does not take fails it.
  mutating func countFixed(_ count: Int) -> Transition<State>? {
    guard state == .waiting || state == .tracking, !Measure.kind.traits.fingers.contains(count) else { return nil }
    return move(to: .failed(.wrongFingerCount), on: "finger count fixed")
  }

  @inline(__always)  // See RecognizerTable.frame.
  mutating func update(_ motion: MotionFrame) {
    guard isLive else { return }
    measure?.update(motion)
  }

  mutating func recognize(_ direction: Direction) -> Transition<State>? {
    guard state == .tracking else { return nil }
    return move(to: .recognized(direction), on: "threshold crossed")
  }

  mutating func fail(_ why: RecognizerFailure) -> Transition<State>? {
    switch state {
    case .waiting, .tracking: return move(to: .failed(why), on: why.event)
    case .failed, .recognized: return nil
    }
  }

  private mutating func move(to new: State, on event: StaticString) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, event: event, to: new)
  }
}

extension ContinuousRecognizer: Recognizer {
  static var kind: GestureKind { Measure.kind }

  /// Neither failed nor recognized: it may still be recognized.
  var isPossible: Bool { state == .waiting || state == .tracking }
  var recognized: Direction?? {
    if case .recognized(let direction) = state { return .some(direction) }
    return nil
  }
  /// Recognized on moves, one-shot or stepping.
  static func firesOnMoves(_ binding: Binding) -> Bool { true }

  mutating func landed(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Transition<State>? {
    fingersLanded(fingers, geometry: geometry)
  }

  @inline(__always)  // Once per frame for each bound kind, from the arbiter's frame.
  mutating func frame(_ motion: MotionFrame) {
    update(motion)
  }

  mutating func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>? {
    fail(.lifted)
  }

  /// Its binding in `direction` without `step`.
  func binding(_ direction: Direction?, in bound: BindingIndex.SequenceBindings, near: EdgeProximity) -> Int? {
    bound.continuous.first { $0.kind == Self.kind && $0.direction == direction && $0.width == nil }?.binding
  }
}

/// A step binding's level (see docs/configuration.md, "Steps"): `n` moves by one whenever
/// the measure passes the next boundary, with one level of hysteresis.
struct StepLevel {
  var binding: Int
  var kind: GestureKind
  var direction: Direction
  var width: Double
  private(set) var level: Int
  /// The measures that move the level up and down, `(level ± 1) · width`: worked out when
  /// the level moves rather than at every frame's `wouldMove`.
  private var raiseAt: Double
  private var lowerAt: Double
  /// For a pinch, whose measure is the logarithm of its scale: scales strictly between these
  /// (the exponentials of `lowerAt` and `raiseAt`, a little inside) cannot move the level, so
  /// most frames need no logarithm (`wouldMove(scale:)`).
  private var lowerAtScale = Double.infinity
  private var raiseAtScale = -Double.infinity
  /// Steps fired so far in this sequence (K of the last one).
  var fired = 0

  init(binding: Int, kind: GestureKind, direction: Direction, width: Double, level: Int = 0) {
    self.binding = binding
    self.kind = kind
    self.direction = direction
    self.width = width
    self.level = level
    raiseAt = Double(level + 1) * width
    lowerAt = Double(level - 1) * width
    setScaleBounds()
  }

  private mutating func setScaleBounds() {
    guard kind == .pinch else { return }
    // Far wider margins than the few ulps by which exp and log may be off.
    lowerAtScale = naturalExp(lowerAt) * (1 + 1e-9)
    raiseAtScale = naturalExp(raiseAt) * (1 - 1e-9)
  }

  /// Whether `follow(measure)` may move the level: most frames it does not, and this reads
  /// the level without the write (and the array's uniqueness check) of `follow`. Never
  /// false where `follow` would move (an infinite measure says true; `follow` declines it).
  func wouldMove(_ measure: Double) -> Bool { measure >= raiseAt || measure <= lowerAt }

  /// Where the measure moves no level: strictly between these, in the measure's
  /// `windowCoordinates` (a pinch's scale, the others' level measure).
  var quietBounds: (lower: Double, upper: Double) {
    kind == .pinch ? (lowerAtScale, raiseAtScale) : (lowerAt, raiseAt)
  }

  /// Which of the measure's `windowCoordinates` this level reads: a pan's vertical levels
  /// the second, every other level the first.
  var axis: Int { kind == .pan && !direction.isHorizontal ? 1 : 0 }

  /// `wouldMove(ln scale)` for a pinch's level, the logarithm taken only near the bounds.
  func wouldMove(scale: Double) -> Bool {
    if scale > lowerAtScale && scale < raiseAtScale { return false }
    return wouldMove(naturalLog(scale))
  }

  /// Moves the level to follow `measure`; returns the signed number of levels moved.
  /// Bounded so that an absurd measure cannot flood the output in one frame.
  mutating func follow(_ measure: Double) -> Int {
    // Two fingers reported at one spot give a scale of 0 (ln 0 = -inf): no level to follow.
    guard measure.isFinite else { return 0 }
    var moved = 0
    while moved < Self.maximumPerFrame, measure >= Double(level + 1) * width {
      level += 1
      moved += 1
    }
    while moved > -Self.maximumPerFrame, measure <= Double(level - 1) * width {
      level -= 1
      moved -= 1
    }
    // Where the level stayed, its bounds are those it had (and a pinch's exponentials).
    guard moved != 0 else { return 0 }
    raiseAt = Double(level + 1) * width
    lowerAt = Double(level - 1) * width
    setScaleBounds()
    return moved
  }

  /// The steps this binding fires for `moved` levels: moves in its own direction.
  func steps(for moved: Int) -> Int { direction.raisesLevel ? max(0, moved) : max(0, -moved) }

  /// The steps due at recognition: the level it already stands at, in its direction.
  var due: Int { direction.raisesLevel ? max(0, level) : max(0, -level) }

  static let maximumPerFrame = 1000
}

/// Where one kind's measure can be without moving any of its step levels: strictly between
/// `lower` and `upper` on both axes of its `windowCoordinates`. A frame inside it need not
/// look at the levels one by one. Empty until `enclose` sets it.
struct StepWindow {
  private var lower = (Double.infinity, Double.infinity)
  private var upper = (-Double.infinity, -Double.infinity)

  /// The window inside every one of `levels`' quiet bounds.
  mutating func enclose(_ levels: ArraySlice<StepLevel>) {
    lower = (-.infinity, -.infinity)
    upper = (.infinity, .infinity)
    for level in levels {
      let bounds = level.quietBounds
      if level.axis == 0 {
        lower.0 = max(lower.0, bounds.lower)
        upper.0 = min(upper.0, bounds.upper)
      } else {
        lower.1 = max(lower.1, bounds.lower)
        upper.1 = min(upper.1, bounds.upper)
      }
    }
  }

  /// Whether `coordinates` move none of the levels it encloses (false for NaN).
  @inline(__always)
  func contains(_ coordinates: (Double, Double)) -> Bool {
    lower.0 < coordinates.0 && coordinates.0 < upper.0 && lower.1 < coordinates.1 && coordinates.1 < upper.1
  }

  /// The window on each axis, for a `QuietBox`.
  var bounds: (lower: (Double, Double), upper: (Double, Double)) { (lower, upper) }
}

/// Where a sequence's continuous measures (a pan's offset, a pinch's scale, a rotation's
/// angle) can be with nothing for a frame to do: no step level moves and no tracking kind
/// reaches its threshold. Strictly inside on every axis; empty (the default) says nothing.
struct QuietBox {
  /// dx, dy, scale, angle.
  private var lower = (Double.infinity, Double.infinity, Double.infinity, Double.infinity)
  private var upper = (-Double.infinity, -Double.infinity, -Double.infinity, -Double.infinity)

  /// The box that holds everything, to be narrowed by each kind that may still do something.
  static var everywhere: QuietBox {
    var box = QuietBox()
    box.lower = (-.infinity, -.infinity, -.infinity, -.infinity)
    box.upper = (.infinity, .infinity, .infinity, .infinity)
    return box
  }

  /// Narrows the box to `kind`'s step window.
  @inline(__always)  // With `kind` a constant, so that its switch folds away.
  mutating func narrow(_ kind: GestureKind, to window: StepWindow) {
    let (low, high) = window.bounds
    switch kind {
    case .pan:
      narrow(axis: 0, low.0, high.0)
      narrow(axis: 1, low.1, high.1)
    case .pinch: narrow(axis: 2, low.0, high.0)
    case .rotate: narrow(axis: 3, low.0, high.0)
    case .tap, .longPress, .swipe: break
    }
  }

  /// Narrows the box on `kind`'s axes to `other`'s bounds there.
  @inline(__always)  // With `kind` a constant, so that its switch folds away.
  mutating func narrow(_ kind: GestureKind, toAxesOf other: QuietBox) {
    switch kind {
    case .pan:
      narrow(axis: 0, other.lower.0, other.upper.0)
      narrow(axis: 1, other.lower.1, other.upper.1)
    case .pinch: narrow(axis: 2, other.lower.2, other.upper.2)
    case .rotate: narrow(axis: 3, other.lower.3, other.upper.3)
    case .tap, .longPress, .swipe: break
    }
  }

  /// Narrows the box to where a tracking `kind` is not recognized (its `crossed` is nil),
  /// `bound` being the sequence's continuous bindings.
  @inline(__always)  // With `kind` a constant, so that its switch folds away.
  mutating func narrow(
    _ kind: GestureKind, toThresholdsOf limits: RecognitionLimits, bound: [BindingIndex.Continuous]
  ) {
    switch kind {
    case .pan:
      // Short of each bound direction's distance, as `PanMeasure.crossed` measures it: a
      // pan bound with a step is not recognized at the slop.
      for candidate in bound where candidate.kind == .pan {
        let distance = max(candidate.step ?? 0, limits.slop)
        let axis = candidate.direction.isHorizontal ? 0 : 1
        if candidate.direction.raisesLevel {
          narrow(axis: axis, -.infinity, distance)
        } else {
          narrow(axis: axis, -distance, .infinity)
        }
      }
    case .pinch: narrow(axis: 2, limits.pinchIn, limits.pinchOut)
    case .rotate: narrow(axis: 3, -limits.rotateAngle, limits.rotateAngle)
    case .tap, .longPress, .swipe: break
    }
  }

  private mutating func narrow(axis: Int, _ low: Double, _ high: Double) {
    switch axis {
    case 0: (lower.0, upper.0) = (max(lower.0, low), min(upper.0, high))
    case 1: (lower.1, upper.1) = (max(lower.1, low), min(upper.1, high))
    case 2: (lower.2, upper.2) = (max(lower.2, low), min(upper.2, high))
    default: (lower.3, upper.3) = (max(lower.3, low), min(upper.3, high))
    }
  }

  /// Whether the measures (dx, dy, scale, angle) are inside (false for NaN).
  @inline(__always)
  func contains(_ m: (Double, Double, Double, Double)) -> Bool {
    lower.0 < m.0 && m.0 < upper.0 && lower.1 < m.1 && m.1 < upper.1 && lower.2 < m.2 && m.2 < upper.2
      && lower.3 < m.3 && m.3 < upper.3
  }
}
