import GestureCore
import GesturedConfig

/// A firing with the names it refers to looked up in its profile, checked once, so that the
/// JSON report, the action's environment and logs never index the profile blindly.
public struct ResolvedFiring: Sendable {
  /// A constant: `payload` is derived from it.
  public let event: GestureEvent
  public var profileName: String
  /// The profile's `environment:` and `user:`; the binding's own come with `action`.
  public var profileEnvironment: [String: String]
  public var profileUser: String?
  public var action: BindingAction
  /// The binding's name, else e.g. `tap@corner` (`Profile.displayName(ofBinding:)`).
  public var bindingName: String
  /// nil when no region contains the start.
  public var regionName: String?
  /// What the gesture's firings report (`GestureTraits.payload`), looked up once: the
  /// traits are built anew at every call.
  private let payload: [PayloadField]

  /// nil when the event names a binding or region the profile does not have (an engine bug;
  /// callers report it rather than trap).
  public init?(event: GestureEvent, profile: Profile, actions: ProfileActions) {
    guard profile.bindings.indices.contains(event.binding), let action = actions.action(ofBinding: event.binding)
    else { return nil }
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
    self.action = action
    profileName = profile.name
    profileEnvironment = actions.environment
    profileUser = actions.user
    bindingName = profile.displayName(ofBinding: event.binding)
    payload = event.gesture.traits.payload
  }

  /// What runs: the binding's `run` for one-shot firings and steps, its `end` for an end
  /// event (nil when it has none: such end events are neither run nor reported), nil for
  /// firings of a key or wheel binding (`input`).
  public var command: String? {
    if case .end = event.phase { return action.end }
    return action.run
  }

  /// The key or wheel action a one-shot firing or step writes; nil for end events and for
  /// `run:` bindings.
  public var input: InputAction? {
    if case .end = event.phase { return nil }
    return action.input
  }

  /// Whether replay and monitor print it: end events only for bindings with `end:`.
  public var isReported: Bool { command != nil || input != nil }

  /// The user the command runs as.
  public var user: String? { action.user ?? profileUser }

  /// The first finger's down position, pulled into 0...1.
  public var position: Point { event.position.clamped }

  private func reports(_ field: PayloadField) -> Bool { payload.contains(field) }

  /// Swipes, pans, pinches and rotations report a direction; taps and long presses do not.
  public var reportedDirection: Direction? { reports(.direction) ? event.direction : nil }

  /// The number of taps, for taps only.
  public var reportedTaps: Int? { reports(.taps) ? event.taps : nil }

  /// The pinch's scale, for pinches only.
  public var reportedScale: Double? { reports(.scale) ? event.scale : nil }

  /// Degrees turned, positive clockwise, for rotations only.
  public var reportedAngle: Double? { reports(.angle) ? event.angle : nil }

  /// Why the steps ended (lift, fingers, cancel), for end events only.
  public var reportedEndReason: EndReason? {
    if case .end = event.phase { return event.endReason }
    return nil
  }

  /// The pan's offset in mm, right and down positive, for pans only.
  public var reportedOffset: (dx: Double, dy: Double)? {
    guard reports(.offset), let dx = event.dx, let dy = event.dy else { return nil }
    return (dx, dy)
  }
}

/// The line replay and monitor print for a firing.
public enum FiringReport {
  /// One JSON object: `file`, `time`, `device`, `profile`, `region`, `binding`, `gesture`,
  /// `fingers`, then `taps` (taps), `direction` (swipe, pan, pinch, rotate), `step` (steps)
  /// or `end: true, steps` (end lines), `key`, `wheel` or `hwheel` (key and wheel bindings),
  /// `scale` (pinch), `angle` (rotate), `dx, dy` (pan), then `x`, `y`. Without a trailing
  /// newline.
  public static func jsonLine(file: String, deviceName: String, firing: ResolvedFiring) -> String {
    json(file: file, deviceName: deviceName, firing: firing).line
  }

  /// The same line and a newline, after what `output` holds (replay's batches).
  public static func appendJSONLine(
    file: String, deviceName: String, firing: ResolvedFiring, to output: inout [UInt8]
  ) {
    json(file: file, deviceName: deviceName, firing: firing).appendLine(to: &output)
  }

  private static func json(file: String, deviceName: String, firing: ResolvedFiring) -> JSONLine {
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
    switch event.phase {
    case .oneShot: break
    case .step(let k): json.add("step", k)
    case .end(let n):
      json.add("end", true)
      json.add("steps", n)
    }
    switch firing.input {
    case .keys(let chords)?: json.add("key", chords.map(\.written).joined(separator: " "))
    case .wheel(let clicks)?: json.add("wheel", clicks)
    case .horizontalWheel(let clicks)?: json.add("hwheel", clicks)
    case nil: break
    }
    if let scale = firing.reportedScale { json.add("scale", rounded: scale) }
    if let angle = firing.reportedAngle { json.add("angle", rounded: angle) }
    if let offset = firing.reportedOffset {
      json.add("dx", rounded: offset.dx)
      json.add("dy", rounded: offset.dy)
    }
    let position = firing.position
    json.add("x", rounded: position.x)
    json.add("y", rounded: position.y)
    return json
  }
}
