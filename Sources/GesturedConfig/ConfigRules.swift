import GestureCore

/// A rule a gesture setup breaks, in words: what `gestured check` reports at the YAML
/// value and what the TouchGestures library throws (or warns about) at the call site.
/// Both read these rules, so a config and the same bindings in code are judged alike.
public struct RuleViolation: Hashable, Sendable {
  /// What is wrong, the diagnostic's message.
  public var message: String
  /// What to do about it, when there is more to say.
  public var hint: String?

  /// A violation with its message and hint.
  public init(_ message: String, hint: String? = nil) {
    self.message = message
    self.hint = hint
  }
}

/// The checks on values that a config and code share, each returning what is wrong (nil:
/// nothing is). Checks that only concern YAML's shape (keys, types, units written as text)
/// stay in `ConfigValidator`.
public enum ConfigRules {
  /// Most taps a binding may ask for; more is a typo, and recognizers may size storage by it.
  public static let maximumTaps = 100
  /// Most regions in one profile.
  public static let maximumRegions = 256
  /// Most fingers gestured follows in one sequence.
  public static let maximumFingers = 5
  /// Slack for sums of fractions such as 0.7 + 0.3.
  static let fractionTolerance = 1e-9

  // MARK: Bindings

  /// `taps:` of a tap binding.
  public static func taps(_ number: Int) -> RuleViolation? {
    guard number < 1 || number > maximumTaps else { return nil }
    return RuleViolation(
      "'taps' must be 1 to \(maximumTaps), not \(number)", hint: number < 1 ? "a single tap is taps: 1" : nil)
  }

  /// `fingers:` of a binding of `gesture` (nil: the gesture is unknown, only the range applies).
  public static func fingers(_ number: Int, gesture: GestureKind?) -> RuleViolation? {
    if number < 1 || number > maximumFingers {
      return RuleViolation(
        "'fingers' must be 1 to \(maximumFingers), not \(number)",
        hint: "gestured follows up to \(maximumFingers) fingers")
    }
    if let gesture, !gesture.traits.fingers.contains(number) {
      return RuleViolation(
        "'fingers' must be \(gesture.traits.fingers.lowerBound) for \(gesture.rawValue)",
        hint: "pinch and rotate use exactly 2 fingers")
    }
    return nil
  }

  /// A step of `amount` in the gesture's own unit, written `text` (e.g. `150%`).
  public static func step(_ amount: Double, written text: String, unit: StepUnit) -> RuleViolation? {
    guard !unit.accepts(amount) else { return nil }
    let range = unit.range
    let symbol = stepSymbol(unit)
    let upper = range.upperIsExclusive ? "less than" : "at most"
    return RuleViolation(
      "'step' must be more than \(plain(range.lowerBound))\(symbol) and \(upper) \(plain(range.upperBound))\(symbol), not \(text)",
      hint: "e.g. step: \(stepExample(unit))")
  }

  /// `amount` written as a config would, e.g. `150%`, `15deg`, `10mm`.
  public static func stepText(_ amount: Double, unit: StepUnit) -> String {
    plain(amount) + stepSymbol(unit)
  }

  /// A binding with the same trigger as the one at `line`: only one may run per gesture.
  public static func repeatedTrigger(line: Int) -> RuleViolation {
    RuleViolation(
      "this binding repeats the one at line \(line): same gesture, taps, fingers, direction, edge and region",
      hint:
        "only one command can run per gesture (a step binding and a one-shot one count alike); remove one or change what tells them apart"
    )
  }

  /// The directions a long press may drag in after it fires.
  public static let holdAndDragDirections: [Direction] = [.up, .down, .left, .right]

  /// A long press with `direction` but no `step`.
  public static let holdAndDragWithoutStep = RuleViolation(
    "a long-press 'direction' needs a 'step'",
    hint:
      "with both, the fingers' drag after the long press fires a step per 'step' moved, e.g. step: 10mm; without both it fires once"
  )

  /// A long press with `step` but no `direction`.
  public static let holdAndDragWithoutDirection = RuleViolation(
    "a long-press 'step' needs a 'direction'",
    hint: "the way the fingers drag after the long press: one of up, down, left, right")

  /// A warning: an edge swipe that moves towards its own edge.
  public static func edgeSwipe(from edge: Edge, moving direction: Direction) -> RuleViolation? {
    let leaves =
      switch (edge, direction) {
      case (.left, .left), (.right, .right), (.top, .up), (.bottom, .down): true
      default: false
      }
    guard leaves else { return nil }
    return RuleViolation(
      "a swipe \(direction.rawValue) from the \(edge.rawValue) edge moves off the panel and can hardly happen",
      hint: "an edge swipe usually moves away from its edge")
  }

  /// A warning for a set of bindings that is empty.
  public static let noBindings = RuleViolation(
    "the config has no bindings, so nothing runs", hint: "add a 'bindings:' list")

  // MARK: Thresholds

  /// `swipe-angle:` in degrees.
  public static func swipeAngle(_ angle: Double) -> RuleViolation? {
    angle > 0 && angle <= 45
      ? nil
      : RuleViolation(
        "'swipe-angle' must be more than 0deg and at most 45deg",
        hint: "how far a swipe may stray from its axis; beyond 45deg directions would overlap")
  }

