/// How long a forwarding device (`forward: true`) may hold a touch back from its clone
/// before it passes through or becomes a gesture, worked out from the bindings: the worst
/// case over every binding that applies where the touch starts (`gestured devices`).
///
/// A touch is held only while a bound gesture can still start with it, so each binding
/// bounds the hold by what ends its chance: a tap by `tap-slop` or `tap-max-duration` (a
/// chain of N taps by N × `tap-max-duration` + (N − 1) × `multi-tap-gap`, since its earlier
/// taps wait for the chain), a long press by `long-press`, a swipe by `swipe-max-duration`
/// (with `swipe-min-speed` above 0 only by the lift: a fast release fires it at any age),
/// and pan, pinch and rotate only by their recognition or the lift. A binding for more
/// fingers holds a touch with fewer at most `finger-landing`. Whatever the bindings, the
/// forward gate holds a touch at most `ForwardPolicy.heldDurationLimit` or
/// `heldFrameLimit` frames.
public struct HoldLimit: Hashable, Sendable, CustomStringConvertible {
  /// The longest hold; nil with `untilLifted` (no time bounds it) or when nothing is held.
  public var duration: Microseconds?
  /// A pan, pinch or rotate binding (or a swipe with `swipe-min-speed`): a touch is held
  /// until it is recognized or lifts.
  public var untilLifted: Bool
  /// What bounds it, for people.
  public var reason: String

  public static let nothing = HoldLimit(duration: nil, untilLifted: false, reason: "no binding")

  public var holdsNothing: Bool { duration == nil && !untilLifted }

  public var description: String {
    let bound = "\(Self.milliseconds(ForwardPolicy.heldDurationLimit)) or \(ForwardPolicy.heldFrameLimit) frames"
    if holdsNothing { return "holds nothing: every touch goes to the clone at once" }
    if untilLifted { return "holds a touch until it is recognized or lifts, at most \(bound) (\(reason))" }
    let held = duration ?? 0
    if held > ForwardPolicy.heldDurationLimit {
      return "holds a touch at most \(bound) (\(reason): \(Self.milliseconds(held)), past the bound)"
    }
    return "holds a touch at most \(Self.milliseconds(held)) (\(reason))"
  }

  /// The limit for each region in order, then for touches outside every region (nil name).
  public static func perRegion(of profile: Profile) -> [(region: String?, limit: HoldLimit)] {
    var result: [(String?, HoldLimit)] = profile.regions.indices.map {
      (profile.regions[$0].name, limit(profile, region: $0))
    }
    result.append((nil, limit(profile, region: nil)))
    return result
  }

  /// The worst case for a touch that starts in `region` (nil: in none).
  public static func limit(_ profile: Profile, region: Int?) -> HoldLimit {
    let t = profile.thresholds
    var worst = HoldLimit.nothing
    for (index, binding) in profile.bindings.enumerated() where binding.region == nil || binding.region == region {
      let name = profile.displayName(ofBinding: index)
      var candidate = RecognizerTable.recognizer(of: binding.gesture).holdLimit(binding, t, name: name)
      if binding.fingers > 1, let d = candidate.duration, d < t.fingerLanding {
        candidate.duration = t.fingerLanding
      }
      if candidate.isLonger(than: worst) { worst = candidate }
    }
    return worst
  }

  private func isLonger(than other: HoldLimit) -> Bool {
    if other.untilLifted { return false }
    if untilLifted { return true }
    return (duration ?? -1) > (other.duration ?? -1)
  }

  static func distance(_ d: Distance) -> String {
    switch d {
    case .millimetres(let mm): "\(whole(mm)) mm"
    case .percentOfDiagonal(let p): "\(whole(p))% of the diagonal"
    }
  }

  private static func whole(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e9 ? "\(Int(value))" : formatted(value)
  }

  static func milliseconds(_ value: Microseconds) -> String {
    value % 1000 == 0 ? "\(value / 1000) ms" : "\(formatted(Double(value) / 1000)) ms"
  }
}
