import GestureCore

/// A number with the tolerance it is checked with.
public struct Approximate: Hashable, Sendable, CustomStringConvertible {
  public var value: Double
  public var tolerance: Double

  public init(value: Double, tolerance: Double) {
    self.value = value
    self.tolerance = tolerance
  }

  /// Inclusive, with a hair of slack so that `0.3±0.1` accepts a computed 0.4000000001.
  public func accepts(_ actual: Double) -> Bool {
    (actual - value).magnitude <= tolerance + 1e-9
  }

  public var description: String { "\(Approximate.format(value))±\(Approximate.format(tolerance))" }

  /// Up to six decimals, trailing zeros dropped: 0.38, 15, 0.000123.
  static func format(_ value: Double) -> String {
    let scaled = (value * 1_000_000).rounded()
    guard scaled.magnitude < 1e15 else { return "\(value)" }
    let micros = Int64(scaled)
    let sign = micros < 0 ? "-" : ""
    let whole = micros.magnitude / 1_000_000
    var fraction = String(micros.magnitude % 1_000_000)
    fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
    while fraction.last == "0" { fraction.removeLast() }
    return sign + String(whole) + (fraction.isEmpty ? "" : "." + fraction)
  }
}

/// What a script says a replay must print for one firing: an `expect` line.
///
/// Every field left nil is not checked. Positions are the user's coordinates (after the
/// profile's calibration and rotation), exactly as `gestured replay` reports them.
public struct Expectation: Hashable, Sendable, CustomStringConvertible {
  /// The script line, for messages.
  public var line: Int
  public var gesture: GestureKind
  /// The binding's display name: its `name`, else e.g. `tap@corner`.
  public var binding: String?
  public var profile: String?
  /// `.some(nil)`: the firing must be outside every region (`region=none`).
  public var region: String??
  public var fingers: Int?
  public var taps: Int?
  public var direction: Direction?
  /// Seconds on the recording's clock.
  public var time: Approximate?
  public var x: Approximate?
  public var y: Approximate?
  public var scale: Approximate?
  /// Degrees, positive clockwise.
  public var angle: Approximate?
  /// A step's K (`step=3`).
  public var step: Int?
  /// `end=yes`: an end line; `end=no`: not one.
  public var end: Bool?
  /// An end line's N (`steps=4`).
  public var steps: Int?
  /// A pan's offset, mm.
  public var dx: Approximate?
  public var dy: Approximate?

  public init(line: Int, gesture: GestureKind) {
    self.line = line
    self.gesture = gesture
  }

  /// Tolerances used when an `expect` line gives a value without `±`.
  public static let defaultTimeTolerance = 0.005
  public static let defaultPositionTolerance = 0.01
  public static let defaultScaleTolerance = 0.02
  public static let defaultAngleTolerance = 2.0
  public static let defaultOffsetTolerance = 1.0

  public var description: String {
    var parts = [gesture.rawValue]
    if let binding { parts.append("binding=\(binding)") }
    if let profile { parts.append("profile=\(profile)") }
    if let region { parts.append("region=\(region ?? "none")") }
    if let fingers { parts.append("fingers=\(fingers)") }
    if let taps { parts.append("taps=\(taps)") }
    if let direction { parts.append("direction=\(direction.rawValue)") }
    if let time { parts.append("time=\(time)") }
    if let x { parts.append("x=\(x)") }
    if let y { parts.append("y=\(y)") }
    if let scale { parts.append("scale=\(scale)") }
    if let angle { parts.append("angle=\(angle)") }
    if let step { parts.append("step=\(step)") }
    if let end { parts.append("end=\(end ? "yes" : "no")") }
    if let steps { parts.append("steps=\(steps)") }
    if let dx { parts.append("dx=\(dx)") }
    if let dy { parts.append("dy=\(dy)") }
    return parts.joined(separator: " ")
  }

