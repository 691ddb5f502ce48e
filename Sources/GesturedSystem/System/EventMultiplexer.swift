import CGesturedShim
import Dispatch
import GestureCore
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's one event loop (and a live TouchGestures screen's, served by a thread of
/// its own: `serveOnThreadOfItsOwn`): everything it waits for is a descriptor in one epoll set
/// (the signalfd, timerfds for deadlines, action timeouts, exit polling and the watchdog,
/// the udev monitor, devices, action output pipes, pidfds). One thread, the daemon's main
/// thread, blocks in epoll_wait on the set (`run`) and runs the ready handlers inside
/// `queue.sync` on the daemon's serial queue. On a serial queue that nothing else is using,
/// `sync` runs the block on the calling thread: a wake-up costs one epoll_wait plus what the
/// handlers read, with no thread hand-off, and Dispatch still owns the queue (handlers may
/// check `dispatchPrecondition`, and work sent with `queue.async` from elsewhere runs
/// between wake-ups, never during one).
///
/// Why not a Dispatch source per descriptor, or one on the set: creating and cancelling
/// Dispatch read sources at the rate actions come and go hits a use-after-free in
/// libdispatch's epoll bookkeeping on Linux (swift-corelibs-libdispatch #949), and a read
/// source on the set makes libdispatch hand every wake-up from its epoll thread to a worker
/// thread (futex) and re-arm the source (epoll_ctl) each time. Here
/// `watch` and `unwatch` are plain epoll_ctl calls, done on the queue, synchronously:
/// nothing is torn down behind our back, and a descriptor may be closed as soon as
/// `unwatch` returns. Watching happens when a descriptor comes or goes, never per event.
///
/// Level-triggered: a handler that leaves data unread is called again at the next wake-up.
/// Each wake-up calls every ready handler once; handlers that read a bounded amount (devices
/// read at most `Daemon.eventsPerWakeUp` events) so take turns, since epoll reports a
/// descriptor that stays ready after the others that were waiting. `watch` and `unwatch`
/// are called on `queue`; `run`/`serve` from one thread that is not the queue's.
public final class EventMultiplexer {
  public struct Token: Hashable, Sendable {
    fileprivate let id: UInt64
    fileprivate let descriptor: Int32
  }

