import CGesturedShim
import Dispatch
import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's one event loop: everything it waits for is a descriptor in one epoll set
/// (the signalfd, timerfds for deadlines, action timeouts, exit polling and the watchdog,
/// the udev monitor, devices, action output pipes, pidfds), and libdispatch watches only the
/// set itself, with one read source on the daemon's serial queue, made at start.
///
/// Why not a Dispatch source each: creating and cancelling Dispatch read sources at the rate
/// actions come and go hits a use-after-free in libdispatch's epoll bookkeeping on Linux
/// (swift-corelibs-libdispatch #949): measured here, 3 crashes in 40 runs of 20 short
/// actions each. Here `watch` and `unwatch` are plain epoll_ctl calls, done on the queue,
/// synchronously: nothing is torn down behind our back, and a descriptor may be closed as
/// soon as `unwatch` returns. Watching happens when a descriptor comes or goes, never per
/// event.
///
/// Level-triggered: a handler that leaves data unread is called again at the next wake-up.
/// Each wake-up calls every ready handler once; handlers that read a bounded amount (devices
/// read at most `Daemon.eventsPerWakeUp` events) so take turns, since epoll reports a
/// descriptor that stays ready after the others that were waiting. Only `queue` may call.
public final class EventMultiplexer {
  public struct Token: Hashable, Sendable {
    fileprivate let id: UInt64
    fileprivate let descriptor: Int32
  }

  private let queue: DispatchQueue
  private let epoll: Int32
  private var source: (any DispatchSourceRead)?
  private var handlers: [UInt64: () -> Void] = [:]
  private var nextID: UInt64 = 1
  /// Ids read from epoll, reused for every wake-up.
  private var ready = [UInt64](repeating: 0, count: 64)

  public init(queue: DispatchQueue) throws(SystemError) {
    let descriptor: Int32
    switch valueOrErrno(negated: gestured_epoll_create()) {
    case .success(let created): descriptor = created
    case .failure(let error): throw SystemError(operation: "epoll_create1", errno: error)
    }
    self.queue = queue
    epoll = descriptor
    let source = DispatchSource.makeReadSource(fileDescriptor: descriptor, queue: queue)
    source.setEventHandler { [unowned self] in self.dispatchReady() }
    source.setCancelHandler { close(descriptor) }
    source.resume()
    self.source = source
  }

  deinit { source?.cancel() }

  /// Descriptors being watched.
  public var count: Int { handlers.count }

  /// Calls `handler` on the queue while `descriptor` is readable, until `unwatch`.
  public func watch(_ descriptor: Int32, handler: @escaping () -> Void) throws(SystemError) -> Token {
    dispatchPrecondition(condition: .onQueue(queue))
    let id = nextID
    nextID += 1
    if case .failure(let error) = valueOrErrno(negated: gestured_epoll_add(epoll, descriptor, id)) {
      throw SystemError(operation: "epoll_ctl(ADD)", errno: error)
    }
    handlers[id] = handler
    return Token(id: id, descriptor: descriptor)
  }

  /// Stops watching; the caller may close the descriptor right after. Idempotent.
  public func unwatch(_ token: Token) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard handlers.removeValue(forKey: token.id) != nil else { return }
    // ENOENT/EBADF: the descriptor was closed already, which removed it from the set.
    _ = gestured_epoll_remove(epoll, token.descriptor)
  }

  private func dispatchReady() {
    let result = retryOnInterrupt {
      valueOrErrno(
        negated: ready.withUnsafeMutableBufferPointer { gestured_epoll_ready(epoll, $0.baseAddress, Int32($0.count)) })
    }
    guard case .success(let count) = result, count > 0 else { return }
    for index in 0..<Int(count) {
      // A handler may have unwatched another descriptor that was ready in the same batch.
      handlers[ready[index]]?()
    }
  }
}

/// A system call that failed, with its errno.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
  public var operation: String
  public var errno: Errno

  public init(operation: String, errno: Errno) {
    self.operation = operation
    self.errno = errno
  }

  public var description: String { "\(operation): \(errno)" }
}

/// A deadline on CLOCK_MONOTONIC, as a timerfd in the multiplexer's epoll set: arming and
/// disarming are plain timerfd_settime calls, however often (see gestured_timerfd_create for
/// why not a Dispatch timer). Disarmed, it never wakes anything.
public final class DeadlineTimer {
  private let multiplexer: EventMultiplexer
  private let descriptor: Int32
  private var token: EventMultiplexer.Token?
  /// When it is armed for, nil when disarmed.
  public private(set) var deadline: Timestamp?

  public init(multiplexer: EventMultiplexer, handler: @escaping () -> Void) throws(SystemError) {
    let descriptor: Int32
    switch valueOrErrno(negated: gestured_timerfd_create()) {
    case .success(let created): descriptor = created
    case .failure(let error): throw SystemError(operation: "timerfd_create", errno: error)
    }
    self.multiplexer = multiplexer
    self.descriptor = descriptor
    do throws(SystemError) {
      token = try multiplexer.watch(descriptor) { [unowned self] in
        gestured_timerfd_clear(self.descriptor)
        // A disarmed or re-armed timer may still have had an expiry queued: only a due one runs.
        guard let deadline = self.deadline, deadline <= MonotonicClock.now() else { return }
        self.deadline = nil
        handler()
      }
    } catch {
      close(descriptor)
      throw error
    }
  }

  deinit { cancel() }

  /// Arms it for `time` (a past time fires at once), or disarms it with nil.
  public func schedule(at time: Timestamp?) {
    guard token != nil else { return }
    deadline = time
    _ = gestured_timerfd_set(descriptor, time.map { max(0, $0.microseconds) } ?? -1)
  }

  /// Stops it for good and closes the timerfd. Idempotent.
  public func cancel() {
    guard let token else { return }
    multiplexer.unwatch(token)
    self.token = nil
    deadline = nil
    close(descriptor)
  }
}
