import GestureCore

/// What a set of bindings recognizes (a profile) with one handler per binding, in the
/// profile's order: the form both `TouchScreen` and the daemon hand to a device.
///
/// Package API: the daemon turns its config into one of these, with handlers that start
/// the bound commands; `TouchScreen` builds one from its `on…` calls.
package struct GestureBindings<Handler> {
  /// What to recognize: regions, bindings, thresholds, the simultaneous group.
  package var profile: Profile
  /// Parallel to `profile.bindings`.
  package var handlers: [Handler]

  /// `handlers[i]` is binding i's.
  package init(profile: Profile, handlers: [Handler]) {
    precondition(profile.bindings.count == handlers.count, "one handler per binding")
    self.profile = profile
    self.handlers = handlers
  }

  /// One handler per binding of `profile`, made from the binding's index.
  package init(profile: Profile, handler: (Int) -> Handler) {
    self.init(profile: profile, handlers: profile.bindings.indices.map(handler))
  }
}

/// One device's recognition: raw events in, each firing paired with its binding's handler.
///
/// The one recognition path: `TouchScreen` (live or replayed) and the daemon both feed a
/// `DeviceEngine` through this type and get their handlers back from it.
package struct GestureRecognizer<Handler> {
  /// The device's pipeline, fed by the caller (raw events, deadlines, cancels).
  package var engine: DeviceEngine
  /// What the engine recognizes and whose handlers its firings get.
  /// A variable: a reload that keeps the profile remakes only the handlers.
  package var bindings: GestureBindings<Handler>

  /// nil when the device cannot report a position.
  package init?(device: DeviceDescription, bindings: GestureBindings<Handler>) {
    guard let engine = DeviceEngine(device: device, profile: bindings.profile) else { return nil }
    self.engine = engine
    self.bindings = bindings
  }

  /// The handler of the binding that fired; nil for an index the profile does not have
  /// (an engine bug: callers report it rather than trap).
  package func handler(for event: GestureEvent) -> Handler? {
    bindings.handlers.indices.contains(event.binding) ? bindings.handlers[event.binding] : nil
  }
}
