import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// Speaks systemd's notify protocol (sd_notify(3)) without libsystemd: newline-separated
/// `NAME=value` assignments, one datagram per message, to the AF_UNIX socket named by
/// `$NOTIFY_SOCKET`. systemd documents the wire format as stable, so a dozen lines of socket
/// code replace a library dependency.
///
/// Failing to notify is never fatal: an error is logged (once per run of failures, so the
/// watchdog cannot flood the journal) and the daemon carries on.
///
/// The daemon reads its environment once and never passes `NOTIFY_SOCKET` on: actions get an
/// environment built from scratch (`ActionEnvironment`), so no child can impersonate the daemon
/// towards systemd (which `NotifyAccess=main` would ignore anyway).
///
/// Used only from the daemon's serial queue: no locking.
public final class SystemdNotifier {
  /// systemd drops a notification of PIPE_BUF (4096) bytes or more ("exceeded maximum size").
  public static let maximumMessageBytes = 4095
  /// `STATUS=` text is cut to this many bytes; it is one line for `systemctl status`.
  public static let maximumStatusBytes = 1024

  /// `$NOTIFY_SOCKET` as given: a path, or `@name` for an abstract socket.
  public let socketName: String
  /// How often to send `WATCHDOG=1`: half of `$WATCHDOG_USEC`, as sd_watchdog_enabled(3)
  /// recommends; nil when systemd asks for no watchdog pings.
  public let watchdogInterval: Microseconds?

  let fileDescriptor: Int32
  private let address: sockaddr_un
  private let addressLength: socklen_t
  private let logger: Logger?
  /// Messages that failed since the last one that got through; only the first is logged.
  private var consecutiveFailures = 0

  /// Nil when `$NOTIFY_SOCKET` is unset (not started by systemd, or `Type=simple`), and when it
  /// is not an absolute path or `@name` that fits a socket address (logged as a warning; a
  /// `vsock:` address, systemd 254's VM notification, is not supported).
  ///
  /// - Parameters:
  ///   - environment: the daemon's environment (`NOTIFY_SOCKET`, `WATCHDOG_USEC`,
  ///     `WATCHDOG_PID`); tests pass their own.
  ///   - processID: compared with `$WATCHDOG_PID`; the caller's pid by default.
  ///   - logger: where failures go.
  public init?(environment: [String: String], processID: pid_t = getpid(), logger: Logger? = nil) {
    guard let name = environment["NOTIFY_SOCKET"] else { return nil }
    guard let (address, length) = Self.socketAddress(name) else {
      logger?.warning(
        "NOTIFY_SOCKET='\(Self.printable(name))' is neither an absolute path nor an @abstract "
          + "socket name; not notifying systemd")
      return nil
    }
    let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else {
      logger?.warning("cannot create a socket to notify systemd: \(Errno.current)")
      return nil
    }
    self.socketName = name
    self.address = address
    self.addressLength = length
    self.fileDescriptor = descriptor
    self.logger = logger
    self.watchdogInterval = Self.watchdogInterval(environment: environment, processID: processID)
  }

  deinit { close(fileDescriptor) }

  // MARK: Messages

  /// Startup (or a reload) is complete. `status` becomes `systemctl status`'s "Status:" line.
  public func ready(status: String? = nil) {
    send(status.map { "READY=1\n" + Self.statusField($0) } ?? "READY=1")
  }

  /// A reload begins; `ready(status:)` must follow when it is done. `monotonicMicroseconds` is
  /// CLOCK_MONOTONIC now (`MonotonicClock.now()`), which systemd 253+ uses to tell this reload
  /// from an earlier one; a negative value (not a clock reading) leaves the field out.
  public func reloading(monotonicMicroseconds: Int64) {
    if monotonicMicroseconds < 0 {
      send("RELOADING=1")
    } else {
      send("RELOADING=1\nMONOTONIC_USEC=\(monotonicMicroseconds)")
    }
  }

  /// Shutdown begins.
  public func stopping() { send("STOPPING=1") }

  /// Updates the status line only.
  public func status(_ text: String) { send(Self.statusField(text)) }

  /// The keep-alive ping, due every `watchdogInterval`.
  public func watchdog() { send("WATCHDOG=1") }