  /// `pinch-in:`, a scale.
  public static func pinchIn(_ scale: Double) -> RuleViolation? {
    scale > 0 && scale < 1
      ? nil
      : RuleViolation(
        "'pinch-in' must be between 0 and 1", hint: "the scale the fingers' distance shrinks to, e.g. 0.8")
  }

  /// `pinch-out:`, a scale.
  public static func pinchOut(_ scale: Double) -> RuleViolation? {
    scale > 1 && scale <= 100
      ? nil
      : RuleViolation(
        "'pinch-out' must be more than 1 and at most 100",
        hint: "the scale the fingers' distance grows to, e.g. 1.25")
  }

  /// `rotate-angle:` in degrees.
  public static func rotateAngle(_ angle: Double) -> RuleViolation? {
    angle > 0 && angle < 180
      ? nil : RuleViolation("'rotate-angle' must be more than 0deg and less than 180deg", hint: "e.g. 15deg")
  }

  /// The longest duration: no threshold, timeout or cooldown is meant to last more than a
  /// day; beyond is a typo, and small durations keep deadline arithmetic far from overflow.
  public static let maximumDuration: Microseconds = 24 * 3600 * 1_000_000
  /// The longest distance or panel side, 10 m: more is a typo (a missing point), and bounded
  /// lengths keep every product of them finite.
  public static let maximumMillimetres = 10_000.0

  /// The fastest speed, 10 m/s: no finger moves faster on a panel, so more is a typo.
  public static let maximumMillimetresPerSecond = 10_000.0

  /// A speed above `maximumMillimetresPerSecond`, written `text`.
  public static func speedTooHigh(_ text: String) -> RuleViolation {
    RuleViolation("'\(text)' is faster than 10 m/s", hint: "speeds are 0 to 10000mm/s (1000cm/s)")
  }

  /// A duration above `maximumDuration`, written `text`.
  public static func durationTooLong(_ text: String) -> RuleViolation {
    RuleViolation("'\(text)' is longer than 24 hours", hint: "durations are 0 to 86400s (24 hours)")
  }

  /// A distance above `maximumMillimetres`, written `text`.
  public static func distanceTooLong(_ text: String) -> RuleViolation {
    RuleViolation("'\(text)' is longer than 10 m", hint: "distances and sizes are at most 10000mm (1000cm)")
  }

  /// A share of the diagonal above 100 %, written `text`.
  public static func moreThanTheDiagonal(_ text: String) -> RuleViolation {
    RuleViolation("'\(text)' is more than the whole diagonal", hint: "use at most 100%")
  }

  /// A duration of zero where one is needed (`key` as the config names it).
  public static func zeroDuration(_ key: String) -> RuleViolation {
    RuleViolation("'\(key)' must be longer than 0")
  }

  /// A distance that must be more than zero (`key` as the config names it).
  public static func distance(_ distance: Distance, key: String) -> RuleViolation? {
    distance.millimetres(diagonal: 1) > 0 ? nil : RuleViolation("'\(key)' must be more than 0")
  }

  // MARK: Regions

  /// The region after `maximumRegions`.
  public static let tooManyRegions = RuleViolation(
    "a profile has at most \(maximumRegions) regions; this is one more",
    hint: "regions are areas of the panel a binding can name; merge or remove some")

  /// `independent: true` on a region without an area of its own.
  public static let independentWithoutArea = RuleViolation(
    "an independent region needs an 'area'",
    hint:
      "contacts that land in its area form their own touch sequences; give it a part of the panel, e.g. area: { x: 0, y: 0, width: 0.5, height: 1 }"
  )

  /// A forwarding policy (`forward-fingers`, `wake`) on a device entry that does not
  /// forward.
  public static func needsForward(_ key: String) -> RuleViolation {
    RuleViolation(
      "'\(key)' applies only to a device entry with 'forward: true'",
      hint: "add 'forward: true' (which passes every other touch on through a clone) or remove '\(key)'")
  }

  /// `forward-fingers:` out of range.
  public static func forwardFingers(_ number: Int) -> RuleViolation? {
    guard number < 1 || number > maximumFingers * 2 else { return nil }
    return RuleViolation(
      "'forward-fingers' must be 1 to \(maximumFingers * 2), not \(number)",
      hint: "1 keeps a browser's pinch-zoom and two-finger swipe-back from the app")
  }

  /// A region name already given at `line`.
  public static func repeatedRegion(_ name: String, line: Int) -> RuleViolation {
    RuleViolation("region '\(name)' is already defined at line \(line)")
  }

  /// A warning: region `name` lies inside `outer`, listed at `line`, so it never wins a touch.
  public static func regionInside(_ name: String, outer: String, line: Int) -> RuleViolation {
    RuleViolation(
      "region '\(name)' lies inside '\(outer)', listed before it at line \(line): no gesture ever belongs to '\(name)'",
      hint: "the first region containing a touch wins; list the smaller region first")
  }

