import GestureCore

/// A firing with the names it refers to looked up in its profile, checked once, so that the
/// JSON report, the action's environment and logs never index the profile blindly.
public struct ResolvedFiring: Sendable {
  public var event: GestureEvent
  public var profileName: String
  /// The profile's `environment:`; the binding's own comes with `binding`.
  public var profileEnvironment: [String: String]
  public var binding: Binding
  /// The binding's name, else e.g. `tap@corner` (`Profile.displayName(ofBinding:)`).
  public var bindingName: String
  /// nil when no region contains the start.
  public var regionName: String?

  /// nil when the event names a binding or region the profile does not have (an engine bug;
  /// callers report it rather than trap).
  public init?(event: GestureEvent, profile: Profile) {
    guard profile.bindings.indices.contains(event.binding) else { return nil }
    if let region = event.region {
      guard profile.regions.indices.contains(region) else { return nil }
      regionName = profile.regions[region].name
    } else {
      regionName = nil
    }
    if let bound = profile.bindings[event.binding].region, !profile.regions.indices.contains(bound) {
      return nil
    }
    self.event = event
    profileName = profile.name
    profileEnvironment = profile.environment
    binding = profile.bindings[event.binding]
    bindingName = profile.displayName(ofBinding: event.binding)
  }

  /// The first finger's down position, pulled into 0...1.
  public var position: Point { event.position.clamped }

  /// Swipes, pinches and rotations report a direction; taps and long presses do not.
  public var reportedDirection: Direction? {
    switch event.gesture {
    case .swipe, .pinch, .rotate: event.direction
    case .tap, .longPress: nil
    }
  }

  /// The number of taps, for taps only.
  public var reportedTaps: Int? { event.gesture == .tap ? event.taps : nil }

  /// The pinch's scale, for pinches only.
  public var reportedScale: Double? { event.gesture == .pinch ? event.scale : nil }

  /// Degrees turned, positive clockwise, for rotations only.
  public var reportedAngle: Double? { event.gesture == .rotate ? event.angle : nil }
}

/// The line replay prints for a firing.
public enum FiringReport {
  /// One JSON object: `file`, `time`, `device`, `profile`, `region`, `binding`, `gesture`,
  /// `fingers`, then `taps` (taps), `direction` (swipe, pinch, rotate), `scale` (pinch),
  /// `angle` (rotate), then `x`, `y`. Without a trailing newline.
  public static func jsonLine(file: String, deviceName: String, firing: ResolvedFiring) -> String {
    let event = firing.event
    var json = JSONLine()
    json.add("file", file)
    json.add("time", event.time)
    json.add("device", deviceName)
    json.add("profile", firing.profileName)
    json.add("region", firing.regionName)
    json.add("binding", firing.bindingName)
    json.add("gesture", event.gesture.rawValue)
    json.add("fingers", event.fingers)
    if let taps = firing.reportedTaps { json.add("taps", taps) }
    if let direction = firing.reportedDirection { json.add("direction", direction.rawValue) }
    if let scale = firing.reportedScale { json.add("scale", rounded: scale) }
    if let angle = firing.reportedAngle { json.add("angle", rounded: angle) }
    let position = firing.position
    json.add("x", rounded: position.x)
    json.add("y", rounded: position.y)
    return json.line
  }
}
