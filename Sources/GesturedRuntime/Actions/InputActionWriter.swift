import GestureCore
import GesturedConfig
import GesturedSystem

/// Writes `key:`, `wheel:` and `hwheel:` actions to gestured's virtual keyboard and pointer,
/// beside the command queue: a write starts no process and cannot hang, so nothing waits,
/// and nothing is merged or dropped by the queue's limits. Only the cooldown applies, to
/// one-shot firings, as for commands.
///
/// Whoever runs the actions owns it (with its devices, made through /dev/uinput); call it on
/// that owner's queue.
final class InputActionWriter {
  enum Decision: Equatable {
    case written
    /// A one-shot firing within `cooldown` of the binding's previous written one.
    case droppedCooldown
    case failed(String)
  }

  private let logger: Logger
  private var keyboard: VirtualInputDevice?
  private var pointer: VirtualInputDevice?
  /// When each binding's one-shot firing was last written, for the cooldown.
  private var lastWritten: [String: Timestamp] = [:]

  init(logger: Logger) { self.logger = logger }

  /// The nodes of the devices made, which the daemon never opens.
  var devnodes: [String] { [keyboard, pointer].compactMap { $0?.devnode } }

  /// Makes the devices the config's bindings use and removes those they no longer use
  /// (at start and at each reload). A device that cannot be made is logged; its bindings'
  /// firings then fail with that reason.
  func provide(keyboard wantsKeyboard: Bool, pointer wantsPointer: Bool) {
    keyboard = device(.keyboard, wanted: wantsKeyboard, existing: keyboard)
    pointer = device(.pointer, wanted: wantsPointer, existing: pointer)
  }

  private func device(_ kind: VirtualInputDevice.Kind, wanted: Bool, existing: VirtualInputDevice?)
    -> VirtualInputDevice?
  {
    guard wanted else {
      existing?.destroy()
      return nil
    }
    if let existing { return existing }
    do {
      let device = try VirtualInputDevice(kind)
      logger.info(
        "key and wheel bindings write to \(device.devnode ?? "(no node yet)") '\(VirtualInputDevice.name(of: kind))'")
      return device
    } catch {
      logger.error("\(error)")
      return nil
    }
  }

  /// Writes one firing's (or step's) action, made ready with its binding's table; `label`
  /// prefixes its log lines, `key` names the binding for the cooldown.
  @discardableResult
  func write(
    _ input: PreparedInput, key: String, label: String, firedAt: Timestamp, cooldown: Microseconds, oneShot: Bool
  ) -> Decision {
    // Without a cooldown (the runner's policy applied it already) nothing is remembered.
    if oneShot, cooldown > 0 {
      if let last = lastWritten[key], firedAt - last < cooldown {
        logger.info(
          "[\(label)] firing dropped: \(ActionRunner.duration(firedAt - last)) after the previous one, "
            + "within its \(ActionRunner.duration(cooldown)) cooldown")
        return .droppedCooldown
      }
      // Accepted, as a command whose start fails is: the cooldown counts from here.
      lastWritten[key] = firedAt
    }
    let device = input.action.usesKeyboard ? keyboard : pointer
    guard let device else {
      let reason = "no virtual \(input.action.usesKeyboard ? "keyboard" : "pointer") (see the error at start)"
      logger.warning("[\(label)] \(input.description) not written: \(reason)")
      return .failed(reason)
    }
    if let error = device.write(input.events) {
      logger.warning("[\(label)] \(input.description) not written: \(error)")
      return .failed("\(error)")
    }
    logger.info(LogMessage(escaped: input.writtenLine))
    // The kernel stamped the events in the write: this is their time, near enough.
    logger.debug("[\(label)] written \(MonotonicClock.now() - firedAt) µs after its firing's event")
    return .written
  }

  /// What the device gets for one firing or step.
  static func events(of action: InputAction) -> [VirtualInputDevice.Event] {
    switch action {
    case .keys(let chords): VirtualInputDevice.keyEvents(chords: chords.map(\.codes))
    case .wheel(let clicks): VirtualInputDevice.wheelEvents(clicks: clicks, horizontal: false)
    case .horizontalWheel(let clicks): VirtualInputDevice.wheelEvents(clicks: clicks, horizontal: true)
    }
  }

  /// `key ctrl+l F5`, `wheel 2`: as the log shows it.
  static func description(of action: InputAction) -> String {
    switch action {
    case .keys(let chords): "key \(chords.map(\.written).joined(separator: " "))"
    case .wheel(let clicks): "wheel \(clicks)"
    case .horizontalWheel(let clicks): "hwheel \(clicks)"
    }
  }

  /// Removes the devices.
  func close() { provide(keyboard: false, pointer: false) }
}

/// A key or wheel action made ready once, with its binding's table: the events it writes
/// and the line a written firing logs, so that a firing builds neither.
public struct PreparedInput: Hashable, Sendable {
  public let action: InputAction
  let events: [VirtualInputDevice.Event]
  /// `key ctrl+l F5`, `wheel 2`: as the log shows it.
  let description: String
  /// `[label] key ctrl+l F5`, escaped as the log escapes values.
  let writtenLine: String

  /// `label`: the binding's, which prefixes its lines in the log.
  public init(_ action: InputAction, label: String) {
    self.action = action
    events = InputActionWriter.events(of: action)
    description = InputActionWriter.description(of: action)
    let line: LogMessage = "[\(label)] \(description)"
    writtenLine = line.text
  }
}
