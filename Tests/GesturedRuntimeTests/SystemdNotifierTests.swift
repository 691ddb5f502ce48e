import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A datagram socket standing in for systemd's notify socket: bound to a path in a fresh
/// temporary directory, or to an abstract name.
final class FakeNotifySocket {
  let fileDescriptor: Int32
  /// What goes into `$NOTIFY_SOCKET`.
  let environmentValue: String
  private let directory: String?

  enum Kind { case path, abstract }

  /// `abstractName` picks the name (with its `@`) of an abstract socket.
  init(_ kind: Kind, abstractName: String? = nil) throws {
    fileDescriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue | SOCK_CLOEXEC.rawValue), 0)
    try #require(fileDescriptor >= 0)
    switch kind {
    case .path:
      var template = Array("/tmp/gestured-notify-XXXXXX".utf8CString)
      let made = template.withUnsafeMutableBufferPointer { buffer in
        buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
      }
      let path = try #require(made, "mkdtemp: errno \(errno)")
      directory = path
      environmentValue = path + "/notify"
    case .abstract:
      directory = nil
      environmentValue = abstractName ?? Self.uniqueAbstractName()
    }
    // Built here, not with the notifier's code, so a wrong address there cannot pass.
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    var name = Array(environmentValue.utf8)
    if kind == .abstract { name[0] = 0 }  // "@name" → "\0name", not NUL-terminated
    try #require(name.count < 108)
    withUnsafeMutableBytes(of: &address.sun_path) { path in
      for (index, byte) in name.enumerated() { path[index] = byte }
    }
    // sun_family (2 bytes), the name, and a terminating NUL only for a path.
    let length = socklen_t(2 + name.count + (kind == .path ? 1 : 0))
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fileDescriptor, $0, length) }
    }
    try #require(result == 0, "bind \(environmentValue): errno \(errno)")
  }

  /// Unique per process and call: tests run in parallel and abstract names are system-wide
  /// (per network namespace).
  static func uniqueAbstractName() -> String {
    "@gestured-test-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
  }

  deinit {
    close(fileDescriptor)
    if let directory {
      unlink(directory + "/notify")
      rmdir(directory)
    }
  }

  /// The next datagram, waiting at most a second; nil when none arrives.
  func receive() -> String? {
    var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, 1000) == 1 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 8192)
    let count = buffer.withUnsafeMutableBytes { recv(fileDescriptor, $0.baseAddress, $0.count, 0) }
    guard count >= 0 else { return nil }
    return String(decoding: buffer[0..<count], as: UTF8.self)
  }

  /// True when no datagram is waiting.
  var isEmpty: Bool {
    var poller = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
    return poll(&poller, 1, 0) == 0
  }
}

