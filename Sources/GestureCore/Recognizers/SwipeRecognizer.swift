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
  var recognized: Direction?? {
    if case .recognized(let direction) = state { return .some(direction) }
    return nil
  }
  /// With `swipe-min-speed`, the release speed.
  static func needsRates(_ thresholds: Thresholds) -> Bool { thresholds.swipeMinSpeed > 0 }

  static func holdLimit(_ binding: Binding, _ t: Thresholds, name: String) -> HoldLimit {
    t.swipeMinSpeed > 0
      ? HoldLimit(
        duration: nil, untilLifted: true, reason: "\(name): swipe-min-speed, a fast release fires it at any age")
      : HoldLimit(
        duration: t.swipeMaxDuration, untilLifted: false, reason: "\(name): until swipe-max-duration or the lift")
  }

  /// Judged on the fingers' mean displacement, in a sequence nothing else won.
  mutating func lastFingerUp(_ end: SequenceEnd) -> Transition<State>? {
    guard end.isOpen, isPossible else { return nil }
    var dx = 0.0
    var dy = 0.0
    for finger in end.fingers {
      let d = end.geometry.millimetres(from: finger.down, to: finger.current)
      dx += d.dx
      dy += d.dy
    }
    let n = Double(max(1, end.fingers.count))
    let track = end.track
    return lastFingerUp(
      displacement: (dx / n, dy / n), duration: end.duration, geometry: end.geometry, thresholds: end.thresholds,
      releaseSpeed: { track.speed(along: $0) })
  }

  /// With `swipe-min-speed` a swipe can fire at any age: only its lift decides it.
  func holdEnd(_ times: SequenceTimes) -> Timestamp? {
    let t = times.thresholds
    guard isPossible, t.swipeMinSpeed <= 0, times.now <= times.start + t.swipeMaxDuration else { return nil }
    return times.start + t.swipeMaxDuration + 1
  }

  /// Until its lift, if in time, and if a binding's edge is near where the sequence began.
  func canStillFire(_ bound: BindingIndex.SequenceBindings, _ sequence: SequenceSoFar) -> Bool {
    let t = sequence.thresholds
    guard isPossible, t.swipeMinSpeed > 0 || sequence.age <= t.swipeMaxDuration else { return false }
    return bound.swipes.contains { candidate in candidate.edge.map { sequence.near.isNear($0) } ?? true }
  }

  /// The best in `direction` (the index ranks them): an edge swipe needs the sequence to
  /// start near its edge.
  func binding(_ direction: Direction?, in bound: BindingIndex.SequenceBindings, near: EdgeProximity) -> Int? {
    for candidate in bound.swipes where candidate.direction == direction {
      if let edge = candidate.edge, !near.isNear(edge) { continue }
      return candidate.binding
    }
    return nil
  }
}
