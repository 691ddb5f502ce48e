/// A length on the panel: absolute, or a share of the panel diagonal.
public enum Distance: Hashable, Sendable, CustomStringConvertible {
  case millimetres(Double)
  case percentOfDiagonal(Double)

  /// The length in millimetres on a panel with this diagonal.
  public func millimetres(diagonal: Double) -> Double {
    switch self {
    case .millimetres(let mm): mm
    case .percentOfDiagonal(let percent): diagonal * percent / 100
    }
  }

  public var description: String {
    switch self {
    case .millimetres(let mm): "\(mm)mm"
    case .percentOfDiagonal(let percent): "\(percent)%"
    }
  }
}

/// Every tunable of recognition, with the defaults kiosks start from.
///
/// Reasons for each default are in `../shared/research/anchors-gestures.md` §15 and in
/// docs/configuration.md.
public struct Thresholds: Hashable, Sendable {
  /// How far a finger may wander and still tap or long-press.
  public var tapSlop: Distance = .millimetres(3)
  /// Longest tap, first finger down to last finger up.
  public var tapMaxDuration: Microseconds = 300_000
  /// Longest wait from one tap's release to the next tap's first finger down.
  public var multiTapGap: Microseconds = 300_000
  /// How far a later tap may land from the first tap of its sequence.
  public var multiTapDistance: Distance = .millimetres(10)
  /// How long fingers must rest before a long press fires.
  public var longPress: Microseconds = 500_000
  /// Fingers landing within this of the first finger count towards the sequence.
  public var fingerLanding: Microseconds = 100_000
  /// Shortest swipe; the panel-relative floor `swipeMinPanelShare` also applies.
  public var swipeMinDistance: Distance = .millimetres(20)
  /// Longest swipe, first finger down to last finger up.
  public var swipeMaxDuration: Microseconds = 800_000
  /// Above 0 (mm/s): a swipe longer than `swipeMaxDuration` still fires if its release
  /// speed (the centroid's along the swipe's direction over the last 100 ms before the last
  /// lift) is at least this.
  public var swipeMinSpeed: Double = 0
  /// Greatest deviation, in degrees, of a swipe from its axis.
  public var swipeAngle: Double = 25
  /// Scale at or below which a pinch is "in".
  public var pinchIn: Double = 0.8
  /// Scale at or above which a pinch is "out".
  public var pinchOut: Double = 1.25
  /// Angle in degrees at which a rotation fires.
  public var rotateAngle: Double = 15
  /// How close to an edge an edge swipe must start.
  public var edgeWidth: Distance = .millimetres(5)
  /// A contact resting longer than this without moving is dropped as a ghost.
  public var stuckContact: Microseconds = 30_000_000
  /// A contact whose touch-major is at least this is a palm, not a finger (0: only the
  /// panel's own MT_TOOL_PALM label counts).
  public var palmSize: Distance = .millimetres(20)

  /// A swipe must also cover this share of the panel along its axis.
  public static let swipeMinPanelShare = 0.15

  public init() {}

  /// The names used in configuration files, in documentation order.
  public static let keys: [String] = [
    "tap-slop", "tap-max-duration", "multi-tap-gap", "multi-tap-distance", "long-press",
    "finger-landing", "swipe-min-distance", "swipe-max-duration", "swipe-min-speed", "swipe-angle", "pinch-in",
    "pinch-out", "rotate-angle", "edge-width", "stuck-contact", "palm-size",
  ]
}
