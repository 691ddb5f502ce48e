#if canImport(Glibc)
  import Glibc
#endif

/// Syslog priorities, as journald reads them from a `<N>` prefix.
public enum LogLevel: Int, Comparable, Sendable {
  case error = 3
  case warning = 4
  case notice = 5
  case info = 6
  case debug = 7

  public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// The daemon's log: one line per message to a sink (stderr in the daemon, memory in tests).
///
/// With a `NonBlockingLogSink` (the daemon's), a line the stream cannot take at once is
/// dropped and counted, and the next line that goes through is preceded by a warning
/// "N log lines dropped".
///
/// Only the daemon's serial queue calls it, so it needs no lock.
public final class Logger {
  public let sink: any OutputSink
  /// Prefix each line with `<N>` so journald keeps the priority (set when stderr is the
  /// journal stream).
  public let journalPrefixes: Bool
  /// Debug lines (recognizer transitions) are written only when verbose.
  public let verbose: Bool

  /// `sink` when it may refuse a line rather than wait (the daemon's log stream).
  private let nonBlockingSink: NonBlockingLogSink?
  /// Lines the non-blocking sink could not take since the last one it did.
  public private(set) var droppedLines = 0

  public init(sink: any OutputSink, journalPrefixes: Bool = false, verbose: Bool = false) {
    self.sink = sink
    self.journalPrefixes = journalPrefixes
    self.verbose = verbose
    nonBlockingSink = sink as? NonBlockingLogSink
  }

  public func log(_ level: LogLevel, _ message: @autoclosure () -> LogMessage) {
    if level == .debug && !verbose { return }
    let message = message()
    // One record per line: a message with newlines would otherwise lose its priority. Only
    // the literal text of a message can hold a newline; interpolated values are escaped.
    message.bytes.withUnsafeBufferPointer { text in
      guard let start = text.baseAddress, memchr(start, 0x0A, text.count) != nil else { return write(text, at: level) }
      for line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
        write(UnsafeBufferPointer(rebasing: line), at: level)
      }
    }
  }

  /// Each record is put together here, in bytes, and written with one system call.
  private var record: [UInt8] = []

  private func write(_ line: UnsafeBufferPointer<UInt8>, at level: LogLevel) {
    record.removeAll(keepingCapacity: true)
    if journalPrefixes { record.append(contentsOf: Self.journalPrefix[level.rawValue]) }
    record.append(contentsOf: line)
    record.append(0x0A)
    guard let nonBlockingSink else { return sink.write(String(decoding: record, as: UTF8.self)) }
    if droppedLines > 0 {
      let report =
        (journalPrefixes ? String(decoding: Self.journalPrefix[LogLevel.warning.rawValue], as: UTF8.self) : "")
        + "gestured: \(droppedLines) log line\(droppedLines == 1 ? "" : "s") dropped: the log could not take them at once\n"
      guard nonBlockingSink.tryWrite(report) else {
        droppedLines += 1
        return
      }
      droppedLines = 0
    }
    if !record.withUnsafeBytes({ nonBlockingSink.tryWrite(bytes: $0) }) { droppedLines += 1 }
  }

  /// `<N>` for each syslog priority N, made once.
  private static let journalPrefix = (0...7).map { Array("<\($0)>".utf8) }

  public func error(_ message: @autoclosure () -> LogMessage) { log(.error, message()) }
  public func warning(_ message: @autoclosure () -> LogMessage) { log(.warning, message()) }
  public func notice(_ message: @autoclosure () -> LogMessage) { log(.notice, message()) }
  public func info(_ message: @autoclosure () -> LogMessage) { log(.info, message()) }
  public func debug(_ message: @autoclosure () -> LogMessage) { log(.debug, message()) }
}

/// A log message: the literal text as written in the source, and every interpolated value
/// with its control characters escaped. Device names, udev properties, paths, command output
/// and config strings all reach the log through interpolation, so none of them can start a
/// new log line (forging a record with its own `<N>` priority) or carry terminal escapes.
public struct LogMessage: ExpressibleByStringInterpolation, Sendable {
  /// The message's UTF-8, as the Logger writes it: a message is put together and written
  /// as bytes, never made into a String.
  public private(set) var bytes: [UInt8]

  public var text: String { String(decoding: bytes, as: UTF8.self) }