  private let queue: DispatchQueue
  private let epoll: Int32
  private var handlers: [UInt64: () -> Void] = [:]
  private var nextID: UInt64 = 1
  /// Ids epoll_wait reported, reused for every wake-up; only the serving thread writes it,
  /// before entering the queue.
  private let ready = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: 64)
  /// While a wake-up's handlers run: how many of `ready` it holds.
  private var readyCount: Int?
  /// `serveOnThreadOfItsOwn`: the eventfd that wakes its thread, and the flag that ends it.
  private var wakeUp: Int32?
  /// Set before the thread starts, read by it when it ends.
  private var servingEnded: (@Sendable () -> Void)?
  private let stopped = Atomic<Bool>(false)

  public init(queue: DispatchQueue) throws(SystemError) {
    let descriptor: Int32
    switch valueOrErrno(negated: gestured_epoll_create()) {
    case .success(let created): descriptor = created
    case .failure(let error): throw SystemError(operation: "epoll_create1", errno: error)
    }
    self.queue = queue
    epoll = descriptor
  }

  deinit {
    if let wakeUp { close(wakeUp) }
    close(epoll)
    ready.deallocate()
  }

  /// Descriptors being watched.
  public var count: Int { handlers.count }

  /// Calls `handler` on the queue while `descriptor` is readable, until `unwatch`.
  ///
  /// `edgeTriggered`: only once each time the file is woken (new input), never again for
  /// what it already holds, so the handler need not read it: a doorbell whose content
  /// nobody wants (EvdevDevice.openDoorbell) costs no read.
  public func watch(
    _ descriptor: Int32, edgeTriggered: Bool = false, handler: @escaping () -> Void
  ) throws(SystemError) -> Token {
    dispatchPrecondition(condition: .onQueue(queue))
    let id = nextID
    nextID += 1
    if case .failure(let error) = valueOrErrno(
      negated: gestured_epoll_add(epoll, descriptor, id, edgeTriggered ? 1 : 0))
    {
      throw SystemError(operation: "epoll_ctl(ADD)", errno: error)
    }
    handlers[id] = handler
    return Token(id: id, descriptor: descriptor)
  }

  /// Stops watching; the caller may close the descriptor right after. Idempotent.
  ///
  /// `closingItsOnlyDescriptor`: closes the descriptor too, without an epoll_ctl. Closing
  /// the last descriptor of an open file removes it from the set (epoll(7)), so a caller
  /// that holds the only one (a pipe end or pidfd it made close-on-exec and never
  /// duplicated) saves that system call. With a duplicate left anywhere the file would stay
  /// in the set and, still ready, wake every epoll_wait: never pass true then.
  public func unwatch(_ token: Token, closingItsOnlyDescriptor: Bool = false) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard handlers.removeValue(forKey: token.id) != nil else { return }
    if closingItsOnlyDescriptor {
      close(token.descriptor)
      return
    }
    // ENOENT/EBADF: the descriptor was closed already, which removed it from the set.
    _ = gestured_epoll_remove(epoll, token.descriptor)
  }

  /// Serves the set for ever: the daemon's main thread, once `start` ran on the queue.
  public func run() -> Never {
    while true { serve(waitingAtMost: -1) }
  }

  /// For a caller with no thread to give (the TouchGestures library inside an app): a
  /// thread of its own serves the set, as `run` does, until `stopServing`. Called on the
  /// queue. The thread keeps the multiplexer alive until it ends, then calls `ended`.
  public func serveOnThreadOfItsOwn(ended: (@Sendable () -> Void)? = nil) throws(SystemError) {
    dispatchPrecondition(condition: .onQueue(queue))
    guard wakeUp == nil else { return }
    let descriptor: Int32
    switch valueOrErrno(negated: gestured_eventfd()) {
    case .success(let created): descriptor = created
    case .failure(let error): throw SystemError(operation: "eventfd", errno: error)
    }
    _ = try watch(descriptor) {
      var count: UInt64 = 0
      _ = read(descriptor, &count, MemoryLayout<UInt64>.size)
    }
    wakeUp = descriptor
    servingEnded = ended
    var thread = pthread_t()
    let context = Unmanaged.passRetained(self).toOpaque()
    let created = pthread_create(
      &thread, nil,
      { context in
        let multiplexer = Unmanaged<EventMultiplexer>.fromOpaque(context!).takeRetainedValue()
        while !multiplexer.stopped.load(ordering: .acquiring) { multiplexer.serve(waitingAtMost: -1) }
        multiplexer.servingEnded?()
        return nil
      }, context)
    guard created == 0 else {
      Unmanaged<EventMultiplexer>.fromOpaque(context).release()
      throw SystemError(operation: "pthread_create", errno: Errno(rawValue: created))
    }
    pthread_detach(thread)
  }

  /// Ends the thread `serveOnThreadOfItsOwn` started, after the wake-up it is in (if any).
  /// Safe from any thread, the queue included.
  public func stopServing() {
    guard let wakeUp else { return }
    stopped.store(true, ordering: .releasing)
    var one: UInt64 = 1
    _ = write(wakeUp, &one, MemoryLayout<UInt64>.size)
  }

  /// Waits until a descriptor is ready or `milliseconds` pass (-1: no limit), then runs the
  /// ready handlers on the queue. Returns how many were ready (0: the wait timed out, or a
  /// signal interrupted it). Never on the queue itself: `sync` there would deadlock.
  @discardableResult
  public func serve(waitingAtMost milliseconds: Int32) -> Int {
    dispatchPrecondition(condition: .notOnQueue(queue))
    let result = valueOrErrno(
      negated: gestured_epoll_wait(epoll, ready.baseAddress, Int32(ready.count), milliseconds))
    // EINTR: a signal the thread did not block (the daemon blocks its own); the caller
    // waits again.
    guard case .success(let count) = result, count > 0 else { return 0 }
    queue.sync {
      readyCount = Int(count)
      for index in 0..<Int(count) {
        // A handler may have unwatched another descriptor that was ready in the same batch.
        handlers[ready[index]]?()
      }
      readyCount = nil
    }
    return Int(count)
  }

  /// Whether `token`'s descriptor may hold input now, asked by a handler of this wake-up:
  /// false only if it was not among the ready ones and the wait returned fewer than it could
  /// take (so none was left out). A file made readable before another one's wake-up is in
  /// the same wake-up or an earlier one, never a later one (epoll queues a file when it is
  /// woken): a child's output written before its exit is here when its pidfd is, or was
  /// read before. Outside a wake-up, true.
  public func mayBeReady(_ token: Token) -> Bool {
    dispatchPrecondition(condition: .onQueue(queue))
    guard let readyCount, readyCount < ready.count else { return true }
    for index in 0..<readyCount where ready[index] == token.id { return true }
    return false
  }
}

/// A deadline on CLOCK_MONOTONIC, as a timerfd in the multiplexer's epoll set (see
/// gestured_timerfd_create for why not a Dispatch timer). Disarmed, it never wakes anything.
///
/// The timerfd is re-armed only when the deadline moves earlier or goes away: a deadline
/// that moves later (a moving contact's stuck-contact deadline moves with every frame) leaves
/// it armed for the earlier time, and when that expires the timer is armed again for the
/// deadline then, without calling the handler. So a stream of frames that keeps pushing the
/// deadline back costs one timerfd_settime per expiry, not one per frame. No clock is read:
/// an expiry of the timer as armed is the deadline's time passing.
public final class DeadlineTimer {
  private let multiplexer: EventMultiplexer
  private let descriptor: Int32
  private var token: EventMultiplexer.Token?
  /// When the handler is due, nil when nothing is.
  public private(set) var deadline: Timestamp?
  /// The deadline the handler last ran for (read in the handler: the time it stands for,
  /// with no clock read).
  public private(set) var lastDue: Timestamp?
  /// What the timerfd is armed for: nil or never later than `deadline`.
  private(set) var armed: Timestamp?

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
        // 0: re-armed or disarmed after epoll saw the expiry; the expiry is void.
        guard gestured_timerfd_clear(self.descriptor) > 0, let expired = self.armed else { return }
        self.armed = nil
        guard let deadline = self.deadline else { return }
        guard deadline <= expired else {
          self.arm(at: deadline)
          return
        }
        self.deadline = nil
        self.lastDue = deadline
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
    guard let time else {
      if armed != nil { arm(at: nil) }
      return
    }
    if let armed, armed <= time { return }
    arm(at: time)
  }

  private func arm(at time: Timestamp?) {
    armed = time
    _ = gestured_timerfd_set(descriptor, time.map { max(0, $0.microseconds) } ?? -1)
  }

  /// Stops it for good and closes the timerfd. Idempotent.
  public func cancel() {
    guard let token else { return }
    // The timerfd is close-on-exec and never duplicated.
    multiplexer.unwatch(token, closingItsOnlyDescriptor: true)
    self.token = nil
    deadline = nil
    armed = nil
  }
}
