import GestureCore

/// Where a swipe or a pan moves, as the user sees the panel.
public enum MoveDirection: String, Hashable, Sendable, CaseIterable {
  /// Towards the top edge.
  case up
  /// Towards the bottom edge.
  case down
  /// Towards the left edge.
  case left
  /// Towards the right edge.
  case right

  init?(_ direction: Direction?) {
    guard let direction, let value = MoveDirection(rawValue: direction.rawValue) else { return nil }
    self = value
  }

  var core: Direction { Direction(rawValue: rawValue)! }
}

/// Whether a pinch's fingers move apart or together.
public enum PinchDirection: String, Hashable, Sendable, CaseIterable {
  /// Together: the scale falls below 1.
  case `in`
  /// Apart: the scale grows above 1.
  case out

  var core: Direction { self == .in ? .in : .out }
}

/// Which way a rotation turns, on screen.
public enum RotationDirection: String, Hashable, Sendable, CaseIterable {
  /// Clockwise: the angle grows.
  case clockwise
  /// Counterclockwise: the angle falls below 0.
  case counterclockwise

  var core: Direction { self == .clockwise ? .clockwise : .counterclockwise }
}

/// A panel edge, as the user sees the panel, where an edge swipe starts.
public enum ScreenEdge: String, Hashable, Sendable, CaseIterable {
  /// The left edge.
  case left
  /// The right edge.
  case right
  /// The top edge.
  case top
  /// The bottom edge.
  case bottom

  var core: Edge { Edge(rawValue: rawValue)! }
}

/// The gestures that can step, and so share a touch sequence (`recognizeSimultaneously`).
public enum ContinuousGesture: String, Hashable, Sendable, CaseIterable {
  /// Fingers moving together (`onPan`).
  case pan
  /// Two fingers apart or together (`onPinch`).
  case pinch
  /// Two fingers turning (`onRotate`).
  case rotate

  var core: GestureKind {
    switch self {
    case .pan: .pan
    case .pinch: .pinch
    case .rotate: .rotate
    }
  }
}

/// How much further a pinch goes per step: `.percent(10)` steps at every factor of 1.10
/// out (1/1.10 in), as the config's `step: 10%`.
public struct PinchStep: Hashable, Sendable {
  /// The percentage, more than 0 and less than 100.
  public var percent: Double

  /// A step of `value` percent.
  public static func percent(_ value: Double) -> PinchStep { PinchStep(percent: value) }
}

/// How much further a rotation turns per step: `.degrees(15)`, as `step: 15deg`.
public struct RotationStep: Hashable, Sendable {
  /// The angle, more than 0 and less than 180 degrees.
  public var degrees: Double

  /// A step of `value` degrees.
  public static func degrees(_ value: Double) -> RotationStep { RotationStep(degrees: value) }
}

/// How much further a pan moves per step: `.millimetres(10)`, as `step: 10mm`.
public struct PanStep: Hashable, Sendable {
  /// The distance, more than 0 and at most 500 mm.
  public var millimetres: Double

  /// A step of `value` millimetres.
  public static func millimetres(_ value: Double) -> PanStep { PanStep(millimetres: value) }
  /// A step of `value` centimetres (`step: 1cm`).
  public static func centimetres(_ value: Double) -> PanStep { PanStep(millimetres: value * 10) }
}

/// A named part of the panel, made by `TouchScreen.region(_:x:y:width:height:)`; bindings
/// given one fire only for gestures whose first finger lands in it.
public struct ScreenRegion: Hashable, Sendable, CustomStringConvertible {
  /// The name, as the config's `regions:` entries have one (`GESTURED_REGION`).
  public let name: String
  /// The area's left edge, a fraction of the panel's width.
  public let x: Double
  /// The area's top edge, a fraction of the panel's height.
  public let y: Double
  /// The area's width, a fraction of the panel's.
  public let width: Double
  /// The area's height, a fraction of the panel's.
  public let height: Double
  /// Which screen made it and where in its list: a region works only with its own screen.
  let screen: Int
  let index: Int

  /// The name.
  public var description: String { name }

  var area: Area { Area(x: x, y: y, width: width, height: height) }
}
