/// Chains taps with the same finger count into double, triple, … n-taps.
///
/// A tap fires at release unless a binding for more taps with the same fingers applies in its
/// region; only then the chain waits up to `multi-tap-gap` for the next tap's first finger.
/// The chain fires the binding for exactly its count (or nothing when none is bound), and ends
/// early when it reaches the highest bound count. Any other touch — another region, too far
/// from the first tap, another finger count, not a tap — ends the chain as soon as that is
/// known, and the chain fires then: it is never dropped.
///
/// ```
///  idle ──(tap, more taps bound)──▶ waiting ──(next down, same region, near)──▶ continuing
///   ▲                                 │  └──(gap over | other region | too far)──▶ end ─▶ idle
///   │                                 ▼                                              ▲
///   └────────────(tap reaches highest bound count)── continuing ──(not a tap | fingers differ | too far)
///                                                        └──(tap, more taps bound)──▶ waiting
/// ```
struct MultiTapRecognizer {
  /// The taps so far.
  struct Chain: Equatable {
    var fingers: Int
    var taps: Int
    var region: Int?
    /// The first finger's down position of the first tap (what is reported).
    var position: Point
    /// The first tap's fingers' mean down position (what later taps are measured from).
    var centroid: Point
    var lastRelease: Timestamp
    /// The touch sequence of its first tap.
    var firstSequence: Int
  }

  enum State: Equatable, CustomStringConvertible {
    case idle
    case waiting(Chain)
    case continuing(Chain)

    var description: String {
      switch self {
      case .idle: "idle"
      case .waiting(let chain): "waiting (\(chain.taps) × \(chain.fingers)-finger)"
      case .continuing(let chain): "continuing (\(chain.taps) × \(chain.fingers)-finger)"
      }
    }
  }

  enum Action: Equatable {
    case none
    /// The chain is over: fire the binding for exactly `taps`, if one is bound.
    case end(Chain)
  }

  private(set) var state = State.idle

  /// When the waiting chain gives up, if it is waiting.
  func deadline(gap: Microseconds) -> Timestamp? {
    guard case .waiting(let chain) = state else { return nil }
    return chain.lastRelease + gap
  }

  /// A new touch sequence's first finger is down.
  /// `isNear`: whether it landed within `multi-tap-distance` of the chain's first tap.
  mutating func touchBegan(region: Int?, isNear: Bool) -> Action {
    guard case .waiting(let chain) = state else { return .none }
    // A one-finger chain can judge distance at once; wider chains wait for all fingers.
    if chain.region != region || (chain.fingers == 1 && !isNear) {
      state = .idle
      return .end(chain)
    }
    state = .continuing(chain)
    return .none
  }

  /// The continuing touch's finger count is fixed; `isNear`: whether its fingers' mean down
  /// position is within `multi-tap-distance` of the chain's first tap.
  mutating func fingersFixed(count: Int, isNear: Bool) -> Action {
    guard case .continuing(let chain) = state else { return .none }
    if count != chain.fingers || !isNear {
      state = .idle
      return .end(chain)
    }
    return .none
  }

  /// The continuing touch can no longer be a tap.
  mutating func notATap() -> Action {
    guard case .continuing(let chain) = state else { return .none }
    state = .idle
    return .end(chain)
  }

  /// A tap completed. `highestBound` is the most taps any binding wants for a chain of
  /// this finger count in this region.
  mutating func tapped(
    fingers: Int, region: Int?, position: Point, centroid: Point, at time: Timestamp, highestBound: Int,
    sequence: Int = 0
  ) -> Action {
    var chain: Chain
    if case .continuing(var continued) = state {
      continued.taps += 1
      continued.lastRelease = time
      chain = continued
    } else {
      chain = Chain(
        fingers: fingers, taps: 1, region: region, position: position, centroid: centroid,
        lastRelease: time, firstSequence: sequence)
    }
    if chain.taps >= highestBound {
      state = .idle
      return .end(chain)
    }
    state = .waiting(chain)
    return .none
  }

  /// `multi-tap-gap` passed with no next tap.
  mutating func gapElapsed() -> Action {
    guard case .waiting(let chain) = state else { return .none }
    state = .idle
    return .end(chain)
  }

  /// Device gone: nothing fires.
  mutating func reset() { state = .idle }
}
