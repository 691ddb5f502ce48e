/// What a forwarding device (`forward: true`) does with a touch sequence's raw frames.
///
/// A sequence starts undecided: its frames are held while a bound gesture can still start
/// with it. It then becomes exactly one of these, once, at the frame or deadline where that
/// became true:
///
/// ```
///  undecided ──(no bound gesture possible any more)──▶ passThrough   (held frames go out, then live)
///      └──────(a bound gesture recognized, or a tap chain fired)──▶ claimed  (never forwarded)
/// ```
///
/// A tap that waits for more taps of a chain stays undecided until the chain ends; every
/// sequence of the chain then gets the chain's outcome.
public struct SequenceDisposition: Hashable, Sendable, CustomStringConvertible {
  public enum Outcome: Hashable, Sendable, CustomStringConvertible {
    /// No bound gesture can come of it: its frames go to the clone.
    case passThrough
    /// It became (part of) a bound gesture: its frames never reach the clone.
    case claimed

    public var description: String {
      switch self {
      case .passThrough: "pass through"
      case .claimed: "claimed"
      }
    }
  }

  /// When it was decided, on the event clock.
  public var time: Timestamp
  /// The sequence, numbered as `GestureEvent.sequence`.
  public var sequence: Int
  public var outcome: Outcome

  public init(time: Timestamp, sequence: Int, outcome: Outcome) {
    self.time = time
    self.sequence = sequence
    self.outcome = outcome
  }

  public var description: String { "#\(sequence) \(outcome) at \(time)" }
}
