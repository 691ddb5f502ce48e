import GestureCore

/// The launcher's judgement of whether the recognizer's event loop still turns: the
/// recognizer sends `.alive` every `interval` from that loop, every message it sends counts
/// as a sign of life, and silence for longer than `silenceLimit` is a hung recognizer.
/// systemd's watchdog sees only the launcher, so this is what notices a recognizer stuck in
/// a loop. Pure: time is an input.
public struct RecognizerLiveness: Hashable, Sendable {
  /// How often the recognizer says it is alive.
  public static let interval: Microseconds = 2_000_000
  /// Several intervals, so that a late wake-up or a brief stop is not taken for a hang, and
  /// well under the unit's WatchdogSec so that a hang is noticed as soon as systemd would
  /// notice the launcher's.
  public static let defaultSilenceLimit: Microseconds = 5 * interval

  public let silenceLimit: Microseconds
  /// When the recognizer was last heard from (or started).
  public private(set) var lastHeard: Timestamp

  public init(startedAt start: Timestamp, silenceLimit: Microseconds = Self.defaultSilenceLimit) {
    lastHeard = start
    self.silenceLimit = silenceLimit
  }

  /// A message arrived at `time`.
  public mutating func heard(at time: Timestamp) {
    lastHeard = max(lastHeard, time)
  }

  /// When the recognizer counts as hung if nothing arrives before: the time to check next.
  public var deadline: Timestamp { lastHeard + silenceLimit }

  /// Whether the recognizer has been silent for longer than the limit at `now`.
  public func isHung(at now: Timestamp) -> Bool { now > deadline }
}