  /// Every way `event` differs from this expectation; empty when it matches.
  public func differences(from event: GestureEvent, profile: Profile) -> [String] {
    var found: [String] = []
    func compare(_ name: String, _ expected: Approximate?, _ actual: Double?) {
      guard let expected else { return }
      guard let actual else {
        found.append("\(name): expected \(expected), got none")
        return
      }
      if !expected.accepts(actual) {
        found.append("\(name): expected \(expected), got \(Approximate.format(actual))")
      }
    }
    func compare<T: Equatable>(_ name: String, _ expected: T?, _ actual: T, _ show: (T) -> String) {
      if let expected, expected != actual {
        found.append("\(name): expected \(show(expected)), got \(show(actual))")
      }
    }
    compare("gesture", gesture, event.gesture) { $0.rawValue }
    let bindingName =
      profile.bindings.indices.contains(event.binding)
      ? profile.displayName(ofBinding: event.binding) : "#\(event.binding)"
    compare("binding", binding, bindingName) { $0 }
    compare("profile", self.profile, profile.name) { $0 }
    if let region {
      let actual = event.region.flatMap {
        profile.regions.indices.contains($0) ? profile.regions[$0].name : "#\($0)"
      }
      if region != actual {
        found.append("region: expected \(region ?? "none"), got \(actual ?? "none")")
      }
    }
    compare("fingers", fingers, event.fingers) { String($0) }
    compare("taps", taps, event.taps) { String($0) }
    if let direction, direction != event.direction {
      found.append(
        "direction: expected \(direction.rawValue), got \(event.direction?.rawValue ?? "none")")
    }
    compare("time", time, Double(event.time.microseconds) / 1_000_000)
    compare("x", x, event.position.x)
    compare("y", y, event.position.y)
    compare("scale", scale, event.scale)
    compare("angle", angle, event.angle)
    if let step, step != event.step {
      found.append("step: expected \(step), got \(event.step.map(String.init) ?? "none")")
    }
    if let end, end != (event.endSteps != nil) {
      found.append("end: expected \(end ? "an end line" : "no end line"), got \(event.phase)")
    }
    if let steps, steps != event.endSteps {
      found.append("steps: expected \(steps), got \(event.endSteps.map(String.init) ?? "none")")
    }
    compare("dx", dx, event.dx)
    compare("dy", dy, event.dy)
    return found
  }
}

extension TouchScript {
  /// Checks a replay's firings against the script's `expect` lines, in order.
  ///
  /// Returns nil when they agree; otherwise a report that lists every expected and every
  /// actual firing side by side, so a failing scenario can be read without rerunning it.
  public func check(firings: [GestureEvent], profile: Profile) -> String? {
    var problems: [String] = []
    if expectations.isEmpty && !expectsNothing {
      return "\(file): the script has no expect line (write `expect nothing` if nothing must fire)"
    }
    if firings.count != expectations.count {
      problems.append("expected \(expectations.count) firing(s), got \(firings.count)")
    }
    for (index, (expected, actual)) in zip(expectations, firings).enumerated() {
      let differences = expected.differences(from: actual, profile: profile)
      if !differences.isEmpty {
        problems.append(
          "firing #\(index + 1) (expect on line \(expected.line)): "
            + differences.joined(separator: "; "))
      }
    }
    if problems.isEmpty { return nil }
    var report = ["\(file): replay does not match the script"]
    report += problems.map { "  " + $0 }
    report.append("  expected:")
    if expectations.isEmpty { report.append("    nothing") }
    for (index, expected) in expectations.enumerated() {
      report.append("    #\(index + 1) line \(expected.line): \(expected)")
    }
    report.append("  actual:")
    if firings.isEmpty { report.append("    nothing") }
    for (index, firing) in firings.enumerated() {
      report.append("    #\(index + 1) \(TouchScript.describe(firing, profile: profile))")
    }
    return report.joined(separator: "\n")
  }

  /// One firing in the words of an `expect` line, for reports.
  public static func describe(_ event: GestureEvent, profile: Profile) -> String {
    var parts = [event.gesture.rawValue]
    if profile.bindings.indices.contains(event.binding) {
      parts.append("binding=\(profile.displayName(ofBinding: event.binding))")
    } else {
      parts.append("binding=#\(event.binding)")
    }
    parts.append("profile=\(profile.name)")
    let region = event.region.flatMap {
      profile.regions.indices.contains($0) ? profile.regions[$0].name : nil
    }
    parts.append("region=\(region ?? "none")")
    parts.append("fingers=\(event.fingers)")
    if event.gesture == .tap { parts.append("taps=\(event.taps)") }
    if let direction = event.direction { parts.append("direction=\(direction.rawValue)") }
    parts.append("time=\(event.time)")
    parts.append("x=\(Approximate.format(event.position.x))")
    parts.append("y=\(Approximate.format(event.position.y))")
    if let scale = event.scale { parts.append("scale=\(Approximate.format(scale))") }
    if let angle = event.angle { parts.append("angle=\(Approximate.format(angle))") }
    if let dx = event.dx { parts.append("dx=\(Approximate.format(dx))") }
    if let dy = event.dy { parts.append("dy=\(Approximate.format(dy))") }
    if let step = event.step { parts.append("step=\(step)") }
    if let steps = event.endSteps { parts.append("end=yes steps=\(steps)") }
    return parts.joined(separator: " ")
  }
}