  /// Sends `fields` (e.g. "READY=1\nSTATUS=2 devices") as one datagram. Returns whether it
  /// went out. Never blocks (MSG_DONTWAIT): when systemd's queue is full the message is lost
  /// and logged rather than stalling the daemon's only queue.
  @discardableResult
  public func send(_ fields: String) -> Bool {
    var message = fields
    if message.utf8.contains(0) {
      // systemd discards a datagram with a NUL in it.
      logger?.error("not sending a notification with a NUL byte to systemd")
      return false
    }
    if message.utf8.count > Self.maximumMessageBytes {
      logger?.error(
        "not sending a \(message.utf8.count)-byte notification to systemd "
          + "(at most \(Self.maximumMessageBytes))")
      return false
    }
    var failure: Errno? = nil
    message.withUTF8 { bytes in
      withUnsafePointer(to: address) { addressPointer in
        addressPointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
          let sent = retryOnInterrupt {
            valueOrErrno(
              sendto(
                fileDescriptor, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL),
                socketAddress, addressLength))
          }
          if case .failure(let error) = sent { failure = error }
        }
      }
    }
    if let failure {
      if consecutiveFailures == 0 {
        logger?.error(
          "cannot notify systemd at \(Self.printable(socketName)): \(failure)")
      }
      consecutiveFailures &+= 1
      return false
    }
    if consecutiveFailures > 0 {
      logger?.notice(
        "notifying systemd works again after \(consecutiveFailures) lost message(s)")
      consecutiveFailures = 0
    }
    return true
  }

  // MARK: Parsing the environment

  /// Half of `$WATCHDOG_USEC`, or nil when it is unset, not a positive decimal number, or
  /// `$WATCHDOG_PID` is set to another process (the variable was inherited, not meant for us)
  /// or is not a number — the rules of sd_watchdog_enabled(3).
  public static func watchdogInterval(environment: [String: String], processID: pid_t = getpid())
    -> Microseconds?
  {
    guard let text = environment["WATCHDOG_USEC"], let timeout = decimal(text), timeout > 0 else {
      return nil
    }
    if let pidText = environment["WATCHDOG_PID"] {
      guard let pid = decimal(pidText), pid == Int64(processID) else { return nil }
    }
    // At least 1 µs, so that a silly 1 µs timeout cannot make a zero-interval timer.
    return max(timeout / 2, 1)
  }

  /// A non-negative decimal that fits Int64, digits only (no sign, no spaces).
  private static func decimal(_ text: String) -> Int64? {
    guard !text.isEmpty,
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return Int64(text)
  }

  /// The address for `name`: an absolute path (NUL-terminated in sun_path), or `@name`, an
  /// abstract socket whose name is the bytes after the `@`, sun_path starting with NUL and the
  /// length counting exactly the name (abstract names are not NUL-terminated).
  static func socketAddress(_ name: String) -> (sockaddr_un, socklen_t)? {
    let bytes = Array(name.utf8)
    guard let first = bytes.first, !bytes.contains(0) else { return nil }
    let abstract = first == UInt8(ascii: "@")
    guard abstract || first == UInt8(ascii: "/") else { return nil }
    // "@" alone would be the empty abstract name, which means "autobind" to the kernel.
    if abstract && bytes.count < 2 { return nil }

    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    // A path needs room for its terminating NUL; an abstract name does not have one.
    guard bytes.count <= (abstract ? capacity : capacity - 1) else { return nil }
    withUnsafeMutableBytes(of: &address.sun_path) { path in
      for (index, byte) in bytes.enumerated() { path[index] = byte }
      if abstract { path[0] = 0 }
    }
    let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
    let length = pathOffset + bytes.count + (abstract ? 0 : 1)
    return (address, socklen_t(length))
  }

  // MARK: Text

  /// `STATUS=` with the text on one line (a newline would start another assignment, so a
  /// device name could otherwise smuggle in `WATCHDOG=trigger`) and cut to
  /// `maximumStatusBytes` on a character boundary.
  static func statusField(_ text: String) -> String {
    var line = ""
    var bytes = 0
    for character in text {
      let safe: Character = character.isNewline || character == "\0" ? " " : character
      let size = safe.utf8.count
      if bytes + size > maximumStatusBytes { break }
      line.append(safe)
      bytes += size
    }
    return "STATUS=" + line
  }

  /// An environment value as it may be logged: control characters shown as `?`.
  private static func printable(_ text: String) -> String {
    String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? "?" : Character($0) })
  }
}
