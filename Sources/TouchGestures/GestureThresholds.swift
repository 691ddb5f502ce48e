import GestureCore
import GesturedConfig

/// A length on the panel: absolute, or a share of its diagonal (the config's `3mm`, `2%`).
public enum ScreenLength: Hashable, Sendable {
  /// Millimetres, more than 0 and at most 10 m.
  case millimetres(Double)
  /// Percent of the panel's diagonal, more than 0 and at most 100.
  case percentOfDiagonal(Double)

  init(_ distance: Distance) {
    switch distance {
    case .millimetres(let mm): self = .millimetres(mm)
    case .percentOfDiagonal(let percent): self = .percentOfDiagonal(percent)
    }
  }

  var core: Distance {
    switch self {
    case .millimetres(let mm): .millimetres(mm)
    case .percentOfDiagonal(let percent): .percentOfDiagonal(percent)
    }
  }
}

/// Every tunable of recognition, the config's `thresholds:` key by key, with its defaults
/// (docs/configuration.md says what each one does and why it defaults to what it does).
public struct GestureThresholds: Hashable, Sendable {
  /// `tap-slop`: how far a finger may wander and still tap or long-press.
  public var tapSlop: ScreenLength
  /// `tap-max-duration`: the longest tap, first finger down to last finger up.
  public var tapMaxDuration: Duration
  /// `multi-tap-gap`: the longest wait from one tap's release to the next tap.
  public var multiTapGap: Duration
  /// `multi-tap-distance`: how far a later tap may land from the first.
  public var multiTapDistance: ScreenLength
  /// `long-press`: how long fingers must rest before a long press fires.
  public var longPress: Duration
  /// `finger-landing`: fingers landing within this of the first count towards the sequence.
  public var fingerLanding: Duration
  /// `swipe-min-distance`: the shortest swipe (15 % of the panel along its axis, too).
  public var swipeMinDistance: ScreenLength
  /// `swipe-max-duration`: the longest swipe.
  public var swipeMaxDuration: Duration
  /// `swipe-angle`: degrees a swipe may stray from its axis, more than 0, at most 45.
  public var swipeAngle: Double
  /// `pinch-in`: the scale at or below which a pinch is in, between 0 and 1.
  public var pinchIn: Double
  /// `pinch-out`: the scale at or above which a pinch is out, more than 1, at most 100.
  public var pinchOut: Double
  /// `rotate-angle`: degrees at which a rotation is recognized, more than 0, less than 180.
  public var rotateAngle: Double
  /// `edge-width`: how close to an edge an edge swipe must start.
  public var edgeWidth: ScreenLength
  /// `stuck-contact`: a contact resting longer than this without moving is dropped.
  public var stuckContact: Duration

  /// The config's defaults.
  public init() { self.init(Thresholds()) }

  init(_ core: Thresholds) {
    tapSlop = ScreenLength(core.tapSlop)
    tapMaxDuration = .microseconds(core.tapMaxDuration)
    multiTapGap = .microseconds(core.multiTapGap)
    multiTapDistance = ScreenLength(core.multiTapDistance)
    longPress = .microseconds(core.longPress)
    fingerLanding = .microseconds(core.fingerLanding)
    swipeMinDistance = ScreenLength(core.swipeMinDistance)
    swipeMaxDuration = .microseconds(core.swipeMaxDuration)
    swipeAngle = core.swipeAngle
    pinchIn = core.pinchIn
    pinchOut = core.pinchOut
    rotateAngle = core.rotateAngle
    edgeWidth = ScreenLength(core.edgeWidth)
    stuckContact = .microseconds(core.stuckContact)
  }

  var core: Thresholds {
    var core = Thresholds()
    core.tapSlop = tapSlop.core
    core.tapMaxDuration = Self.microseconds(tapMaxDuration)
    core.multiTapGap = Self.microseconds(multiTapGap)
    core.multiTapDistance = multiTapDistance.core
    core.longPress = Self.microseconds(longPress)
    core.fingerLanding = Self.microseconds(fingerLanding)
    core.swipeMinDistance = swipeMinDistance.core
    core.swipeMaxDuration = Self.microseconds(swipeMaxDuration)
    core.swipeAngle = swipeAngle
    core.pinchIn = pinchIn
    core.pinchOut = pinchOut
    core.rotateAngle = rotateAngle
    core.edgeWidth = edgeWidth.core
    core.stuckContact = Self.microseconds(stuckContact)
    return core
  }

  /// What `gestured check` would say about the same `thresholds:`, in its order.
  var problems: [RuleViolation] {
    var problems: [RuleViolation] = []
    func check(_ key: String, _ value: Duration) {
      let micro = Self.microseconds(value)
      if micro <= 0 {
        problems.append(ConfigRules.zeroDuration(key))
      } else if micro > ConfigRules.maximumDuration {
        problems.append(ConfigRules.durationTooLong(Self.text(micro)))
      }
    }
    func check(_ key: String, _ value: ScreenLength) {
      if let problem = ConfigRules.distance(value.core, key: key) { return problems.append(problem) }
      switch value {
      case .millimetres(let mm) where !(mm <= ConfigRules.maximumMillimetres):
        problems.append(ConfigRules.distanceTooLong("\(mm)mm"))
      case .percentOfDiagonal(let percent) where !(percent <= 100):
        problems.append(ConfigRules.moreThanTheDiagonal("\(percent)%"))
      default: break
      }
    }
    check("tap-slop", tapSlop)
    check("tap-max-duration", tapMaxDuration)
    check("multi-tap-gap", multiTapGap)
    check("multi-tap-distance", multiTapDistance)
    check("long-press", longPress)
    check("finger-landing", fingerLanding)
    check("swipe-min-distance", swipeMinDistance)
    check("swipe-max-duration", swipeMaxDuration)
    if let problem = ConfigRules.swipeAngle(swipeAngle) { problems.append(problem) }
    if let problem = ConfigRules.pinchIn(pinchIn) { problems.append(problem) }
    if let problem = ConfigRules.pinchOut(pinchOut) { problems.append(problem) }
    if let problem = ConfigRules.rotateAngle(rotateAngle) { problems.append(problem) }
    check("edge-width", edgeWidth)
    check("stuck-contact", stuckContact)
    return problems
  }

  /// Whole microseconds, saturating far beyond any threshold.
  static func microseconds(_ duration: Duration) -> Microseconds {
    let (seconds, attoseconds) = duration.components
    let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
    if overflow { return seconds < 0 ? .min : .max }
    return whole.addingReportingOverflow(attoseconds / 1_000_000_000_000).partialValue
  }

  /// As a config writes it.
  static func text(_ micro: Microseconds) -> String {
    micro % 1000 == 0 ? "\(micro / 1000)ms" : "\(Double(micro) / 1_000_000)s"
  }
}