@Suite("systemd notify protocol")
struct SystemdNotifierTests {
  @Test(arguments: [FakeNotifySocket.Kind.path, .abstract])
  func eachHelperSendsExactlyItsAssignmentsAsOneDatagram(kind: FakeNotifySocket.Kind) throws {
    let systemd = try FakeNotifySocket(kind)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))

    notifier.ready(status: "2 touchscreens")
    #expect(systemd.receive() == "READY=1\nSTATUS=2 touchscreens")
    notifier.ready()
    #expect(systemd.receive() == "READY=1")
    notifier.reloading(monotonicMicroseconds: 123_456_789)
    #expect(systemd.receive() == "RELOADING=1\nMONOTONIC_USEC=123456789")
    notifier.status("1 touchscreen")
    #expect(systemd.receive() == "STATUS=1 touchscreen")
    notifier.watchdog()
    #expect(systemd.receive() == "WATCHDOG=1")
    notifier.stopping()
    #expect(systemd.receive() == "STOPPING=1")
    #expect(notifier.send("STATUS=custom\nERRNO=5"))
    #expect(systemd.receive() == "STATUS=custom\nERRNO=5")
    #expect(systemd.isEmpty)
  }

  @Test func reloadingWithTheRealClockSendsItsReading() throws {
    let systemd = try FakeNotifySocket(.path)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    let before = MonotonicClock.now()
    notifier.reloading(monotonicMicroseconds: MonotonicClock.now().microseconds)
    let after = MonotonicClock.now()

    let message = try #require(systemd.receive())
    let prefix = "RELOADING=1\nMONOTONIC_USEC="
    #expect(message.hasPrefix(prefix))
    let sent = try #require(Int64(message.dropFirst(prefix.count)))
    #expect(before.microseconds <= sent && sent <= after.microseconds)
  }

  @Test func aNegativeClockValueLeavesMonotonicOut() throws {
    let systemd = try FakeNotifySocket(.abstract)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    notifier.reloading(monotonicMicroseconds: -1)
    #expect(systemd.receive() == "RELOADING=1")
  }

  @Test func statusTextCannotInjectAssignments() throws {
    let systemd = try FakeNotifySocket(.path)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    notifier.status("Evil panel\nWATCHDOG=trigger\r\nSTOPPING=1")
    #expect(systemd.receive() == "STATUS=Evil panel WATCHDOG=trigger STOPPING=1")
    notifier.ready(status: "a\u{0}b")
    #expect(systemd.receive() == "READY=1\nSTATUS=a b")
  }

  @Test func longStatusIsCutOnACharacterBoundary() throws {
    let systemd = try FakeNotifySocket(.path)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    // "é" is two bytes: 1023 bytes of "a" leave no room for it.
    notifier.status(
      String(repeating: "a", count: SystemdNotifier.maximumStatusBytes - 1) + "é and more")
    let message = try #require(systemd.receive())
    #expect(
      message == "STATUS=" + String(repeating: "a", count: SystemdNotifier.maximumStatusBytes - 1))
  }

  @Test func messagesSystemdWouldDropAreRefusedAndLogged() throws {
    let systemd = try FakeNotifySocket(.path)
    let log = CapturedOutput()
    let notifier = try #require(
      SystemdNotifier(
        environment: ["NOTIFY_SOCKET": systemd.environmentValue], logger: Logger(sink: log)))
    #expect(!notifier.send("READY=1\u{0}"))
    #expect(
      !notifier.send("STATUS=" + String(repeating: "x", count: SystemdNotifier.maximumMessageBytes))
    )
    #expect(systemd.isEmpty)
    #expect(log.lines.count == 2)
    #expect(log.text.contains("NUL"))
    #expect(log.text.contains("4095"))
    // The largest message systemd takes still goes out.
    let largest = "STATUS=" + String(repeating: "y", count: SystemdNotifier.maximumMessageBytes - 7)
    #expect(notifier.send(largest))
    #expect(systemd.receive() == largest)
  }

  @Test func theSocketIsCloseOnExec() throws {
    let systemd = try FakeNotifySocket(.path)
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    let flags = fcntl(notifier.fileDescriptor, F_GETFD)
    #expect(flags >= 0 && flags & FD_CLOEXEC != 0)
  }

  @Test func sendFailuresAreLoggedOnceAndNotFatal() throws {
    let systemd = try FakeNotifySocket(.path)
    let log = CapturedOutput()
    // A socket path nobody listens on: systemd went away, or the path is wrong.
    let notifier = try #require(
      SystemdNotifier(
        environment: ["NOTIFY_SOCKET": systemd.environmentValue + "-gone"],
        logger: Logger(sink: log)))
    #expect(!notifier.send("WATCHDOG=1"))
    #expect(!notifier.send("WATCHDOG=1"))
    notifier.watchdog()
    #expect(log.lines.count == 1)
    #expect(log.text.contains("cannot notify systemd at \(systemd.environmentValue)-gone"))
    #expect(log.text.contains("No such file or directory"))
  }

  @Test func aRecoveredSocketIsLoggedOnceMore() throws {
    let name = FakeNotifySocket.uniqueAbstractName()
    let log = CapturedOutput()
    let notifier = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": name], logger: Logger(sink: log)))
    notifier.watchdog()
    notifier.watchdog()
    // systemd is back (the name is bound now): the next message goes out and says so.
    let systemd = try FakeNotifySocket(.abstract, abstractName: name)
    notifier.watchdog()
    #expect(systemd.receive() == "WATCHDOG=1")
    #expect(log.lines.count == 2)
    #expect(log.lines.last == "notifying systemd works again after 2 lost message(s)")
  }

  @Test(arguments: [
    "",  // set but empty
    "relative/notify",  // neither absolute nor abstract
    "@",  // the empty abstract name (autobind)
    "vsock:2:1234",  // systemd 254's VM notification: not supported
    "/" + String(repeating: "p", count: 107),  // 108 bytes: no room for the NUL
    "@" + String(repeating: "a", count: 108),  // 109 bytes with the NUL the @ becomes
    "/run/sys\u{0}temd/notify",
  ])
  func unusableSocketNamesGiveNoNotifier(name: String) {
    let log = CapturedOutput()
    #expect(SystemdNotifier(environment: ["NOTIFY_SOCKET": name], logger: Logger(sink: log)) == nil)
    #expect(log.text.contains("not notifying systemd"))
    #expect(!log.text.contains("\u{0}"))
  }

  @Test func noNotifySocketMeansNoNotifierAndNoComplaint() {
    let log = CapturedOutput()
    #expect(
      SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"], logger: Logger(sink: log)) == nil)
    #expect(log.text.isEmpty)
  }

  @Test func longestNamesThatFitAreAccepted() throws {
    let path = "/" + String(repeating: "p", count: 106)
    let (_, pathLength) = try #require(SystemdNotifier.socketAddress(path))
    #expect(Int(pathLength) == 2 + 107 + 1)  // sun_family, the path, its NUL
    let abstract = "@" + String(repeating: "a", count: 107)
    let (address, abstractLength) = try #require(SystemdNotifier.socketAddress(abstract))
    #expect(Int(abstractLength) == 2 + 108)  // no NUL after an abstract name
    var copy = address
    let firstByte = withUnsafeBytes(of: &copy.sun_path) { $0[0] }
    #expect(firstByte == 0)
  }
}

