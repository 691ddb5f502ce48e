/// How far a tap's fingers may move: `tap-slop` while every finger is down, except for the
/// roll of a lifting hand (see docs/configuration.md, "Taps on real panels").
///
/// A contact's centre shifts as the fingertip peels off the glass: on N-Trig panels by
/// 3.3–4.1 mm from where it landed, in the last frame before that finger lifts or after
/// another finger of the tap has lifted, while the movement with every finger resting stays
/// within 2.8 mm. So movement in the lift phase — after the first finger of the sequence
/// lifted, or within `liftWindow` of the finger's own lift — may exceed `tap-slop` by up to
/// `liftRoll`; movement before it may not. The roll is bounded in mm, so a slide that
/// happens to end the touch (8 mm in the last 30 ms) is still no tap.
struct TapSlopRule {
  /// What a lifting fingertip may add to `tap-slop`.
  static let liftRoll = 2.0
  /// How long before its lift a finger counts as lifting: the last scan before the lift on a
  /// 60–100 Hz panel (10–17 ms), with slack for a late scan, and shorter than the two or more
  /// scans a slide needs to cross the slop and reach the lift.
  static let liftWindow: Microseconds = 20_000

  let slop: Double

  /// A finger moved `travel` mm from where it landed: the failure, if this ends the tap.
  func fingerMoved(
    _ finger: inout SequenceFinger, travel: Double, at time: Timestamp, liftStarted: Timestamp?
  ) -> RecognizerFailure? {
    if travel > slop + Self.liftRoll { return .moved(millimetres: travel, limit: slop + Self.liftRoll) }
    if liftStarted == nil, travel > slop {
      finger.travelAllDown = max(finger.travelAllDown, travel)
      if finger.beyondSlopSince == nil { finger.beyondSlopSince = time }
    }
    // Still down a whole window after passing the slop with every finger down: no roll.
    if let since = finger.beyondSlopSince, time - since > Self.liftWindow {
      return .moved(millimetres: finger.travelAllDown, limit: slop)
    }
    return nil
  }

  /// A finger lifted: the failure, if it passed the slop with every finger down before its
  /// lift window.
  func fingerLifted(_ finger: SequenceFinger, at time: Timestamp, liftStarted: Timestamp?) -> RecognizerFailure? {
    guard let since = finger.beyondSlopSince, time - since > Self.liftWindow else { return nil }
    return .moved(millimetres: finger.travelAllDown, limit: slop)
  }
}
