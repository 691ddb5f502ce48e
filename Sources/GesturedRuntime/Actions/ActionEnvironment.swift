import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// The whole environment of an action: nothing is inherited from the daemon but `PATH`.
///
/// Precedence, lowest first: `PATH` (the daemon's, else `defaultPath`), the profile's
/// `environment:`, the binding's `environment:`, then the `GESTURED_*` variables, which the
/// config cannot override. A `GESTURED_*` variable that does not apply to the gesture (e.g.
/// `GESTURED_TAPS` for a swipe, `GESTURED_REGION` outside every region, `GESTURED_PHASE` for
/// a one-shot firing) is absent, not empty.
///
/// Gesture data travels only here, never in the command string, so nothing a device reports
/// (its name, for one) can be interpreted by the shell.
public struct ActionEnvironment: Sendable, Equatable {
  /// systemd's default for services.
  public static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

  public private(set) var variables: [String: String]

  public init(variables: [String: String] = [:]) {
    self.variables = [:]
    for (name, value) in variables { set(name, value) }
  }

  /// The environment for a firing's action.
  /// - Parameters:
  ///   - deviceName: the evdev name (`GESTURED_DEVICE`).
  ///   - devnode: `/dev/input/eventN`; in replay, the recording's path (`GESTURED_DEVNODE`).
  ///   - path: the daemon's own `PATH`; nil or empty means `defaultPath`.
  public init(firing: ResolvedFiring, deviceName: String, devnode: String, path: String?) {
    variables = [:]
    set("PATH", path.flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultPath)
    for (name, value) in firing.profileEnvironment { set(name, value) }
    for (name, value) in firing.action.environment { set(name, value) }

    let event = firing.event
    set("GESTURED_GESTURE", event.gesture.rawValue)
    if let region = firing.regionName { set("GESTURED_REGION", region) }
    set("GESTURED_PROFILE", firing.profileName)
    set("GESTURED_BINDING", firing.bindingName)
    set("GESTURED_DEVICE", deviceName)
    set("GESTURED_DEVNODE", devnode)
    set("GESTURED_FINGERS", String(event.fingers))
    if let taps = firing.reportedTaps { set("GESTURED_TAPS", String(taps)) }
    if let direction = firing.reportedDirection { set("GESTURED_DIRECTION", direction.rawValue) }
    if let scale = firing.reportedScale, let text = DecimalText.fourDecimals(scale) {
      set("GESTURED_SCALE", text)
    }
    if let angle = firing.reportedAngle, let text = DecimalText.fourDecimals(angle) {
      set("GESTURED_ANGLE", text)
    }
    if let offset = firing.reportedOffset {
      if let dx = DecimalText.fourDecimals(offset.dx) { set("GESTURED_DX", dx) }
      if let dy = DecimalText.fourDecimals(offset.dy) { set("GESTURED_DY", dy) }
    }
    switch event.phase {
    case .oneShot: break
    case .step(let k):
      // One firing; the action runner raises GESTURED_STEPS when it coalesces waiting steps.
      set("GESTURED_PHASE", "step")
      set("GESTURED_STEP", String(k))
      set("GESTURED_STEPS", "1")
    case .end(let n):
      set("GESTURED_PHASE", "end")
      set("GESTURED_STEP", String(n))
      set("GESTURED_STEPS", String(n))
    }
    let position = firing.position
    if let x = DecimalText.fourDecimals(position.x) { set("GESTURED_X", x) }
    if let y = DecimalText.fourDecimals(position.y) { set("GESTURED_Y", y) }
  }

  /// The calling process's `PATH`, to pass as `path:`.
  public static func currentPath() -> String? {
    guard let value = getenv("PATH") else { return nil }
    return String(cString: value)
  }

  /// Sets a variable. Refused (returns false, nothing changes) when the name is empty or holds
  /// `=` or NUL, or the value holds NUL: such entries cannot be passed to execve intact.
  @discardableResult
  public mutating func set(_ name: String, _ value: String) -> Bool {
    guard Self.isValidName(name), !value.utf8.contains(0) else { return false }
    variables[name] = value
    return true
  }

  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && !name.utf8.contains(UInt8(ascii: "=")) && !name.utf8.contains(0)
  }

  /// `NAME=value` entries sorted by name, as execve wants them.
  public var entries: [String] {
    variables.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
  }
}