@Suite("systemd watchdog interval")
struct WatchdogIntervalTests {
  let me = getpid()

  @Test func halfOfWatchdogUsec() {
    #expect(
      SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "30000000"]) == 15_000_000)
    #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": "1"]) == 1)
  }

  @Test func watchdogPidMustBeThisProcess() {
    let timeout = "20000000"
    #expect(
      SystemdNotifier.watchdogInterval(environment: [
        "WATCHDOG_USEC": timeout, "WATCHDOG_PID": "\(me)",
      ])
        == 10_000_000)
    // Inherited from a parent that systemd watches: not ours to ping.
    #expect(
      SystemdNotifier.watchdogInterval(environment: [
        "WATCHDOG_USEC": timeout, "WATCHDOG_PID": "\(me + 1)",
      ])
        == nil)
    #expect(
      SystemdNotifier.watchdogInterval(environment: [
        "WATCHDOG_USEC": timeout, "WATCHDOG_PID": "self",
      ])
        == nil)
    // The processID parameter stands in for getpid().
    #expect(
      SystemdNotifier.watchdogInterval(
        environment: ["WATCHDOG_USEC": timeout, "WATCHDOG_PID": "4242"], processID: 4242)
        == 10_000_000)
  }

  @Test(arguments: ["", "0", "-5", "+5", "30s", " 30000000", "1e6", "99999999999999999999999"])
  func garbageTimeoutsMeanNoWatchdog(value: String) {
    #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_USEC": value]) == nil)
  }

  @Test func noTimeoutMeansNoWatchdog() {
    #expect(SystemdNotifier.watchdogInterval(environment: [:]) == nil)
    #expect(SystemdNotifier.watchdogInterval(environment: ["WATCHDOG_PID": "\(me)"]) == nil)
  }

  @Test func theNotifierCarriesTheInterval() throws {
    let systemd = try FakeNotifySocket(.abstract)
    let watched = try #require(
      SystemdNotifier(environment: [
        "NOTIFY_SOCKET": systemd.environmentValue, "WATCHDOG_USEC": "30000000",
        "WATCHDOG_PID": "\(me)",
      ]))
    #expect(watched.watchdogInterval == 15_000_000)
    let unwatched = try #require(
      SystemdNotifier(environment: ["NOTIFY_SOCKET": systemd.environmentValue]))
    #expect(unwatched.watchdogInterval == nil)
  }
}

@Suite("Monotonic clock")
struct MonotonicClockTests {
  @Test func neverGoesBackAndMatchesTheKernelClock() {
    var kernel = timespec()
    let first = MonotonicClock.now()
    clock_gettime(CLOCK_MONOTONIC, &kernel)
    let second = MonotonicClock.now()
    let kernelMicroseconds = Int64(kernel.tv_sec) * 1_000_000 + Int64(kernel.tv_nsec) / 1000
    #expect(first <= second)
    #expect(first.microseconds <= kernelMicroseconds && kernelMicroseconds <= second.microseconds)
  }
}