  /// Whether `outer` covers `inner` (with slack for sums of fractions).
  public static func area(_ outer: Area, covers inner: Area) -> Bool {
    let slack = fractionTolerance
    return outer.x <= inner.x + slack && outer.y <= inner.y + slack
      && outer.x + outer.width + slack >= inner.x + inner.width
      && outer.y + outer.height + slack >= inner.y + inner.height
  }

  /// One of an area's `x`, `y`, `width`, `height`, on its own.
  public static func areaValue(_ key: String, _ number: Double) -> RuleViolation? {
    let isOrigin = key == "x" || key == "y"
    let fits = isOrigin ? number >= 0 && number < 1 : number > 0 && number <= 1
    guard !fits else { return nil }
    return RuleViolation(
      isOrigin ? "'\(key)' must be at least 0 and less than 1" : "'\(key)' must be more than 0 and at most 1",
      hint: "areas are fractions of the panel: 0 is the left or top edge, 1 the right or bottom")
  }

  /// An area's origin plus size along one axis ("x", "width", "right" or "y", "height", "bottom").
  public static func areaReach(origin: String, size: String, edge: String, start: Double, length: Double)
    -> RuleViolation?
  {
    guard start + length > 1 + fractionTolerance else { return nil }
    return RuleViolation(
      "\(origin) + \(size) is \(start + length): the area reaches past the \(edge) edge of the panel",
      hint: "make \(size) at most \(shortDecimal(1 - start))")
  }

  /// Every problem of a whole area, in the order the validator reports them.
  public static func area(_ area: Area) -> [RuleViolation] {
    var problems: [RuleViolation] = []
    let values = [("x", area.x), ("y", area.y), ("width", area.width), ("height", area.height)]
    for (key, number) in values { if let problem = areaValue(key, number) { problems.append(problem) } }
    guard problems.isEmpty else { return problems }
    for (origin, size, edge, start, length) in [
      ("x", "width", "right", area.x, area.width), ("y", "height", "bottom", area.y, area.height),
    ] {
      if let problem = areaReach(origin: origin, size: size, edge: edge, start: start, length: length) {
        problems.append(problem)
      }
    }
    return problems
  }

  // MARK: Simultaneous gestures

  /// A kind that cannot join a group (tap, long press, swipe), with the kind table's reason.
  public static func groupMember(_ kind: GestureKind) -> RuleViolation? {
    guard let why = kind.traits.groupRefusal else { return nil }
    return RuleViolation(
      "\(kind.rawValue) cannot be in a 'simultaneous' group: \(why)",
      hint: "a group holds two or three of \(continuousKinds)")
  }

  /// A kind named twice in the group.
  public static func repeatedGroupMember(_ kind: GestureKind) -> RuleViolation {
    RuleViolation("\(kind.rawValue) is in the group twice")
  }

  /// A group of fewer than two kinds.
  public static let groupTooSmall = RuleViolation(
    "a 'simultaneous' group needs two or three gestures",
    hint: "a group holds two or three of \(continuousKinds), e.g. [[pinch, rotate]]")

  /// Warnings: members of the group that no finger count lets share a sequence (a
  /// one-finger pan with a pinch, which takes two).
  public static func groupFingers(_ group: GestureKindSet, bindings: [Binding]) -> [RuleViolation] {
    var fingers: [GestureKind: Set<Int>] = [:]
    for binding in bindings where group.contains(binding.gesture) {
      fingers[binding.gesture, default: []].insert(binding.fingers)
    }
    let members = group.kinds.filter { fingers[$0] != nil }
    var warnings: [RuleViolation] = []
    for (i, a) in members.enumerated() {
      for b in members[(i + 1)...] where fingers[a, default: []].isDisjoint(with: fingers[b, default: []]) {
        let counts: (GestureKind) -> String = { kind in
          fingers[kind, default: []].sorted().map(String.init).joined(separator: " or ")
        }
        warnings.append(
          RuleViolation(
            "\(a.rawValue) and \(b.rawValue) can never share a sequence: their bindings take \(counts(a)) and \(counts(b)) fingers",
            hint: "give the \(a.rawValue) bindings 'fingers: \(counts(b))', or drop one from the group"))
      }
    }
    return warnings
  }

  static let continuousKinds = GestureKind.continuous.map(\.rawValue).joined(separator: ", ")

  // MARK: Text

  static func stepExample(_ unit: StepUnit) -> String {
    switch unit {
    case .percent: "10%"
    case .degrees: "15deg"
    case .millimetres: "10mm"
    }
  }

  static func stepSymbol(_ unit: StepUnit) -> String {
    switch unit {
    case .percent: "%"
    case .degrees: "deg"
    case .millimetres: "mm"
    }
  }

  static func plain(_ value: Double) -> String {
    value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
  }

  static func shortDecimal(_ value: Double) -> String {
    let rounded = (value * 1_000_000).rounded() / 1_000_000
    return "\(rounded)"
  }
}

extension ValueReader {
  mutating func error(_ value: Value, _ problem: RuleViolation) {
    error(value, problem.message, hint: problem.hint)
  }

  mutating func warning(at location: SourceLocation, _ problem: RuleViolation) {
    warning(at: location, problem.message, hint: problem.hint)
  }
}
