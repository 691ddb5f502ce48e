/// A two-finger rotation: the line between the fingers turns by `rotate-angle` from where it
/// was when both were down. Positive angles are clockwise on screen (y grows downwards).
/// The angle is followed frame to frame, so turns past 180° are counted correctly.
///
/// ```
///  waiting ──(second finger lands)──▶ tracking ──(|angle| ≥ rotate-angle, bound)──▶ recognized
///     └─────────(a finger lifts | not two fingers | spoiled | another gesture won)──▶ failed
/// ```
struct RotateRecognizer {
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

  private(set) var state = State.waiting
  /// Degrees turned since both fingers were down.
  private(set) var angle = 0.0
  private var lastHeading = 0.0

  mutating func reset() {
    state = .waiting
    angle = 0
    lastHeading = 0
  }

  /// Both fingers are down; `heading` is the direction from the first to the second finger.
  mutating func bothDown(heading: Double) -> Transition<State>? {
    guard state == .waiting else { return nil }
    angle = 0
    lastHeading = heading
    return move(to: .tracking)
  }

  mutating func headingChanged(_ heading: Double) {
    guard state == .tracking else { return }
    var delta = heading - lastHeading
    if delta > 180 { delta -= 360 }
    if delta < -180 { delta += 360 }
    angle += delta
    lastHeading = heading
  }

  func crossed(_ thresholds: Thresholds) -> Direction? {
    guard state == .tracking, abs(angle) >= thresholds.rotateAngle else { return nil }
    return angle > 0 ? .clockwise : .counterclockwise
  }

  mutating func recognize(_ direction: Direction) -> Transition<State>? {
    guard state == .tracking else { return nil }
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
