/// A long press: every finger of the sequence stays down and within `tap-slop` until
/// `long-press` has passed since the first finger down; it fires then, while held.
///
/// ```
///  possible ──(a finger beyond slop | a finger lifts | spoiled | another gesture won)──▶ failed
///     └──(long-press time reached, all fingers down)──▶ recognized
/// ```
struct LongPressRecognizer {
  enum State: Equatable, CustomStringConvertible {
    case possible
    case failed(RecognizerFailure)
    case recognized

    var description: String {
      switch self {
      case .possible: "possible"
      case .failed(let why): "failed (\(why))"
      case .recognized: "recognized"
      }
    }
  }

  private(set) var state = State.possible

  mutating func reset() { state = .possible }

  mutating func fingerMoved(travel: Double, slop: Double) -> Transition<State>? {
    guard state == .possible, travel > slop else { return nil }
    return move(to: .failed(.moved(millimetres: travel, limit: slop)), on: "finger moved")
  }

  mutating func fail(_ why: RecognizerFailure) -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: .failed(why), on: why.event)
  }

  /// The long-press time has passed with the sequence still down.
  mutating func timeReached() -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: .recognized, on: "long-press time reached")
  }

  private mutating func move(to new: State, on event: StaticString) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, event: event, to: new)
  }
}

extension LongPressRecognizer: Recognizer {
  static let kind = GestureKind.longPress

  var isPossible: Bool { state == .possible }
  var recognized: Direction?? { state == .recognized ? .some(nil) : nil }
  /// Hold and drag: its steps follow the fingers from where it fired.
  static var measuresFromRecognition: Bool { true }
  static var needsFixedCountAtItsTime: Bool { true }

  static func holdLimit(_ binding: Binding, _ t: Thresholds, name: String) -> HoldLimit {
    HoldLimit(
      duration: t.longPress, untilLifted: false,
      reason: "\(name): until it moves beyond tap-slop (\(HoldLimit.distance(t.tapSlop))) or long-press fires")
  }
  /// With `step`, its drag steps on moves.
  static func firesOnMoves(_ binding: Binding) -> Bool { binding.step != nil }
  /// It fires once the finger has been down long enough.
  static func firesWhileHeld(_ binding: Binding) -> Bool { true }
  var readsTravel: Bool { isPossible }

  /// Fails at the first travel beyond the slop, which is also the finger's farthest yet.
  mutating func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext)
    -> Transition<State>?
  {
    fingerMoved(travel: travel, slop: context.tapRule.slop)
  }

  mutating func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>? {
    fail(.lifted)
  }

  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp? {
    state == .possible ? start + thresholds.longPress : nil
  }

  /// Its own state first: the region's bindings are read only while it is possible.
  func wakeTime(_ times: SequenceTimes) -> Timestamp? {
    guard isPossible, times.boundInRegion.contains(Self.kind) else { return nil }
    return deadline(start: times.start, thresholds: times.thresholds)
  }

  /// Fires when every finger of a sequence that nothing else won is still down, if bound.
  mutating func timeReached(_ sequence: SequenceAtDeadline) -> Transition<State>? {
    guard sequence.isOpenWithEveryFinger, sequence.bound.contains(Self.kind) else { return fail(.wrongFingerCount) }
    return timeReached()
  }

  func binding(_ direction: Direction?, in bound: BindingIndex.SequenceBindings, near: EdgeProximity) -> Int? {
    bound.longPress
  }
}
