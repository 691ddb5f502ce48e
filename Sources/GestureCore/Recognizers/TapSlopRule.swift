/// How far a tap's fingers may move (see docs/configuration.md, "Taps on real panels").
struct TapSlopRule {
  let slop: Double

  /// A finger moved `travel` mm from where it landed: the failure, if this ends the tap.
  func fingerMoved(
    _ finger: inout SequenceFinger, travel: Double, at time: Timestamp, liftStarted: Timestamp?
  ) -> RecognizerFailure? {
    travel > slop ? .moved(millimetres: travel, limit: slop) : nil
  }

  /// A finger lifted: the failure, if its movement now shows it was no tap.
  func fingerLifted(_ finger: SequenceFinger, at time: Timestamp, liftStarted: Timestamp?) -> RecognizerFailure? {
    nil
  }
}
