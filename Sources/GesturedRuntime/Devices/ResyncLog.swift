import GestureCore
import GesturedSystem

/// When to log that the kernel dropped a device's events (SYN_DROPPED: its buffer for the
/// device overflowed because gestured fell behind, and libevdev resynchronized the state).
/// A device that keeps overflowing (a flood, a starved daemon) must not flood the log too:
/// the first resync of a burst is logged at once, the ones within `interval` of a logged
/// line are counted and go into the next line, or the line written when the device closes.
/// Times are the kernel's stamps of the SYN_DROPPEDs: no clock is read.
struct ResyncLog {
  static let interval: Microseconds = 10_000_000
  /// Resyncs seen, as EvdevDevice counts them, and how many of those are logged.
  private var seen = 0
  private var logged = 0
  private var lastLine: Timestamp?

  /// The device's resync count is now `total`, the last at `time`: the count to log now, or
  /// nil (nothing new, or within `interval` of the last line).
  mutating func update(total: Int, lastAt time: Timestamp) -> Int? {
    guard total > seen else { return nil }
    seen = total
    if let lastLine, time - lastLine < Self.interval { return nil }
    lastLine = time
    return takeUnlogged()
  }

  /// What is counted and not logged yet (when the device closes), or nil.
  mutating func takeUnlogged() -> Int? {
    guard seen > logged else { return nil }
    defer { logged = seen }
    return seen - logged
  }

  /// `count` resyncs; `closing`: the ones held back when the device closed.
  static func message(devnode: String, count: Int, closing: Bool = false) -> LogMessage {
    let times = count == 1 ? "once" : "\(count) times"
    let when = closing ? " (before it closed, since the last such line)" : ""
    return
      "\(devnode): the kernel dropped input events \(times)\(when): its buffer overflowed, gestured fell behind; the touch state was read again from the kernel (drops within 10 s of this line are counted in the next)"
  }
}
