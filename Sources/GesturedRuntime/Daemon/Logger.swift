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
/// Only the daemon's serial queue calls it, so it needs no lock.
public final class Logger {
  public let sink: any OutputSink
  /// Prefix each line with `<N>` so journald keeps the priority (set when stderr is the
  /// journal stream).
  public let journalPrefixes: Bool
  /// Debug lines (recognizer transitions) are written only when verbose.
  public let verbose: Bool

  public init(sink: any OutputSink, journalPrefixes: Bool = false, verbose: Bool = false) {
    self.sink = sink
    self.journalPrefixes = journalPrefixes
    self.verbose = verbose
  }

  public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
    if level == .debug && !verbose { return }
    let text = message()
    // One record per line: a message with newlines would otherwise lose its priority.
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      sink.write(journalPrefixes ? "<\(level.rawValue)>\(line)\n" : "\(line)\n")
    }
  }

  public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
  public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
  public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
  public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
  public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
