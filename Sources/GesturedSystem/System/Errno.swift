#if canImport(Glibc)
  import Glibc
#endif

/// Why a system call failed: an errno value, typed.
///
/// The runtime's one syscall layer: every error type carries one of these (not an `Int32`),
/// `valueOrErrno` is the one place that turns a call's result into success or an `Errno`,
/// and `retryOnInterrupt` the one place that retries EINTR.
public struct Errno: Error, RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  public let rawValue: Int32

  public init(rawValue: Int32) { self.rawValue = rawValue }

  /// The calling thread's `errno`, right now: read it before any other call.
  public static var current: Errno { Errno(rawValue: Glibc.errno) }

  public static let notPermitted = Errno(rawValue: EPERM)
  public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
  public static let interrupted = Errno(rawValue: EINTR)
  public static let ioError = Errno(rawValue: EIO)
  public static let badFileDescriptor = Errno(rawValue: EBADF)
  /// EAGAIN, which is EWOULDBLOCK on Linux.
  public static let wouldBlock = Errno(rawValue: EAGAIN)
  public static let noMemory = Errno(rawValue: ENOMEM)
  public static let permissionDenied = Errno(rawValue: EACCES)
  public static let deviceBusy = Errno(rawValue: EBUSY)
  public static let noSuchDevice = Errno(rawValue: ENODEV)
  public static let invalidArgument = Errno(rawValue: EINVAL)
  /// ENOTTY: an ioctl the descriptor does not support (e.g. evdev's on a plain file).
  public static let notATerminal = Errno(rawValue: ENOTTY)
  public static let noBufferSpace = Errno(rawValue: ENOBUFS)
  public static let notImplemented = Errno(rawValue: ENOSYS)
  /// ELOOP: more symbolic links in one path than the kernel follows.
  public static let tooManySymbolicLinks = Errno(rawValue: ELOOP)
  public static let notADirectory = Errno(rawValue: ENOTDIR)
  public static let nameTooLong = Errno(rawValue: ENAMETOOLONG)

  /// strerror's text, e.g. "No such device".
  public var description: String {
    strerror(rawValue).map { String(cString: $0) } ?? "errno \(rawValue)"
  }
}

/// A system call that failed: what was being done (e.g. "pipe", "start /bin/sh: execve"),
/// on which file or device if any, and its errno. The one error type that carries an
/// errno: errors that say more (a file that is not regular, a user that does not exist)
/// wrap one of these for their system failures.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  public var operation: Operation
  /// The file or device node the call was about, when there is one.
  public var path: String?
  public var errno: Errno

  public init(operation: Operation, errno: Errno) {
    self.operation = operation
    self.errno = errno
  }

  /// `operation` made at run time (a step a child reports, a pid in the text).
  public init(operation: String, errno: Errno) {
    self.init(operation: Operation(operation), errno: errno)
  }

  public init(path: String, operation: Operation, errno: Errno) {
    self.path = path
    self.operation = operation
    self.errno = errno
  }

  /// What was being done, in the words a log line uses.
  public struct Operation: Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    public var text: String

    public init(_ text: String) { self.text = text }
    public init(stringLiteral value: String) { text = value }
    public init(stringInterpolation: DefaultStringInterpolation) {
      text = String(stringInterpolation: stringInterpolation)
    }

    public var description: String { text }
  }

  /// The file exists but this process may not use it so.
  public var isPermissionDenied: Bool { errno == .permissionDenied || errno == .notPermitted }

  public var description: String {
    guard let path else { return "\(operation): \(errno)" }
    return "\(path): cannot \(operation): \(errno)\(Self.hint(operation, errno))"
  }

  /// What an errno means for the operation, where the bare text would mislead.
  private static func hint(_ operation: Operation, _ errno: Errno) -> String {
    if operation == .readCapabilities && errno == .notATerminal { return " (not an evdev device)" }
    if operation == .grab && errno == .deviceBusy { return " (another process has grabbed it)" }
    return ""
  }
}

/// libc's convention: `result`, unless it is -1, which means `errno` says why.
@inline(__always)
package func valueOrErrno<Value: FixedWidthInteger>(_ result: Value) -> Result<Value, Errno> {
  result == -1 ? .failure(.current) : .success(result)
}

/// The convention of the C shim, libevdev and libudev: a negative result is `-errno` (EIO for
/// a value that is not one).
@inline(__always)
package func valueOrErrno<Value: FixedWidthInteger & SignedInteger>(negated result: Value) -> Result<Value, Errno> {
  guard result < 0 else { return .success(result) }
  guard result > -Value(Int32.max) else { return .failure(.ioError) }
  return .failure(Errno(rawValue: Int32(-result)))
}

/// Calls `body` again for as long as it fails with EINTR (a signal arrived mid-call).
@inline(__always)
package func retryOnInterrupt<Value>(_ body: () -> Result<Value, Errno>) -> Result<Value, Errno> {
  while true {
    let result = body()
    if case .failure(.interrupted) = result { continue }
    return result
  }
}
