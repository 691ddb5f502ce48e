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
    /// With `reportsStream`: the continuous gestures' stream events, in order.
    public var stream: [GestureStreamEvent] = []
  }

  /// Every firing the engine emits, end events of every step binding included (whether
  /// anything runs or prints for them is the config's business).
  public static func run(
    device: DeviceDescription, events: [RawEvent], configuration: Configuration, tracing: Bool = false,
    reportsStream: Bool = false
  ) -> Result {
    var session = Session(device: device, configuration: configuration, tracing: tracing, reportsStream: reportsStream)
    var firings: [GestureEvent] = []
    var trace: [String] = []
    var stream: [GestureStreamEvent] = []
    session.handle(events, firings: &firings, trace: &trace)
    session.finish(firings: &firings, trace: &trace)
    session.takeStreamEvents(into: &stream)
    return Result(profile: session.profile, firings: firings, notes: session.notes, trace: trace, stream: stream)
  }

  /// The profile that takes the device and its engine (nil when none does, or the device
  /// reports no position), with the notes that explain what cannot fire: shared by `Session`
  /// and `timeline`, so both see the same profile and say the same things.
  static func engine(for device: DeviceDescription, configuration: Configuration) -> (
    profile: Int?, engine: DeviceEngine?, notes: [String]
  ) {
    var notes: [String] = []
    for profile in configuration.profiles {
      if let match = profile.match, !match.udev.isEmpty {
        notes.append(
          "profile '\(profile.name)' matches on udev properties, which replay cannot see; it cannot match here")
      }
      if let virtual = profile.match?.virtual {
        notes.append(
          "profile '\(profile.name)' sets 'virtual: \(virtual)', which replay cannot check; it is ignored here")
      }
    }
    guard let profileIndex = configuration.profile(for: device, udevProperties: nil) else {
      notes.append("no profile takes device '\(device.name)'; nothing can fire")
      return (nil, nil, notes)
    }
    let engine = DeviceEngine(device: device, profile: configuration.profiles[profileIndex])
    if engine == nil {
      notes.append(
        "device '\(device.name)' reports no touch position (no ABS_MT_POSITION_X/Y or ABS_X/Y with BTN_TOUCH/BTN_LEFT)"
      )
    }
    return (profileIndex, engine, notes)
  }

  /// The same run over a recording that arrives in batches (`gestured replay` streams
  /// files of any size): firings and trace lines are appended as each batch is handled.
  public struct Session {
    /// Index of the profile that took the device, nil when none did.
    public let profile: Int?
    /// Known before the first event: which profiles could not be tried, why nothing fires.
    public let notes: [String]
    private var engine: DeviceEngine?
    private var lastTime = Timestamp(microseconds: 0)

    public init(
      device: DeviceDescription, configuration: Configuration, tracing: Bool = false, reportsStream: Bool = false
    ) {
      (profile, engine, notes) = Replay.engine(for: device, configuration: configuration)
      engine?.tracing = tracing
      engine?.reportsStream = reportsStream
    }

    /// With `reportsStream`: the stream events since the last call, after what `stream` holds.
    public mutating func takeStreamEvents(into stream: inout [GestureStreamEvent]) {
      guard var running = engine, running.reportsStream else { return }
      engine = nil
      stream += running.streamEvents
      running.clearStreamEvents()
      engine = running
    }

    public mutating func handle(_ events: [RawEvent], firings: inout [GestureEvent], trace: inout [String]) {
      guard var running = engine, let last = events.last else { return }
      // Moved out while it runs, so that a copy-on-write of its storage cannot happen.
      engine = nil
      events.withUnsafeBufferPointer { running.handle(events: $0, into: &firings) }
      if running.tracing { trace += running.takeTrace() }
      lastTime = last.time
      engine = running
    }

    /// The end of the recording (see `DeviceEngine.finish`).
    public mutating func finish(firings: inout [GestureEvent], trace: inout [String]) {
      guard var running = engine else { return }
      running.finish(at: lastTime, into: &firings)
      if running.tracing { trace += running.takeTrace() }
      engine = running
    }
  }
}
