import GestureCore

/// Which profile takes an input node, and with which calibration.
///
/// The rules, shared by the daemon and `gestured devices`:
/// - profiles are tried in order and the first that takes the node wins;
/// - a profile with `match` takes every node its criteria select (udev properties included),
///   whatever udev calls the node: that is how an Elo panel udev calls a mouse (BTN_LEFT) or
///   an eGalax it calls a tablet (pen bit) is taken;
/// - the default profile (no `match`) takes only nodes udev calls a touchscreen
///   (`ID_INPUT_TOUCHSCREEN=1`), never a mouse, tablet, keyboard or touchpad; so does a
///   `match` with only `virtual:`, which merely filters them;
/// - `virtual: false` leaves out virtual devices (under /devices/virtual: uinput's, which
///   anyone who can write /dev/uinput can make), `virtual: true` takes nothing else;
/// - gestured's own forwarding clones, virtual keyboard and pointer are never taken, whatever
///   matches them;
/// - a node that reports no touch position is never taken, whatever matches it.
public enum DeviceSelection {
  /// The outcome for one node, with the reason when no profile takes it.
  public enum Verdict: Hashable, Sendable {
    case taken(profile: Int)
    /// udev does not call it a touchscreen and no profile's `match` selects it.
    case notTouchscreen
    /// A touchscreen, but every profile has a `match` and none selects it.
    case noProfileMatches
    /// A profile would take it, but it reports no position (no ABS_X/ABS_Y with a touch
    /// button, no ABS_MT_POSITION_X/Y): a keyboard or button node of a panel, say.
    case noTouchAxes(matchingProfile: Int)
    /// gestured's own uinput clone of a forwarded panel (its `phys` says so): never taken.
    case forwardingClone
    /// gestured's own virtual keyboard or wheel pointer (its `phys` says so): never taken.
    case virtualInput

    public var profile: Int? {
      if case .taken(let profile) = self { return profile }
      return nil
    }
  }

  public static func verdict(
    for node: InputNode, device: DeviceDescription, in configuration: Configuration
  ) -> Verdict {
    if UinputClone.isClone(phys: device.phys) { return .forwardingClone }
    if VirtualInputDevice.isVirtualInput(phys: device.phys) { return .virtualInput }
    let index = configuration.profiles.firstIndex { profile in
      guard let match = profile.match else { return node.isTouchscreen }
      guard match.matches(device, udevProperties: node.properties, isVirtual: node.isVirtual) else {
        return false
      }
      return match.namesDevices || node.isTouchscreen
    }
    guard let index else { return node.isTouchscreen ? .noProfileMatches : .notTouchscreen }
    guard device.touchProtocol != nil else { return .noTouchAxes(matchingProfile: index) }
    return .taken(profile: index)
  }

  /// Which profile takes a node; nil = the node is left alone (the daemon logs that once at
  /// info for touchscreens).
  public static func profile(
    for node: InputNode, device: DeviceDescription, in configuration: Configuration
  ) -> Int? {
    verdict(for: node, device: device, in: configuration).profile
  }

  /// Why a verdict leaves the node alone, in words for logs and `gestured devices`; nil when
  /// a profile takes it.
  public static func reason(
    _ verdict: Verdict, node: InputNode, in configuration: Configuration
  ) -> String? {
    switch verdict {
    case .taken:
      return nil
    case .notTouchscreen:
      return "not a touchscreen (udev: \(node.classification)); only a profile whose match"
        + " selects it would take it"
    case .forwardingClone:
      return "gestured's own forwarding clone of a panel (its phys starts with"
        + " '\(UinputClone.markerPrefix)'): the desktop reads it; gestured reads the panel"
    case .virtualInput:
      return "gestured's own virtual keyboard or pointer for key and wheel bindings (its phys starts"
        + " with '\(VirtualInputDevice.markerPrefix)'): gestured writes it, the desktop reads it"
    case .noProfileMatches:
      let reason = "no profile matches it (every profile has a match:, and there is no default)"
      guard node.isVirtual, configuration.profiles.contains(where: { $0.match?.virtual == false }) else {
        return reason
      }
      return reason + "; it is a virtual device (under /sys/devices/virtual), which 'virtual: false' leaves out"
    case .noTouchAxes(let index):
      let name =
        configuration.profiles.indices.contains(index)
        ? configuration.profiles[index].name : "#\(index)"
      return "no touch axes: it reports no position (profile '\(name)' matches it, but there is"
        + " nothing to read)"
    }
  }

  /// The profile with the node's udev `LIBINPUT_CALIBRATION_MATRIX` applied when the profile
  /// sets no `calibration` itself. The two are never combined: the profile's wins whole.
  public static func effectiveProfile(_ profile: Profile, node: InputNode) -> Profile {
    guard profile.calibration == nil, let calibration = node.calibration else { return profile }
    var calibrated = profile
    calibrated.calibration = calibration
    return calibrated
  }

  /// Where the calibration in force comes from, for logs and `gestured devices`.
  public enum CalibrationSource: Hashable, Sendable {
    case none
    case profile
    case udev
  }

  public static func calibrationSource(of profile: Profile, node: InputNode) -> CalibrationSource {
    if profile.calibration != nil { return .profile }
    return node.calibration != nil ? .udev : .none
  }
}
