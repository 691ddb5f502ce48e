import GestureCore

/// The launcher's judgement of whether the recognizer's event loop still turns. systemd's
/// watchdog sees only the launcher; so at each of its watchdog pings the launcher also
/// sends `.alive` to the recognizer, which answers from its event loop. Every message from
/// the recognizer counts as a sign of life, and silence for longer than `silenceLimit` is a
/// hung recognizer. Without a watchdog nothing is sent, so an idle daemon never wakes. Pure:
/// time is an input.
public struct RecognizerLiveness: Hashable, Sendable {
  /// One and a half ping intervals: the answer to the previous ping must have come, and a
  /// recognizer hung right after answering is noticed at the second ping after, within
  /// systemd's own timeout (twice the ping interval).
  public static func silenceLimit(pingInterval: Microseconds) -> Microseconds { pingInterval * 3 / 2 }

  public let silenceLimit: Microseconds
  /// When the recognizer was last heard from (or started).
  public private(set) var lastHeard: Timestamp

  public init(startedAt start: Timestamp, silenceLimit: Microseconds) {
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
