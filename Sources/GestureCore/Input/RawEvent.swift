/// A point on one monotonic clock, in microseconds.
///
/// Live events carry the kernel's CLOCK_MONOTONIC stamp; recordings carry whatever clock
/// they were written with. The core never reads a clock: every time it sees arrives here.
public struct Timestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var microseconds: Int64

  public init(microseconds: Int64) { self.microseconds = microseconds }
  public init(seconds: Int64, microseconds: Int64) {
    self.microseconds = seconds &* 1_000_000 &+ microseconds
  }

  public static func < (a: Timestamp, b: Timestamp) -> Bool { a.microseconds < b.microseconds }
  public static func + (a: Timestamp, span: Microseconds) -> Timestamp {
    Timestamp(microseconds: a.microseconds &+ span)
  }
  public static func - (a: Timestamp, b: Timestamp) -> Microseconds {
    a.microseconds &- b.microseconds
  }

  /// Seconds with exactly six decimals, computed on integers so output is exact.
  public var description: String {
    let sign = microseconds < 0 ? "-" : ""
    let magnitude = microseconds.magnitude
    let fraction = String(magnitude % 1_000_000)
    return sign + String(magnitude / 1_000_000) + "."
      + String(repeating: "0", count: 6 - fraction.count) + fraction
  }
}

/// A span of time in microseconds (thresholds, gaps, timeouts).
public typealias Microseconds = Int64

/// One evdev event as the kernel (or a recording) delivers it: `struct input_event` minus
/// the split timeval.
public struct RawEvent: Hashable, Sendable {
  public var time: Timestamp
  public var type: UInt16
  public var code: UInt16
  public var value: Int32

  public init(time: Timestamp, type: UInt16, code: UInt16, value: Int32) {
    self.time = time
    self.type = type
    self.code = code
    self.value = value
  }
}
