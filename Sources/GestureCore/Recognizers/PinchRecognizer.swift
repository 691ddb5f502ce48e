/// A two-finger pinch: the distance between the fingers, relative to when both were down,
/// falls to `pinch-in` or rises to `pinch-out`. It fires when the scale crosses, fingers still
/// down (and, like every gesture, only once the finger count is fixed).
///
/// ```
///  waiting ──(second finger lands)──▶ tracking(baseline) ──(scale crosses, bound)──▶ recognized
///     └─────────(a finger lifts | not two fingers | spoiled | another gesture won)──▶ failed
/// ```
struct PinchRecognizer {
  enum State: Equatable, CustomStringConvertible {
    case waiting
    case tracking(baseline: Double)
    case failed(RecognizerFailure)
    case recognized(Direction)

    var description: String {
      switch self {
      case .waiting: "waiting"
      case .tracking(let baseline): "tracking (span \(formatted(baseline)) mm)"
      case .failed(let why): "failed (\(why))"
      case .recognized(let direction): "recognized (\(direction.rawValue))"
      }
    }
  }

  /// Fingers closer than this when both land give no usable scale.
  static let minimumBaseline = 1.0

  private(set) var state = State.waiting
  /// Distance now / baseline.
  private(set) var scale = 1.0

  mutating func reset() {
    state = .waiting
    scale = 1
  }

  /// Both fingers are down; `span` is their distance in mm.
  mutating func bothDown(span: Double) -> Transition<State>? {
    guard state == .waiting else { return nil }
    if span < Self.minimumBaseline {
      return move(to: .failed(.tooShort(millimetres: span, needed: Self.minimumBaseline)))
    }
    scale = 1
    return move(to: .tracking(baseline: span))
  }

  mutating func spanChanged(_ span: Double) {
    guard case .tracking(let baseline) = state else { return }
    scale = span / baseline
  }

  /// The direction the current scale has crossed into, if any.
  func crossed(_ thresholds: Thresholds) -> Direction? {
    guard case .tracking = state else { return nil }
    if scale <= thresholds.pinchIn { return .in }
    if scale >= thresholds.pinchOut { return .out }
    return nil
  }

  mutating func recognize(_ direction: Direction) -> Transition<State>? {
    guard case .tracking = state else { return nil }
    return move(to: .recognized(direction))
  }

  mutating func fail(_ why: RecognizerFailure) -> Transition<State>? {
    switch state {
    case .waiting, .tracking: return move(to: .failed(why))
    case .failed, .recognized: return nil
    }
  }

  private mutating func move(to new: State) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, to: new)
  }
}
