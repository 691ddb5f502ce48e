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

/// The daemon's log stream, written without ever waiting: a line the stream cannot take now
/// (its reader, journald or a terminal, is behind) is dropped, and the Logger counts it and
/// says how many once a line goes through again. The daemon's one thread serves every
/// device and action: it must not stop because its log is full.
///
/// A socket (systemd's journal stream) is written with MSG_DONTWAIT; a pipe or terminal
/// through a non-blocking open file of its own (/proc/self/fd/N opened again), so that the
/// descriptor gestured was given, shared with whoever started it, keeps its flags; a regular
/// file, which never makes a writer wait for a reader, as it is.
public final class NonBlockingLogSink: OutputSink {
  enum Method {
    case send
    case write
  }

  public let fileDescriptor: Int32
  let method: Method
  /// A line was cut by a stream that took only part of it: the next one starts a new line.
  private var endsInsideALine = false

  /// A sink for `descriptor`, or nil when it cannot be written without blocking (then the
  /// caller keeps its blocking sink).
  public init?(fileDescriptor descriptor: Int32) {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else { return nil }
    switch status.st_mode & S_IFMT {
    case S_IFSOCK:
      fileDescriptor = descriptor
      method = .send
    case S_IFREG:
      fileDescriptor = descriptor
      method = .write
    default:
      let reopened = open("/proc/self/fd/\(descriptor)", O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
      guard reopened >= 0 else { return nil }
      fileDescriptor = reopened
      method = .write
    }
  }

  /// `sink` made non-blocking when it writes to a descriptor, else `sink` itself.
  public static func replacing(_ sink: any OutputSink) -> any OutputSink {
    guard let descriptorSink = sink as? FileDescriptorSink else { return sink }
    return NonBlockingLogSink(fileDescriptor: descriptorSink.fileDescriptor) ?? sink
  }

  public func write(_ text: String) { _ = tryWrite(text) }

  /// Writes `text` whole and returns true, or returns false when the stream could not take
  /// it (or took only part: that part ends with a newline the next write supplies).
  public func tryWrite(_ text: String) -> Bool {
    var text = text
    return text.withUTF8 { tryWrite(bytes: UnsafeRawBufferPointer($0)) }
  }

  /// `tryWrite` for text that is UTF-8 already (the Logger's records).
  public func tryWrite(bytes: UnsafeRawBufferPointer) -> Bool {
    if endsInsideALine {
      let newline: UInt8 = 0x0A
      guard withUnsafeBytes(of: newline, { writeAll($0) }) == .whole else { return false }
      endsInsideALine = false
    }
    switch writeAll(bytes) {
    case .whole: return true
    case .none: return false
    case .part:
      endsInsideALine = true
      return false
    }
  }

  private enum Written { case whole, part, none }

  private func writeAll(_ bytes: UnsafeRawBufferPointer) -> Written {
    guard var next = bytes.baseAddress else { return .whole }
    var remaining = bytes.count
    while remaining > 0 {
      let result = retryOnInterrupt { () -> Result<Int, Errno> in
        switch method {
        case .send:
          valueOrErrno(Glibc.send(fileDescriptor, next, remaining, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)))
        case .write:
          valueOrErrno(Glibc.write(fileDescriptor, next, remaining))
        }
      }
      // EAGAIN, or a stream gone for good: nowhere to wait for, nothing to report it to.
      guard case .success(let written) = result, written > 0 else {
        return remaining == bytes.count ? .none : .part
      }
      next += written
      remaining -= written
    }
    return .whole
  }
}