/// What a script says about the continuous stream (`gestured replay --continuous`): an
/// `expect stream` line. Every field left nil is not checked.
///
/// Without `count` a line matches one stream event, later than the event the previous such
/// line matched (events between are allowed: a pan changes at every frame). With `count` it
/// matches no event in order; the number of events anywhere that fit its other keys must
/// be in `count`.
public struct StreamExpectation: Hashable, Sendable, CustomStringConvertible {
  /// The script line, for messages.
  public var line: Int
  public var gesture: GestureKind
  public var phase: GestureStreamEvent.Phase
  /// `.some(nil)`: the sequence is outside every region (`region=none`).
  public var region: String??
  public var fingers: Int?
  public var reason: EndReason?
  /// Seconds on the recording's clock.
  public var time: Approximate?
  public var cx: Approximate?
  public var cy: Approximate?
  /// Millimetres.
  public var dx: Approximate?
  public var dy: Approximate?
  public var scale: Approximate?
  /// Degrees, clockwise positive.
  public var angle: Approximate?
  /// mm/s.
  public var vx: Approximate?
  public var vy: Approximate?
  /// Per second.
  public var vscale: Approximate?
  /// Degrees per second.
  public var vangle: Approximate?
  /// How many events fit; nil: the line matches one event, in order.
  public var count: ClosedRange<Int>?

  public init(line: Int, gesture: GestureKind, phase: GestureStreamEvent.Phase) {
    self.line = line
    self.gesture = gesture
    self.phase = phase
  }

  /// Tolerances used when an `expect stream` line gives a rate without `±`; the others are
  /// `Expectation`'s (cx, cy as positions, dx, dy as offsets).
  public static let defaultSpeedTolerance = 15.0
  public static let defaultScaleRateTolerance = 0.1
  public static let defaultAngleRateTolerance = 20.0

  /// The values' keys in the order of the stream's JSON lines.
  public static let valueKeys = ["cx", "cy", "dx", "dy", "scale", "angle", "vx", "vy", "vscale", "vangle"]

  /// The expected values, in the order of `valueKeys`.
  var expectedValues: [Approximate?] { [cx, cy, dx, dy, scale, angle, vx, vy, vscale, vangle] }

  /// An event's values, in the order of `valueKeys`.
  static func actualValues(_ values: StreamValues) -> [Double] {
    [
      values.cx, values.cy, values.dx, values.dy, values.scale, values.angle, values.vx, values.vy, values.vscale,
      values.vangle,
    ]
  }

  public var description: String {
    var parts = ["stream", gesture.rawValue, phase.rawValue]
    if let region { parts.append("region=\(region ?? "none")") }
    if let fingers { parts.append("fingers=\(fingers)") }
    if let reason { parts.append("reason=\(reason.rawValue)") }
    if let time { parts.append("time=\(time)") }
    for (key, expected) in zip(Self.valueKeys, expectedValues) {
      if let expected { parts.append("\(key)=\(expected)") }
    }
    if let count {
      parts.append(
        count.lowerBound == count.upperBound
          ? "count=\(count.lowerBound)" : "count=\(count.lowerBound)..\(count.upperBound)")
    }
    return parts.joined(separator: " ")
  }

