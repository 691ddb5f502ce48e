import CGesturedShim

#if canImport(Glibc)
  import Glibc
#endif

/// Signals as events in the daemon's event loop: a signalfd in its epoll set, read on its
/// queue like any descriptor, so a handler may do anything (reload, stop) and nothing runs
/// in signal context.
public final class SignalReceiver {
  private let multiplexer: EventMultiplexer
  private let descriptor: Int32
  private var token: EventMultiplexer.Token?

  /// Blocks `signals` in the calling thread, and so in every thread it starts afterwards.
  /// Call on the main thread before anything starts a thread (libdispatch's included):
  /// a thread that has them unblocked would take them with their default action.
  public static func block(_ signals: [Int32]) {
    var set = sigset_t()
    sigemptyset(&set)
    for signal in signals { sigaddset(&set, signal) }
    pthread_sigmask(SIG_BLOCK, &set, nil)
  }

  /// Calls `handler` on the multiplexer's queue with each of `signals` that arrives. They must
  /// be blocked (`block`).
  public init(
    _ signals: [Int32], multiplexer: EventMultiplexer, handler: @escaping (Int32) -> Void
  ) throws(SystemError) {
    let created = signals.withUnsafeBufferPointer {
      gestured_signalfd_create($0.baseAddress, Int32($0.count))
    }
    switch valueOrErrno(negated: created) {
    case .success(let descriptor): self.descriptor = descriptor
    case .failure(let error): throw SystemError(operation: "signalfd", errno: error)
    }
    self.multiplexer = multiplexer
    do throws(SystemError) {
      token = try multiplexer.watch(descriptor) { [unowned self] in
        // One signal per wake-up: the set reports the fd again while more are pending.
        let read = retryOnInterrupt { valueOrErrno(negated: gestured_signalfd_read(self.descriptor)) }
        if case .success(let signal) = read { handler(signal) }
      }
    } catch {
      close(descriptor)
      throw error
    }
  }

  deinit {
    if let token { multiplexer.unwatch(token) }
    close(descriptor)
  }
}
