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
    let text = message().text
    // One record per line: a message with newlines would otherwise lose its priority. Only
    // the literal text of a message can hold a newline; interpolated values are escaped.
    // Nearly every message is one line: it is written without being split.
    let hasNewline =
      text.utf8.withContiguousStorageIfAvailable { bytes in
        bytes.baseAddress.map { memchr($0, 0x0A, bytes.count) != nil } ?? false
      }
      ?? text.utf8.contains(UInt8(ascii: "\n"))
    guard hasNewline else { return write(text[...], at: level) }
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) { write(line, at: level) }
  }

  private func write(_ line: Substring, at level: LogLevel) {
    var record = journalPrefixes ? Self.journalPrefix[level.rawValue] : ""
    record.reserveCapacity(record.utf8.count + line.utf8.count + 1)
    record += line
    record += "\n"
    guard let nonBlockingSink else { return sink.write(record) }
    if droppedLines > 0 {
      let report =
        (journalPrefixes ? Self.journalPrefix[LogLevel.warning.rawValue] : "")
        + "gestured: \(droppedLines) log line\(droppedLines == 1 ? "" : "s") dropped: the log could not take them at once\n"
      guard nonBlockingSink.tryWrite(report) else {
        droppedLines += 1
        return
      }
      droppedLines = 0
    }
    if !nonBlockingSink.tryWrite(record) { droppedLines += 1 }
  }

  /// `<N>` for each syslog priority N, made once.
  private static let journalPrefix = (0...7).map { "<\($0)>" }

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
  public var text: String

  public init(stringLiteral value: String) { text = value }

  public init(stringInterpolation: Interpolation) { text = String(decoding: stringInterpolation.bytes, as: UTF8.self) }

  /// Text whose parts were escaped already (a diagnostic, whose hint is on its own line).
  public init(escaped text: String) { self.text = text }

  public static func + (left: LogMessage, right: LogMessage) -> LogMessage {
    LogMessage(escaped: left.text + right.text)
  }

  /// A String appended is a value like any interpolated one: escaped.
  public static func + (left: LogMessage, right: String) -> LogMessage {
    LogMessage(escaped: left.text + right.escapingControlCharacters())
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
    public mutating func appendInterpolation<Value: BinaryInteger>(_ value: Value) { append(String(value)) }

    /// The same for the integers most lines hold (counts, pids): the generic one above,
    /// called from another module, goes through BinaryInteger's witnesses for every digit.
    public mutating func appendInterpolation(_ value: Int) { append(String(value)) }

    public mutating func appendInterpolation(_ value: Int32) { append(String(value)) }

    public mutating func appendInterpolation<Value: CustomStringConvertible>(_ value: Value) {
      append(value.description.escapingControlCharacters())
    }

    public mutating func appendInterpolation<Value>(_ value: Value) {
      append(String(describing: value).escapingControlCharacters())
    }
  }
}