  /// Every way `event` differs from this expectation (`count` aside); empty when it fits.
  public func differences(from event: GestureStreamEvent, profile: Profile) -> [String] {
    var found: [String] = []
    func compare(_ name: String, _ expected: Approximate?, _ actual: Double) {
      if let expected, !expected.accepts(actual) {
        found.append("\(name): expected \(expected), got \(Approximate.format(actual))")
      }
    }
    if gesture != event.gesture { found.append("gesture: expected \(gesture.rawValue), got \(event.gesture.rawValue)") }
    if phase != event.phase { found.append("phase: expected \(phase.rawValue), got \(event.phase.rawValue)") }
    if let region {
      let actual = TouchScript.regionName(event.region, profile: profile)
      if region != actual { found.append("region: expected \(region ?? "none"), got \(actual ?? "none")") }
    }
    if let fingers, fingers != event.fingers { found.append("fingers: expected \(fingers), got \(event.fingers)") }
    if let reason, reason != event.reason {
      found.append("reason: expected \(reason.rawValue), got \(event.reason?.rawValue ?? "none")")
    }
    compare("time", time, Double(event.time.microseconds) / 1_000_000)
    for (key, (expected, actual)) in zip(Self.valueKeys, zip(expectedValues, Self.actualValues(event.values))) {
      compare(key, expected, actual)
    }
    return found
  }
}

extension TouchScript {
  /// Checks a replay's stream events against the script's `expect stream` lines: nil when
  /// they agree or the script has none, otherwise a report naming each difference and listing
  /// the stream.
  public func check(stream: [GestureStreamEvent], profile: Profile) -> String? {
    guard !streamExpectations.isEmpty || expectsNoStream else { return nil }
    var problems: [String] = []
    if expectsNoStream && !stream.isEmpty {
      problems.append("expected no stream line, got \(stream.count)")
    }
    var next = 0
    for expected in streamExpectations {
      if let count = expected.count {
        let found = stream.count { expected.differences(from: $0, profile: profile).isEmpty }
        if !count.contains(found) {
          problems.append("stream expect on line \(expected.line) (\(expected)): \(found) line(s) fit")
        }
        continue
      }
      if let index = stream[next...].firstIndex(where: { expected.differences(from: $0, profile: profile).isEmpty }) {
        next = index + 1
        continue
      }
      // The nearest event of the same gesture and phase, to say what differs.
      let nearest = stream[next...].firstIndex { $0.gesture == expected.gesture && $0.phase == expected.phase }
      let after = next == 0 ? "" : " after stream line #\(next)"
      if let nearest {
        problems.append(
          "stream expect on line \(expected.line): no stream line\(after) fits; the first \(expected.gesture.rawValue) \(expected.phase.rawValue) (#\(nearest + 1)) differs in "
            + expected.differences(from: stream[nearest], profile: profile).joined(separator: "; "))
      } else {
        problems.append(
          "stream expect on line \(expected.line): no \(expected.gesture.rawValue) \(expected.phase.rawValue) line\(after)"
        )
      }
    }
    if problems.isEmpty { return nil }
    var report = ["\(file): the replay's stream does not match the script"]
    report += problems.map { "  " + $0 }
    report.append("  expected:")
    if expectsNoStream { report.append("    nothing") }
    for expected in streamExpectations { report.append("    line \(expected.line): \(expected)") }
    report.append("  actual:")
    if stream.isEmpty { report.append("    nothing") }
    let shown = 200
    for (index, event) in stream.prefix(shown).enumerated() {
      report.append("    #\(index + 1) \(TouchScript.describe(event, profile: profile))")
    }
    if stream.count > shown { report.append("    … \(stream.count - shown) more") }
    return report.joined(separator: "\n")
  }

  /// One stream event in the words of an `expect stream` line, for reports.
  public static func describe(_ event: GestureStreamEvent, profile: Profile) -> String {
    var parts = ["stream", event.gesture.rawValue, event.phase.rawValue]
    parts.append("region=\(regionName(event.region, profile: profile) ?? "none")")
    parts.append("fingers=\(event.fingers)")
    if let reason = event.reason { parts.append("reason=\(reason.rawValue)") }
    parts.append("time=\(event.time)")
    for (key, actual) in zip(StreamExpectation.valueKeys, StreamExpectation.actualValues(event.values)) {
      parts.append("\(key)=\(Approximate.format(actual))")
    }
    return parts.joined(separator: " ")
  }

  static func regionName(_ region: Int?, profile: Profile) -> String? {
    region.map { profile.regions.indices.contains($0) ? profile.regions[$0].name : "#\($0)" }
  }
}
