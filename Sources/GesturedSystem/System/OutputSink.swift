#if canImport(Glibc)
  import Glibc
#endif

/// Where a command writes text. Commands take their stdout and stderr as sinks so that tests
/// run them in-process and read what they printed.
public protocol OutputSink: AnyObject {
  func write(_ text: String)
}

/// Writes straight to a file descriptor, unbuffered: a line is out before anything else
/// happens, so replay's JSON lines and the output of actions it runs stay in order.
public final class FileDescriptorSink: OutputSink, Sendable {
  public let fileDescriptor: Int32

  public init(fileDescriptor: Int32) { self.fileDescriptor = fileDescriptor }

  public static let standardOutput = FileDescriptorSink(fileDescriptor: 1)
  public static let standardError = FileDescriptorSink(fileDescriptor: 2)

  public func write(_ text: String) {
    var text = text
    text.withUTF8 { bytes in
      guard var next = bytes.baseAddress else { return }
      var remaining = bytes.count
      while remaining > 0 {
        // Nowhere left to report a failing stdout or stderr: drop the rest.
        guard
          case .success(let written) = retryOnInterrupt({ valueOrErrno(Glibc.write(fileDescriptor, next, remaining)) })
        else { return }
        next += written
        remaining -= written
      }
    }
  }
}

/// Keeps everything written, for tests and for callers that post-process output.
public final class CapturedOutput: OutputSink {
  public private(set) var text = ""

  public init() {}

  public func write(_ text: String) { self.text += text }

  /// What was written, split into lines (without the newlines; no empty last line).
  public var lines: [String] {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    return lines
  }
}
