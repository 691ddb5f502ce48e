/// Runs a recorded event stream through one device's pipeline on a virtual clock.
///
/// This is the whole of replay's logic, pure, so that `gestured replay`, tests and benchmarks
/// share it; the CLI only reads files and prints.
public enum Replay {
  public struct Result: Sendable {
    /// Index of the profile that took the device, nil when none did.
    public var profile: Int?
    /// Every binding that fired, in order.
    public var firings: [GestureEvent]
    /// Things the operator should know (profiles that could not be tried, devices skipped).
    public var notes: [String]
    /// With `tracing`: the engine's transition trace, the lines the daemon logs with --verbose.
    public var trace: [String] = []
  }

  /// Every firing the engine emits, end events of every step binding included (whether
  /// anything runs or prints for them is the config's business).
  public static func run(
    device: DeviceDescription, events: [RawEvent], configuration: Configuration, tracing: Bool = false
  ) -> Result {
    var notes: [String] = []
    for profile in configuration.profiles {
      if let match = profile.match, !match.udev.isEmpty {
        notes.append(
          "profile '\(profile.name)' matches on udev properties, which replay cannot see; it cannot match here")
      }
    }
    guard let profileIndex = configuration.profile(for: device, udevProperties: nil) else {
      notes.append("no profile takes device '\(device.name)'; nothing can fire")
      return Result(profile: nil, firings: [], notes: notes)
    }
    let profile = configuration.profiles[profileIndex]
    guard var engine = DeviceEngine(device: device, profile: profile) else {
      notes.append(
        "device '\(device.name)' reports no touch position (no ABS_MT_POSITION_X/Y or ABS_X/Y with BTN_TOUCH/BTN_LEFT)")
      return Result(profile: profileIndex, firings: [], notes: notes)
    }
    engine.tracing = tracing
    var firings: [GestureEvent] = []
    var trace: [String] = []
    for event in events {
      engine.handle(event, into: &firings)
      if tracing { trace += engine.takeTrace() }
    }
    engine.finish(at: events.last?.time ?? Timestamp(microseconds: 0), into: &firings)
    if tracing { trace += engine.takeTrace() }
    return Result(profile: profileIndex, firings: firings, notes: notes, trace: trace)
  }
}
