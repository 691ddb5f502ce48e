import GestureCore

/// A point on the panel as the user sees it (after rotation), in fractions: x from the left
/// edge (0) to the right (1), y from the top (0) to the bottom (1).
public struct Position: Hashable, Sendable {
  /// 0 at the left edge, 1 at the right.
  public var x: Double
  /// 0 at the top edge, 1 at the bottom.
  public var y: Double

  /// A position from its fractions.
  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }
}

/// How far a pan's fingers moved, in millimetres as the user sees the panel: right and down
/// are positive.
public struct Offset: Hashable, Sendable {
  /// Millimetres to the right (negative: to the left).
  public var dx: Double
  /// Millimetres down (negative: up).
  public var dy: Double

  /// An offset from its two components, in millimetres.
  public init(dx: Double, dy: Double) {
    self.dx = dx
    self.dy = dy
  }
}

/// Which firing of its binding a continuous gesture's value is.
public enum GesturePhase: Hashable, Sendable {
  /// A binding without a step: the gesture's only firing, when it is recognized.
  case oneShot
  /// A step binding's K-th step in this touch sequence, K = 1, 2, …
  case step(Int)
  /// A step binding's steps ended (a finger lifted or landed, or the source went away)
  /// after `steps` of them fired.
  case ended(steps: Int)

  init(_ phase: GestureEvent.Phase) {
    switch phase {
    case .oneShot: self = .oneShot
    case .step(let k): self = .step(k)
    case .end(let n): self = .ended(steps: n)
    }
  }
}

/// What every gesture value carries, as the daemon's `GESTURED_*` variables do.
public protocol GestureValue: Sendable {
  /// The region the first finger landed in; nil outside every region.
  var region: ScreenRegion? { get }
  /// The view the gesture's touches belong to; nil for a gesture outside every view.
  var view: TouchView? { get }
  /// Fingers in the gesture.
  var fingers: Int { get }
  /// Where the first finger landed (of the first tap, for taps), pulled into 0…1.
  var position: Position { get }
  /// When it fired, on the source's clock: `CLOCK_MONOTONIC` for a live device, the
  /// recording's own clock for a recording.
  var time: Duration { get }
}

/// The parts every value reads from a firing.
struct Common {
  var region: ScreenRegion?
  var view: TouchView?
  var fingers: Int
  var position: Position
  var time: Duration

  init(_ event: GestureEvent, _ firing: Firing) {
    let regions = firing.regions
    region = event.region.flatMap { regions.indices.contains($0) ? regions[$0] : nil }
    view = firing.view
    fingers = event.fingers
    let clamped = event.position.clamped
    position = Position(x: clamped.x, y: clamped.y)
    time = .microseconds(event.time.microseconds)
  }
}

/// A tap, double tap, or any number of taps, of one to five fingers.
public struct Tap: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration
  /// Taps in the sequence: 2 for a double tap.
  public var taps: Int

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
    taps = event.taps
  }
}

/// Fingers that rested for the long-press time.
public struct LongPress: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
  }
}

/// A quick movement in one direction, known when the fingers lift.
public struct Swipe: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration
  /// The binding's direction.
  public var direction: MoveDirection

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
    direction = MoveDirection(event.direction) ?? .up
  }
}

/// Fingers moving together: a step every `step` further along the binding's direction.
public struct Pan: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration
  /// The binding's direction.
  public var direction: MoveDirection
  /// One-shot, the k-th step, or the end of the steps.
  public var phase: GesturePhase
  /// How far the fingers' centre moved since the gesture began.
  public var offset: Offset

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
    direction = MoveDirection(event.direction) ?? .up
    phase = GesturePhase(event.phase)
    offset = Offset(dx: event.dx ?? 0, dy: event.dy ?? 0)
  }
}

/// Two fingers moving apart (out) or together (in).
public struct Pinch: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration
  /// The binding's direction.
  public var direction: PinchDirection
  /// One-shot, the k-th step, or the end of the steps.
  public var phase: GesturePhase
  /// The fingers' distance now over their distance when the gesture began: above 1 out.
  public var scale: Double

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
    direction = event.direction == .in ? .in : .out
    phase = GesturePhase(event.phase)
    scale = event.scale ?? 1
  }
}

/// Two fingers turning around each other.
public struct Rotation: GestureValue {
  /// The region the first finger landed in; nil outside every region.
  public var region: ScreenRegion?
  /// The view the gesture's touches belong to; nil outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// Where the first finger landed, pulled into 0…1.
  public var position: Position
  /// When it fired, on the source's clock.
  public var time: Duration
  /// The binding's direction.
  public var direction: RotationDirection
  /// One-shot, the k-th step, or the end of the steps.
  public var phase: GesturePhase
  /// Degrees turned since the gesture began, positive clockwise on screen.
  public var angle: Double

  init(_ event: GestureEvent, _ firing: Firing) {
    let common = Common(event, firing)
    (region, view, fingers, position, time) = (common.region, common.view, common.fingers, common.position, common.time)
    direction = event.direction == .counterclockwise ? .counterclockwise : .clockwise
    phase = GesturePhase(event.phase)
    angle = event.angle ?? 0
  }
}
