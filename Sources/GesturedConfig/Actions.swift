import GestureCore

/// What a binding runs: the config's half of a binding. The core's half (what to recognize)
/// is the `GestureCore.Binding` at the same index of the same profile.
public struct BindingAction: Hashable, Sendable {
  /// The shell command, run as `/bin/sh -c run`, at every one-shot firing or step.
  public var run: String
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

  public init(run: String, end: String? = nil) {
    self.run = run
    self.end = end
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
  /// event; nil when there is nothing to run or report (an end event of a binding
  /// without `end:`, which the core emits for every step binding).
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