  public init(stringLiteral value: String) { bytes = Array(value.utf8) }

  public init(stringInterpolation: Interpolation) { bytes = stringInterpolation.bytes }

  /// Text whose parts were escaped already (a diagnostic, whose hint is on its own line).
  public init(escaped text: String) { bytes = Array(text.utf8) }

  public static func + (left: LogMessage, right: LogMessage) -> LogMessage {
    var sum = left
    sum.bytes += right.bytes
    return sum
  }

  /// A String appended is a value like any interpolated one: escaped.
  public static func + (left: LogMessage, right: String) -> LogMessage {
    var sum = left
    sum.bytes += right.escapingControlCharacters().utf8
    return sum
  }

  public struct Interpolation: StringInterpolationProtocol, Sendable {
    /// The message's UTF-8, made into its String once, at the end: a String added to piece by
    /// piece checks and updates its storage's state at every piece.
    var bytes: [UInt8] = []

    public init(literalCapacity: Int, interpolationCount: Int) {
      bytes.reserveCapacity(literalCapacity + 16 * interpolationCount)
    }

    mutating func append(_ text: String) {
      var text = text
      text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    public mutating func appendLiteral(_ literal: String) { append(literal) }

    // The overloads say what a value's text is without a dynamic cast: `String(describing:)`
    // looks up the value's conformances at run time. Each gives the same text it would.
    public mutating func appendInterpolation(_ value: String) { append(value.escapingControlCharacters()) }

    public mutating func appendInterpolation(_ value: Substring) { append(value.escapingControlCharacters()) }

    /// Text escaped already (as `escapingControlCharacters()` makes it, once for many
    /// lines): appended as it is.
    public mutating func appendInterpolation(escaped value: String) { append(value) }

    /// Digits and a sign: nothing to escape.
    public mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) {
      if let value = Int64(exactly: value) { return appendInterpolation(value) }
      append(String(value))
    }

    /// The integers most lines hold (counts, pids, times), written as digits straight into
    /// the message, with no String made for them.
    public mutating func appendInterpolation(_ value: Int) { appendDecimal(value.magnitude, negative: value < 0) }

    public mutating func appendInterpolation(_ value: Int32) {
      appendDecimal(UInt(value.magnitude), negative: value < 0)
    }

    public mutating func appendInterpolation(_ value: Int64) {
      appendDecimal(UInt(value.magnitude), negative: value < 0)
    }

    public mutating func appendInterpolation(_ value: UInt64) { appendDecimal(UInt(value), negative: false) }

    /// A duration as the log shows it: whole milliseconds under a second ("39 ms"), else
    /// seconds with the milliseconds that are not zero ("2 s", "1.5 s", "1.005 s").
    public mutating func appendInterpolation(duration microseconds: Int64) {
      if microseconds < 0 { bytes.append(UInt8(ascii: "-")) }
      let magnitude = UInt(microseconds.magnitude)
      guard magnitude >= 1_000_000 else {
        appendDecimal(magnitude / 1000, negative: false)
        return append(" ms")
      }
      appendDecimal(magnitude / 1_000_000, negative: false)
      var milliseconds = magnitude % 1_000_000 / 1000
      if milliseconds > 0 {
        // The three digits of the fraction from the first, until only zeros are left.
        bytes.append(UInt8(ascii: "."))
        var place: UInt = 100
        repeat {
          bytes.append(UInt8(truncatingIfNeeded: milliseconds / place) &+ UInt8(ascii: "0"))
          milliseconds %= place
          place /= 10
        } while milliseconds > 0
      }
      append(" s")
    }

    /// The digits are made last first, on the stack, and appended at once.
    private mutating func appendDecimal(_ magnitude: UInt, negative: Bool) {
      // UInt.max has 20 digits, and a sign makes 21.
      withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 21) { digits in
        var start = digits.count
        var rest = magnitude
        repeat {
          start -= 1
          digits[start] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
          rest /= 10
        } while rest > 0
        if negative {
          start -= 1
          digits[start] = UInt8(ascii: "-")
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
      }
    }

    public mutating func appendInterpolation<Value: CustomStringConvertible>(_ value: Value) {
      append(value.description.escapingControlCharacters())
    }

    public mutating func appendInterpolation<Value>(_ value: Value) {
      append(String(describing: value).escapingControlCharacters())
    }
  }
}
