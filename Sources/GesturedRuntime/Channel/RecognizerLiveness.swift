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
  /// The earliest the recognizer can have last been heard from: the check before its latest
  /// message (or its start). A message is dated by the check after it, so that receiving one
  /// reads no clock.
  public private(set) var lastHeard: Timestamp
  /// Whether a message came since the last check.
  public private(set) var heardSinceCheck = false
  private var lastCheck: Timestamp

  public init(startedAt start: Timestamp, silenceLimit: Microseconds) {
    lastHeard = start
    lastCheck = start
    self.silenceLimit = silenceLimit
  }

  /// A message arrived.
  public mutating func heard() { heardSinceCheck = true }

  /// `lastHeard` with a message since the last check dated by that check.
  private var heardBy: Timestamp { heardSinceCheck ? max(lastHeard, lastCheck) : lastHeard }

  /// When the recognizer counts as hung if nothing arrives before: the time to check next.
  public var deadline: Timestamp { heardBy + silenceLimit }

  /// A check at `now`: whether the recognizer has been silent for longer than the limit.
  public mutating func isHung(at now: Timestamp) -> Bool {
    lastHeard = heardBy
    heardSinceCheck = false
    lastCheck = max(lastCheck, now)
    return now > deadline
  }
}
