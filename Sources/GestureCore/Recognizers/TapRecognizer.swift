/// Decides whether one touch sequence is a tap: every finger stays within `tap-slop` (with
/// the lift roll `TapSlopRule` allows), and the last finger lifts within `tap-max-duration`
/// of the first finger down.
///
/// ```
///  possible ──(a finger beyond slop | held too long | sequence spoiled | another gesture won)──▶ failed
///     └──(last finger up in time)──▶ tapped
/// ```
/// Whether a tap fires at once or waits for more taps is `MultiTapRecognizer`'s business.
struct TapRecognizer {
  enum State: Equatable, CustomStringConvertible {
    case possible
    case failed(RecognizerFailure)
    case tapped

    var description: String {
      switch self {
      case .possible: "possible"
      case .failed(let why): "failed (\(why))"
      case .tapped: "tapped"
      }
    }
  }

  private(set) var state = State.possible

  mutating func reset() { state = .possible }

  /// The sequence is still down at the end of `tap-max-duration`.
  mutating func heldTooLong() -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: .failed(.heldTooLong), on: "tap-max-duration reached")
  }

  mutating func fail(_ why: RecognizerFailure) -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: .failed(why), on: why.event)
  }

  /// The last finger lifted `duration` after the first finger down.
  mutating func lastFingerUp(duration: Microseconds, maxDuration: Microseconds) -> Transition<State>? {
    guard state == .possible else { return nil }
    return move(to: duration > maxDuration ? .failed(.heldTooLong) : .tapped, on: "last finger up")
  }

  private mutating func move(to new: State, on event: StaticString) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, event: event, to: new)
  }
}

extension TapRecognizer: Recognizer {
  static let kind = GestureKind.tap

  var isPossible: Bool { state == .possible }
  var recognized: Direction?? { state == .tapped ? .some(nil) : nil }
  var hasFailed: Bool { if case .failed = state { true } else { false } }
  static var waitsInChain: Bool { true }

  /// A chain of N taps waits for all of them.
  static func holdLimit(_ binding: Binding, _ t: Thresholds, name: String) -> HoldLimit {
    let n = Microseconds(binding.taps)
    return HoldLimit(
      duration: n * t.tapMaxDuration + (n - 1) * t.multiTapGap, untilLifted: false,
      reason: binding.taps == 1
        ? "\(name): until it moves beyond tap-slop (\(HoldLimit.distance(t.tapSlop))) or tap-max-duration passes"
        : "\(name): \(binding.taps) taps of up to tap-max-duration with multi-tap-gap between")
  }
  var readsTravel: Bool { isPossible }

  mutating func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext)
    -> Transition<State>?
  {
    guard state == .possible else { return nil }
    return context.tapRule.fingerMoved(&finger, travel: travel, at: context.now, liftStarted: context.liftStarted)
      .flatMap { fail($0) }
  }

  mutating func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>? {
    context.tapRule.fingerLifted(finger, at: context.now, liftStarted: context.liftStarted).flatMap { fail($0) }
  }

  mutating func lastFingerUp(_ end: SequenceEnd) -> Transition<State>? {
    lastFingerUp(duration: end.duration, maxDuration: end.thresholds.tapMaxDuration)
  }

  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp? {
    state == .possible ? start + thresholds.tapMaxDuration : nil
  }

  /// Its time only fires something in a tap chain: it ends the chain's tap under way.
  func wakeTime(_ times: SequenceTimes) -> Timestamp? {
    times.chainContinuing ? deadline(start: times.start, thresholds: times.thresholds) : nil
  }

  mutating func timeReached(_ sequence: SequenceAtDeadline) -> Transition<State>? { heldTooLong() }

  func holdEnd(_ times: SequenceTimes) -> Timestamp? {
    isPossible ? times.start + times.thresholds.tapMaxDuration + 1 : nil
  }

  /// A tap may come of a sequence whose fingers lifted: that is how it ends.
  func canStillFire(_ bound: BindingIndex.SequenceBindings, _ sequence: SequenceSoFar) -> Bool {
    isPossible && !bound.taps.isEmpty
  }
}

/// A recognizer's state change, kept for the engine's verbose trace.
struct Transition<State> {
  var from: State
  /// What moved it, for the trace: `from → event → to`.
  var event: StaticString
  var to: State
}

/// Why a recognizer gave up on a sequence. Values, not strings: nothing is formatted unless
/// the trace is on.
public enum RecognizerFailure: Error, Hashable, Sendable, CustomStringConvertible {
  case moved(millimetres: Double, limit: Double)
  case heldTooLong
  case lifted
  case spoiled
  case otherGestureWon
  case wrongFingerCount
  case tooShort(millimetres: Double, needed: Double)
  case tooSlow
  case offAxis(degrees: Double)
  /// A swipe longer than `swipe-max-duration` whose release was slower than `swipe-min-speed`.
  case releasedTooSlowly(millimetresPerSecond: Double, needed: Double)

  /// What happened, as the event of a trace line.
  var event: StaticString {
    switch self {
    case .moved: "finger moved"
    case .heldTooLong: "time passed"
    case .lifted: "finger lifted"
    case .spoiled: "sequence spoiled"
    case .otherGestureWon: "other gesture won"
    case .wrongFingerCount: "finger count"
    case .tooShort, .tooSlow, .offAxis, .releasedTooSlowly: "measured"
    }
  }

  public var description: String {
    switch self {
    case .moved(let mm, let limit): "moved \(formatted(mm)) mm > \(formatted(limit)) mm"
    case .heldTooLong: "held too long"
    case .lifted: "a finger lifted"
    case .spoiled: "late, extra or cancelled finger"
    case .otherGestureWon: "another gesture won"
    case .wrongFingerCount: "wrong finger count"
    case .tooShort(let mm, let needed): "travelled \(formatted(mm)) mm < \(formatted(needed)) mm"
    case .tooSlow: "too slow"
    case .offAxis(let degrees): "\(formatted(degrees))° off axis"
    case .releasedTooSlowly(let speed, let needed):
      "too slow and released at \(formatted(speed)) mm/s < \(formatted(needed)) mm/s"
    }
  }
}

/// One decimal, for traces.
/// Never traps: a value too large for tenths in an Int64 (no gesture gives one, a broken
/// device might) is written as Swift writes a Double.
func formatted(_ value: Double) -> String {
  guard value.isFinite else { return "\(value)" }
  guard let tenths = Int64(exactly: (value * 10).rounded()) else { return "\(value.rounded())" }
  let whole = tenths / 10
  let fraction = (tenths % 10).magnitude
  return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
}
