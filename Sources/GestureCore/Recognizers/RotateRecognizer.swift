/// A two-finger rotation: the turn of the line between the fingers since the reference,
/// degrees, positive clockwise on screen (y grows downwards). Followed frame to frame, so
/// turns past 180° are counted (a 400° turn is 400°). Recognized at `rotate-angle` in a
/// bound direction.
struct RotateMeasure: GestureMeasure {
  static let kind = GestureKind.rotate

  private(set) var angle = 0.0

  /// The reference is the track's: the line between the fingers when the last one landed.
  static func reference(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Result<Self, RecognizerFailure> {
    .success(RotateMeasure())
  }

  @inline(__always)  // See RecognizerTable.frame.
  mutating func update(_ motion: MotionFrame) { angle = motion.turn }

  func levelMeasure(along direction: Direction) -> Double { angle }

  var windowCoordinates: (Double, Double) { (angle, 0) }

  @inline(__always)  // Asked every frame of a two-finger sequence; most end at the guard.
  func crossed(_ bound: [BindingIndex.Continuous], limits: RecognitionLimits) -> Direction? {
    guard abs(angle) >= limits.rotateAngle else { return nil }
    let direction: Direction = angle > 0 ? .clockwise : .counterclockwise
    return bound.contains { $0.kind == .rotate && $0.direction == direction } ? direction : nil
  }

  func report(into event: inout GestureEvent) { event.angle = angle }

  var description: String { "angle \(formatted(angle))°" }
}
