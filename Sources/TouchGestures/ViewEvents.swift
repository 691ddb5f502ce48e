import GestureCore
import Synchronization

/// What a view's handlers get, as one value: the firings of its gestures and the frames of
/// its continuous gestures.
public enum ViewEvent: Sendable {
  case tap(Tap)
  case longPress(LongPress)
  case swipe(Swipe)
  /// A pan step binding's step or end.
  case panStep(Pan)
  /// A pinch binding's firing, step or end.
  case pinchStep(Pinch)
  /// A rotation binding's firing, step or end.
  case rotationStep(Rotation)
  /// A frame of a continuous gesture.
  case motion(Motion)

  init?(_ event: GestureEvent, _ firing: Firing) {
    switch event.gesture {
    case .tap: self = .tap(Tap(event, firing))
    case .longPress: self = .longPress(LongPress(event, firing))
    case .swipe: self = .swipe(Swipe(event, firing))
    case .pan: self = .panStep(Pan(event, firing))
    case .pinch: self = .pinchStep(Pinch(event, firing))
    case .rotate: self = .rotationStep(Rotation(event, firing))
    }
  }

  /// A `changed` frame: the only kind a lagging consumer may miss.
  var changedGesture: MotionKind? {
    if case .motion(let motion) = self, motion.phase == .changed { return motion.gesture }
    return nil
  }
}

/// A view's events as an `AsyncSequence`, from the moment `TouchView.events()` made it
/// until the view is removed (then it finishes) or the consuming task is cancelled.
///
/// Bounded for a consumer that lags: a `changed` frame waiting behind another `changed`
/// frame of the same gesture replaces it (the newest values win), so at most one waits per
/// gesture between the events that are never dropped (`began`, `ended`, `cancelled`, every
/// firing). Values are handed over on the input side, with no hop through the screen's queue.
public struct ViewEvents: AsyncSequence, Sendable {
  public typealias Element = ViewEvent
  public typealias Failure = Never

  let buffer: ViewEventBuffer

  public func makeAsyncIterator() -> Iterator { Iterator(buffer: buffer) }

  /// Takes the events in order.
  public struct Iterator: AsyncIteratorProtocol {
    let buffer: ViewEventBuffer

    public mutating func next(isolation actor: isolated (any Actor)?) async -> ViewEvent? {
      await buffer.next()
    }

    public mutating func next() async -> ViewEvent? { await buffer.next() }
  }
}

/// The events waiting for one `ViewEvents` consumer.
final class ViewEventBuffer: Sendable {
  private struct State {
    var waiting: [ViewEvent] = []
    /// Where the next event to hand over is in `waiting`.
    var head = 0
    var consumer: CheckedContinuation<ViewEvent?, Never>?
    var finished = false
  }

  private let state = Mutex(State())

  /// Queues `event`, or hands it to the consumer waiting.
  func push(_ event: ViewEvent) {
    let consumer = state.withLock { state -> CheckedContinuation<ViewEvent?, Never>? in
      guard !state.finished else { return nil }
      if let consumer = state.consumer {
        state.consumer = nil
        return consumer
      }
      if let gesture = event.changedGesture, state.waiting.count > state.head,
        state.waiting[state.waiting.count - 1].changedGesture == gesture
      {
        state.waiting[state.waiting.count - 1] = event
      } else {
        state.waiting.append(event)
      }
      return nil
    }
    consumer?.resume(returning: event)
  }

  /// No more events: a consumer waiting gets nil.
  func finish() {
    let consumer = state.withLock { state -> CheckedContinuation<ViewEvent?, Never>? in
      state.finished = true
      defer { state.consumer = nil }
      return state.consumer
    }
    consumer?.resume(returning: nil)
  }

  /// How many events wait (for tests of the bound).
  var count: Int { state.withLock { $0.waiting.count - $0.head } }

  func next() async -> ViewEvent? {
    await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ViewEvent?, Never>) in
        let ready = state.withLock { state -> ViewEvent?? in
          if state.head < state.waiting.count {
            let event = state.waiting[state.head]
            state.head += 1
            if state.head == state.waiting.count {
              state.waiting.removeAll(keepingCapacity: true)
              state.head = 0
            }
            return .some(event)
          }
          if state.finished || Task.isCancelled { return .some(nil) }
          state.consumer = continuation
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      finish()
    }
  }
}

extension TouchView {
  /// The view's events, from now on, for `for await`: every firing of a handler of this
  /// view and every frame of its continuous gestures (the handlers must be there: an event
  /// is what they get). Each call makes a sequence of its own.
  public func events() -> ViewEvents {
    let buffer = ViewEventBuffer()
    if isRemoved {
      buffer.finish()
    } else {
      observers.withLock { $0.append(buffer) }
    }
    return ViewEvents(buffer: buffer)
  }
}
