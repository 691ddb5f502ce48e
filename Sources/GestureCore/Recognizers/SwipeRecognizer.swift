/// A swipe, decided when the last finger lifts: the fingers' mean displacement is long enough
/// (`swipe-min-distance`, and `swipeMinPanelShare` of the panel along the swipe), quick enough
/// (`swipe-max-duration` from first down to last up, or, with `swipe-min-speed` above 0, a
/// release at least that fast along the swipe), and within `swipe-angle` of an axis.
///
/// ```
///  possible ──(spoiled | another gesture won)──▶ failed
///     └──(last finger up)──▶ recognized(direction)
///                             | failed(too short, too slow, off axis, released too slowly)
/// ```
struct SwipeRecognizer {
  enum State: Equatable, CustomStringConvertible {
    case possible
    case failed(RecognizerFailure)
    case recognized(Direction)

    var description: String {
      switch self {
      case .possible: "possible"
      case .failed(let why): "failed (\(why))"
      case .recognized(let direction): "recognized (\(direction.rawValue))"
      }
    }
  }

  private(set) var state = State.possible

  mutating func reset() { state = .possible }

  mutating func fail(_ why: RecognizerFailure) -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: .failed(why), on: why.event)
  }

  /// Judges the finished sequence. `displacement` is the mean finger movement in mm, user
  /// coordinates (y down); `releaseSpeed` the centroid's speed along a direction over the
  /// last 100 ms (mm/s), asked only of a swipe longer than `swipe-max-duration` when
  /// `swipe-min-speed` is above 0.
  mutating func lastFingerUp(
    displacement: (dx: Double, dy: Double), duration: Microseconds, geometry: PanelGeometry,
    thresholds: Thresholds, releaseSpeed: (Direction) -> Double = { _ in 0 }
  ) -> Transition<State>? {
    guard state == .possible else { return nil }
    let tooLong = duration > thresholds.swipeMaxDuration
    if tooLong, thresholds.swipeMinSpeed <= 0 { return move(to: .failed(.tooSlow), on: "last finger up") }
    let horizontal = abs(displacement.dx) >= abs(displacement.dy)
    let along = horizontal ? abs(displacement.dx) : abs(displacement.dy)
    let across = horizontal ? abs(displacement.dy) : abs(displacement.dx)
    let panelLength = horizontal ? geometry.width : geometry.height
    let needed = max(
      thresholds.swipeMinDistance.millimetres(diagonal: geometry.diagonal),
      Thresholds.swipeMinPanelShare * panelLength)
    let length = (along * along + across * across).squareRoot()
    if length < needed {
      return move(to: .failed(.tooShort(millimetres: length, needed: needed)), on: "last finger up")
    }
    let deviation = atan2Degrees(across, along)
    if deviation > thresholds.swipeAngle {
      return move(to: .failed(.offAxis(degrees: deviation)), on: "last finger up")
    }
    let direction: Direction =
      horizontal ? (displacement.dx > 0 ? .right : .left) : (displacement.dy > 0 ? .down : .up)
    if tooLong {
      let speed = releaseSpeed(direction)
      if !(speed >= thresholds.swipeMinSpeed) {
        return move(
          to: .failed(.releasedTooSlowly(millimetresPerSecond: speed, needed: thresholds.swipeMinSpeed)),
          on: "last finger up")
      }
    }
    return move(to: .recognized(direction), on: "last finger up")
  }

  private mutating func move(to new: State, on event: StaticString) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, event: event, to: new)
  }
}

extension SwipeRecognizer: Recognizer {
  static let kind = GestureKind.swipe

  var isPossible: Bool { state == .possible }
}
