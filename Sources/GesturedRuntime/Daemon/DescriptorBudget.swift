import GesturedSystem

/// What the daemon's file descriptors are spent on, so that `max-devices` devices always fit
/// under its open-file limit: a config asking for more than fits is refused when it is
/// loaded, rather than devices or actions failing one by one later (docs/systemd.md says the
/// arithmetic).
enum DescriptorBudget {
  /// The daemon's own: stdin, stdout, stderr, the epoll set, the signalfd, the udev monitor,
  /// the deadline and watchdog timers, the notify socket, the log's non-blocking stream, and
  /// room for a config being read and udev's enumeration while all of those are open.
  static let daemon = 16
  /// An open device: its evdev descriptor, and its doorbell (a second open) or its
  /// forwarding clone (/dev/uinput), never both.
  static let perDevice = 2
  /// The action runner at its bounds: both ends of two pipes for each binding whose output
  /// is kept, a pidfd (or polling timer) for each action running, the shared timeout timer
  /// and the output rate limit's timer; and the virtual keyboard and pointer of key and
  /// wheel bindings (a /dev/uinput descriptor each).
  static let actions =
    ActionRunner.maximumBindingOutputs * 2 * 2 + ActionRunner.defaultMaximumRunning + 2 + 2

  /// Descriptors the daemon may need with `maximumDevices` devices open.
  static func needed(maximumDevices: Int) -> Int { daemon + actions + perDevice * maximumDevices }

  /// The most devices that fit under `limit` (0 or less: none).
  static func devicesFitting(under limit: UInt64) -> Int {
    let spare = Int(clamping: limit) - daemon - actions
    return spare / perDevice
  }

  /// Why `maximumDevices` cannot be met under `limit` (the soft open-file limit), nil when it
  /// can.
  static func problem(maximumDevices: Int, limit: UInt64) -> String? {
    let needed = needed(maximumDevices: maximumDevices)
    guard UInt64(needed) > limit else { return nil }
    let fitting = devicesFitting(under: limit)
    let remedy =
      fitting >= 1
      ? "lower max-devices to \(fitting) or raise LimitNOFILE=" : "raise LimitNOFILE= (at least \(needed))"
    return "max-devices: \(maximumDevices) needs \(needed) file descriptors (\(perDevice) per device, "
      + "\(daemon + actions) for gestured itself and its actions), but the open-file limit is \(limit): "
      + remedy
  }
}
