import GestureCore

// What `gestured-touch` (Sources/gestured-touch) does, minus the uinput calls: its command
// line, the virtual device it asks the kernel for, and when each event is written. Kept here
// so it is unit-tested on machines without /dev/uinput.

/// The virtual input device a script's panel becomes, in the order libevdev is told about it.
public struct UinputDeviceSetup: Hashable, Sendable {
  /// The kernel keeps names in a UINPUT_MAX_NAME_SIZE (80) buffer with its terminating NUL.
  public static let maximumNameBytes = 79

  public var name: String
  public var bus: UInt16
  public var vendor: UInt16
  public var product: UInt16
  public var version: UInt16
  /// EV_* types to enable, ascending. EV_SYN is always there (every device has it).
  public var eventTypes: [UInt16]
  /// EV_KEY codes, ascending.
  public var keys: [UInt16]
  /// EV_ABS codes with their ranges, ascending by code.
  public var axes: [Axis]
  /// INPUT_PROP_* bits, ascending.
  public var properties: [UInt16]

  /// Checks what the kernel's uinput would reject or silently change, so a bad script fails
  /// with a message instead of becoming a different device.
  public init(device: DeviceDescription) throws(UinputPlanError) {
    guard !device.name.isEmpty, !device.name.contains(where: \.isNewline) else {
      throw UinputPlanError("the device name must be one non-empty line")
    }
    guard device.name.utf8.count <= Self.maximumNameBytes else {
      throw UinputPlanError(
        "the device name has \(device.name.utf8.count) bytes; uinput keeps at most "
          + "\(Self.maximumNameBytes)")
    }
    for key in device.keys where key > KeyCode.max {
      throw UinputPlanError("key code \(key) is above KEY_MAX")
    }
    for property in device.properties where property > InputProperty.max {
      throw UinputPlanError("property \(property) is above INPUT_PROP_MAX")
    }
    for (code, info) in device.axes {
      guard code <= AbsCode.max else { throw UinputPlanError("axis \(code) is above ABS_MAX") }
      // uinput_validate_absinfo(): min must not exceed max, flat must fit the range.
      guard info.minimum <= info.maximum else {
        throw UinputPlanError(
          "axis \(code): minimum \(info.minimum) is above maximum \(info.maximum)")
      }
      let range = Int64(info.maximum) - Int64(info.minimum)
      guard info.flat >= 0, Int64(info.flat) <= range, info.fuzz >= 0, info.resolution >= 0 else {
        throw UinputPlanError("axis \(code): fuzz, flat and resolution must be 0..range")
      }
    }
    if let slot = device.axes[AbsCode.mtSlot] {
      // The kernel allocates one slot per value of ABS_MT_SLOT; input-mt caps it at 64 slots
      // worth of bits in some paths, and no touchscreen has more.
      guard slot.minimum == 0, slot.maximum >= 0, slot.maximum < 64 else {
        throw UinputPlanError("ABS_MT_SLOT must range over 0..N with N below 64")
      }
    }
    name = device.name
    bus = device.bus
    vendor = device.vendor
    product = device.product
    version = device.version
    var types: [UInt16] = [EventType.syn]
    if !device.keys.isEmpty { types.append(EventType.key) }
    if !device.axes.isEmpty { types.append(EventType.abs) }
    eventTypes = types
    keys = device.keys.sorted()
    axes = device.axes.sorted { $0.key < $1.key }.map { Axis(code: $0.key, info: $0.value) }
    properties = device.properties.sorted()
  }

  /// One EV_ABS axis to enable.
  public struct Axis: Hashable, Sendable {
    public var code: UInt16
    public var info: AxisInfo
  }
}

/// Why a script cannot become a uinput device, or a command line cannot be used.
public struct UinputPlanError: Error, Hashable, Sendable, CustomStringConvertible {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// When each event is written: offsets from the first event, so playback sleeps until
/// `start + offset` (absolute deadlines: a late wake-up does not delay every later event).
public struct PlaybackSchedule: Sendable {
  public struct Step: Hashable, Sendable {
    /// Microseconds after the first event.
    public var offset: Microseconds
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
  }

  public var steps: [Step]

  /// Events keep their order; offsets never go backwards even if the input does (a later
  /// event stamped earlier is written right after its predecessor).
  public init(events: [RawEvent]) {
    var steps: [Step] = []
    steps.reserveCapacity(events.count)
    guard let first = events.first?.time else {
      self.steps = []
      return
    }
    var latest: Microseconds = 0
    for event in events {
      latest = max(latest, event.time - first)
      steps.append(Step(offset: latest, type: event.type, code: event.code, value: event.value))
    }
    self.steps = steps
  }

  /// From the first event to the last.
  public var duration: Microseconds { steps.last?.offset ?? 0 }
}

/// What `gestured-touch play` does.
public struct PlayOptions: Hashable, Sendable {
  public var script: String
  /// How long to wait after creating the device before the first event.
  public var createWait: Microseconds = TouchPlayerInvocation.defaultCreateWait
  /// How long to keep the device after the last event.
  public var holdOpen: Microseconds = 0
  /// Write every event at once instead of with the script's timing.
  public var instant = false
  /// Start on SIGUSR1 instead of after `createWait`, so a test can first attach its
  /// readers to the new node.
  public var waitForSignal = false

