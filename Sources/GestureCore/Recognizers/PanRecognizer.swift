/// A pan: the fingers' centroid moves, in mm as the user sees the panel (right and down
/// positive), since the reference. Recognized when the offset along a bound direction
/// reaches that binding's `max(step, tap-slop)`, so resting fingers never start one.
struct PanMeasure: GestureMeasure {
  static let kind = GestureKind.pan

  private(set) var dx = 0.0
  private(set) var dy = 0.0

  /// The reference is the track's: its centroid when the last finger landed.
  static func reference(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Result<Self, RecognizerFailure> {
    .success(PanMeasure())
  }

  @inline(__always)  // See RecognizerTable.frame.
  mutating func update(_ motion: MotionFrame) {
    dx = motion.dx
    dy = motion.dy
  }

  func levelMeasure(along direction: Direction) -> Double { direction.isHorizontal ? dx : dy }

  var windowCoordinates: (Double, Double) { (dx, dy) }

  @inline(__always)  // Asked every frame of a sequence a pan may still be; most end at the guard.
  func crossed(_ bound: [BindingIndex.Continuous], limits: RecognitionLimits) -> Direction? {
    // Every candidate's distance is at least the slop: most frames end here, without the
    // walk over the sequence's bindings.
    guard abs(dx) >= limits.slop || abs(dy) >= limits.slop else { return nil }
    return crossedBeyondSlop(bound, limits: limits)
  }

  private func crossedBeyondSlop(_ bound: [BindingIndex.Continuous], limits: RecognitionLimits) -> Direction? {
    for candidate in bound where candidate.kind == .pan {
      let along = levelMeasure(along: candidate.direction) * (candidate.direction.raisesLevel ? 1 : -1)
      if along >= max(candidate.step ?? 0, limits.slop) { return candidate.direction }
    }
    return nil
  }

  func report(into event: inout GestureEvent) {
    event.dx = dx
    event.dy = dy
  }

  var description: String { "offset \(formatted(dx)), \(formatted(dy)) mm" }
}
