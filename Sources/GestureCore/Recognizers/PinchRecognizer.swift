/// A two-finger pinch: the distance between the fingers relative to the reference. It is
/// recognized when the scale falls to `pinch-in` or rises to `pinch-out` in a bound direction.
struct PinchMeasure: GestureMeasure {
  static let kind = GestureKind.pinch
  /// Fingers closer than this at the reference give no usable scale.
  static let minimumBaseline = 1.0

  var baseline: Double
  /// Distance now / baseline.
  private(set) var scale = 1.0

  static func reference(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Result<Self, RecognizerFailure> {
    let span = MotionTrack.span(fingers, centroid: MotionTrack.centroid(fingers), geometry: geometry)
    if span < minimumBaseline { return .failure(.tooShort(millimetres: span, needed: minimumBaseline)) }
    return .success(PinchMeasure(baseline: span))
  }

  @inline(__always)  // See RecognizerTable.frame.
  mutating func update(_ motion: MotionFrame) {
    scale = motion.span / baseline
  }

  /// ln `scale`: worked out only where a level may move (`wouldMove`).
  func levelMeasure(along direction: Direction) -> Double { naturalLog(scale) }

  func wouldMove(_ level: StepLevel) -> Bool { level.wouldMove(scale: scale) }

  var windowCoordinates: (Double, Double) { (scale, 0) }

  func crossed(_ bound: [BindingIndex.Continuous], limits: RecognitionLimits) -> Direction? {
    let direction: Direction
    if scale <= limits.pinchIn {
      direction = .in
    } else if scale >= limits.pinchOut {
      direction = .out
    } else {
      return nil
    }
    return bound.contains { $0.kind == .pinch && $0.direction == direction } ? direction : nil
  }

  func report(into event: inout GestureEvent) { event.scale = scale }

  var description: String { "span \(formatted(baseline)) mm, scale \(formatted(scale * 100))%" }
}
