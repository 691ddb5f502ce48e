import Dispatch
import GestureCore
import Synchronization

/// What the input side hands a screen's queue: handler calls and source events, in the
/// order they were produced.
enum DeliveryItem: Sendable {
  case touch(TouchHandler, Touch)
  case motion(MotionHandler, Motion)
  case firing(Handler, GestureEvent, Firing)
  case source(@Sendable (SourceEvent) -> Void, SourceEvent)
}

/// The one way from a screen's input side to its queue. Items wait in a buffer that keeps
/// its capacity; a user-data dispatch source on the queue takes everything waiting at once,
/// so that however many views, handlers and reads there are, the queue is entered at most
/// once per batch and not again until it has taken it, and nothing is allocated per batch
/// once the buffers have grown to the largest batch.
final class Delivery: Sendable {
  private struct Buffers {
    /// Filled by the input side.
    var waiting: [DeliveryItem] = []
    /// The buffer the queue emptied last, kept for its capacity.
    var spare: [DeliveryItem] = []
  }

  private let buffers: Mutex<Buffers>
  /// Merging into it is how the input side wakes the queue: merges before the handler runs
  /// make one run. nonisolated(unsafe): Dispatch does not mark its sources Sendable, but
  /// merging into and cancelling one is safe from any thread.
  private nonisolated(unsafe) let wakeUp: any DispatchSourceUserDataOr
  /// Times the queue was entered with handler calls (source events alone not counted).
  let hops = Atomic<Int>(0)
  /// Batches of handler calls sent: the queue may take several in one hop, never one in two.
  let batches = Atomic<Int>(0)

  /// Items each buffer holds before it grows: a few frames of several views and handlers,
  /// so that a queue that lags behind a few frames does not make them grow.
  static let initialCapacity = 64

  init(queue: DispatchQueue) {
    var initial = Buffers()
    initial.waiting.reserveCapacity(Self.initialCapacity)
    initial.spare.reserveCapacity(Self.initialCapacity)
    buffers = Mutex(initial)
    let source = DispatchSource.makeUserDataOrSource(queue: queue)
    wakeUp = source
    // Weak: the delivery owns the source, and cancels it when it goes.
    source.setEventHandler { [weak self] in self?.run() }
    source.activate()
  }

  deinit { wakeUp.cancel() }

  /// Appends `items` (leaving it empty, with its capacity) and wakes the queue.
  func send(_ items: inout [DeliveryItem]) {
    guard !items.isEmpty else { return }
    batches.add(1, ordering: .relaxed)
    buffers.withLock { $0.waiting.append(contentsOf: items) }
    items.removeAll(keepingCapacity: true)
    wakeUp.or(data: 1)
  }

  /// One item, for what comes seldom (a source event).
  func send(_ item: DeliveryItem) {
    buffers.withLock { $0.waiting.append(item) }
    wakeUp.or(data: 1)
  }

  /// On the queue: everything waiting, in order.
  private func run() {
    var batch: [DeliveryItem] = []
    buffers.withLock { buffers in
      swap(&batch, &buffers.waiting)
      swap(&buffers.waiting, &buffers.spare)
    }
    guard !batch.isEmpty else { return }
    var callsHandlers = false
    for item in batch {
      if case .source = item {} else { callsHandlers = true }
      switch item {
      case .touch(let handler, let touch):
        guard handler.token.isEnabled else { continue }
        handler.deliver(touch)
      case .motion(let handler, let motion):
        guard handler.token.isEnabled else { continue }
        if let view = motion.view, view.isRemoved, motion.phase != .cancelled { continue }
        handler.deliver(motion)
      case .firing(let handler, let event, let firing):
        guard handler.token.isEnabled else { continue }
        if let view = firing.view, view.isRemoved { continue }
        handler.deliver(event, firing)
      case .source(let report, let event):
        report(event)
      }
    }
    if callsHandlers { hops.add(1, ordering: .relaxed) }
    batch.removeAll(keepingCapacity: true)
    buffers.withLock { buffers in
      if buffers.spare.capacity < batch.capacity { swap(&buffers.spare, &batch) }
    }
  }
}