  public init(script: String) { self.script = script }
}

/// The `gestured-touch` command line.
public enum TouchPlayerInvocation: Hashable, Sendable {
  /// Create the script's panel, wait, play its events in real time, keep it open, destroy it.
  case play(PlayOptions)
  /// Write the script's evemu recording to `output` ("-" for stdout).
  case record(script: String, output: String)
  /// Create the script's panel and keep it until SIGTERM or SIGINT.
  case create(script: String)
  case help
  /// Exit 64 after printing the message and the usage.
  case usageError(String)

  public static let defaultCreateWait: Microseconds = 1_000_000

  public static let usage = """
    usage: gestured-touch play SCRIPT.touch [--create-wait MS | --wait-for-signal]
                              [--hold-open MS] [--instant]
           gestured-touch record SCRIPT.touch -o FILE
           gestured-touch create SCRIPT.touch
           gestured-touch --help

    Creates virtual touchscreens through uinput (needs /dev/uinput, usually root) as a touch
    script's `panel` line describes them (docs/touchscript.md), and plays the script's touches.

      play     create the panel, wait --create-wait (default 1000 ms) so udev and gestured see
               it (--wait-for-signal: until SIGUSR1 arrives instead), write the script's
               events with the script's timing (--instant: all at once, e.g. to overflow
               the evdev buffer), keep the panel --hold-open (default 0 ms), destroy it
      record   write the script as an evemu recording, for evemu-device/evemu-play and
               gestured replay (-o - writes to stdout)
      create   create the panel and keep it until SIGTERM or SIGINT (hot-plug tests)

    play and create print the created node (/dev/input/eventN) on stdout, one line, at once.
    Times are milliseconds (`250`) or times with a unit (`250ms`, `1.5s`).

    """

  public static func parse(_ arguments: [String]) -> TouchPlayerInvocation {
    guard let command = arguments.first else { return .usageError("missing command") }
    if arguments.contains(where: { $0 == "-h" || $0 == "--help" }) || command == "help" {
      return .help
    }
    var rest = arguments.dropFirst()
    var script: String?
    var createWait: Microseconds?
    var holdOpen: Microseconds?
    var output: String?
    var instant = false
    var waitForSignal = false

    func time(_ option: String) -> Result<Microseconds, UinputPlanError> {
      guard let word = rest.popFirst() else { return .failure(.init("\(option) needs a value")) }
      guard let value = parseMilliseconds(word) else {
        return .failure(
          .init("\(option): expected milliseconds such as 500 or 1.5s, found '\(word)'"))
      }
      return .success(value)
    }

    while let argument = rest.popFirst() {
      switch argument {
      case "--create-wait" where command == "play":
        guard createWait == nil else { return .usageError("--create-wait given twice") }
        switch time(argument) {
        case .success(let value): createWait = value
        case .failure(let error): return .usageError(error.message)
        }
      case "--hold-open" where command == "play":
        guard holdOpen == nil else { return .usageError("--hold-open given twice") }
        switch time(argument) {
        case .success(let value): holdOpen = value
        case .failure(let error): return .usageError(error.message)
        }
      case "--instant" where command == "play":
        instant = true
      case "--wait-for-signal" where command == "play":
        waitForSignal = true
      case "-o", "--output":
        guard command == "record" else { return .usageError("\(argument) is for record only") }
        guard output == nil else { return .usageError("\(argument) given twice") }
        guard let value = rest.popFirst(), !value.isEmpty else {
          return .usageError("\(argument) needs a file name")
        }
        output = value
      case let option where option.hasPrefix("-") && option != "-":
        return .usageError("\(command): unknown option '\(option)'")
      default:
        guard script == nil else { return .usageError("\(command): more than one script given") }
        script = argument
      }
    }

    switch command {
    case "play", "record", "create":
      break
    default:
      return .usageError("unknown command '\(command)'; the commands are play, record and create")
    }
    guard let script else { return .usageError("\(command): SCRIPT.touch is required") }
    switch command {
    case "play":
      if waitForSignal, createWait != nil {
        return .usageError("play: --create-wait and --wait-for-signal exclude each other")
      }
      var options = PlayOptions(script: script)
      options.createWait = createWait ?? defaultCreateWait
      options.holdOpen = holdOpen ?? 0
      options.instant = instant
      options.waitForSignal = waitForSignal
      return .play(options)
    case "record":
      guard let output else { return .usageError("record: -o FILE is required") }
      return .record(script: script, output: output)
    default:
      return .create(script: script)
    }
  }

  /// `500` (milliseconds) or a time with a unit: `500ms`, `1.5s`, `250us`.
  static func parseMilliseconds(_ word: String) -> Microseconds? {
    if let milliseconds = Int64(word) {
      // A day is more than any test waits; the bound keeps the product in range.
      guard milliseconds >= 0, milliseconds <= 86_400_000 else { return nil }
      return milliseconds * 1_000
    }
    return ScriptValue.duration(word)
  }
}
