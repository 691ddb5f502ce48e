import GestureCore

/// What one firing (or step) of a binding does: exactly one of `run`, `key`, `wheel`,
/// `hwheel`.
public enum FiringAction: Hashable, Sendable {
  /// A shell command, run as `/bin/sh -c command`.
  case run(String)
  /// Keys or wheel clicks written to gestured's virtual keyboard or pointer.
  case input(InputAction)
}

/// A key or wheel action: what gestured writes itself, starting no process.
public enum InputAction: Hashable, Sendable {
  /// Chords pressed one after another (`key: [ctrl+l, F5]`).
  case keys([KeyChord])
  /// Wheel clicks, positive down.
  case wheel(Int)
  /// Horizontal wheel clicks, positive right.
  case horizontalWheel(Int)

  /// Whether it needs the virtual keyboard (else the virtual pointer).
  public var usesKeyboard: Bool {
    if case .keys = self { return true }
    return false
  }
}

/// Keys held down together: pressed in order, released in reverse.
public struct KeyChord: Hashable, Sendable {
  /// Kernel key codes (`KEY_*`), in the order written.
  public var codes: [UInt16]
  /// As the config wrote it (`ctrl+l`), for the firing line and the log.
  public var written: String

  public init(codes: [UInt16], written: String) {
    self.codes = codes
    self.written = written
  }
}

/// What a binding runs: the config's half of a binding. The core's half (what to recognize)
/// is the `GestureCore.Binding` at the same index of the same profile.
public struct BindingAction: Hashable, Sendable {
  /// What every one-shot firing or step does.
  public var firing: FiringAction
  /// Step bindings only: run once when the sequence's steps end, if any step fired.
  public var end: String?
  /// Kill the action after this long (SIGTERM, then SIGKILL 2 s later).
  public var timeout: Microseconds = 30_000_000
  /// Ignore firings closer together than this.
  public var cooldown: Microseconds = 300_000
  /// Extra environment for the action (DISPLAY, WAYLAND_DISPLAY, …), over the profile's.
  public var environment: [String: String] = [:]
  /// Run the action as this user (needs the daemon to run as root); else the profile's.
  public var user: String?

  public init(_ firing: FiringAction, end: String? = nil) {
    self.firing = firing
    self.end = end
  }

  public init(run: String, end: String? = nil) { self.init(.run(run), end: end) }

  /// The shell command of a `run:` binding, nil for a key or wheel binding.
  public var run: String? {
    if case .run(let command) = firing { return command }
    return nil
  }

  /// The key or wheel action, nil for a `run:` binding.
  public var input: InputAction? {
    if case .input(let input) = firing { return input }
    return nil
  }
}

/// What one profile's bindings run, by binding index, and what applies to all of them.
public struct ProfileActions: Hashable, Sendable {
  public var environment: [String: String] = [:]
  public var user: String?
  /// Parallel to the profile's `bindings`.
  public var bindings: [BindingAction] = []
  /// `wake: { run: }` of a forwarding device: run when a touch wakes the panel.
  public var wake: BindingAction?

  public init(environment: [String: String] = [:], user: String? = nil, bindings: [BindingAction] = []) {
    self.environment = environment
    self.user = user
    self.bindings = bindings
  }

  /// The binding's action, nil for an index the profile does not have.
  public func action(ofBinding index: Int) -> BindingAction? {
    bindings.indices.contains(index) ? bindings[index] : nil
  }

  /// The command a firing runs: `run` for one-shot firings and steps, `end` for an end
  /// event; nil when there is no command (an end event of a binding without `end:`, which
  /// the core emits for every step binding, or a firing of a key or wheel binding).
  public func command(for event: GestureEvent) -> String? {
    guard let action = action(ofBinding: event.binding) else { return nil }
    if case .end = event.phase { return action.end }
    return action.run
  }

  /// Whether replay and monitor print the firing: everything but end events of bindings
  /// without `end:`.
  public func reports(_ event: GestureEvent) -> Bool {
    if case .end = event.phase { return action(ofBinding: event.binding)?.end != nil }
    return true
  }
}

extension [ProfileActions] {
  /// Whether some binding presses keys, and whether some turns the wheel: which virtual
  /// devices gestured makes.
  public var inputDevicesUsed: (keyboard: Bool, pointer: Bool) {
    var keyboard = false
    var pointer = false
    for profile in self {
      for binding in profile.bindings + (profile.wake.map { [$0] } ?? []) {
        guard let input = binding.input else { continue }
        if input.usesKeyboard { keyboard = true } else { pointer = true }
      }
    }
    return (keyboard, pointer)
  }
}
