import Dispatch
import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// The event loop, served by the test's own thread as the daemon's main thread serves it,
/// with pipes standing in for devices.
@Suite("Event loop", .serialized)
final class EventMultiplexerTests {
  let queue = DispatchQueue(label: "gestured.tests.event-loop")
  let queueKey = DispatchSpecificKey<String>()

  init() { queue.setSpecific(key: queueKey, value: "daemon") }

  /// A pipe with a non-blocking read end.
  func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    for end in ends { try #require(fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) == 0) }
    return (ends[0], ends[1])
  }

  @Test func handlersRunOnTheQueueInTheServingThreadItself() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let ends = try makePipe()
    defer { for descriptor in [ends.read, ends.write] { close(descriptor) } }
    var seen: (queue: String?, thread: pthread_t)? = nil
    var buffer = [UInt8](repeating: 0, count: 16)
    let token = try queue.sync {
      try multiplexer.watch(ends.read) {
        _ = read(ends.read, &buffer, buffer.count)
        seen = (DispatchQueue.getSpecific(key: self.queueKey), pthread_self())
      }
    }
    defer { queue.sync { multiplexer.unwatch(token) } }
    #expect(multiplexer.serve(waitingAtMost: 0) == 0, "nothing is ready yet")
    #expect(seen == nil)
    _ = write(ends.write, "x", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 1)
    let handler = try #require(seen)
    #expect(handler.queue == "daemon")
    // No hand-off to another thread: the handler ran where epoll_wait returned.
    #expect(pthread_equal(handler.thread, pthread_self()) != 0)
  }

  /// The library's way (TouchGestures inside an app): the multiplexer's own thread waits on
  /// the set, runs what is ready on the queue, and ends at `stopServing`.
  @Test func aThreadOfItsOwnServesTheSetUntilStopped() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let ends = try makePipe()
    defer { for descriptor in [ends.read, ends.write] { close(descriptor) } }
    let served = DispatchSemaphore(value: 0)
    let ended = DispatchSemaphore(value: 0)
    var onQueue: [String?] = []
    var buffer = [UInt8](repeating: 0, count: 16)
    let token = try queue.sync {
      let token = try multiplexer.watch(ends.read) {
        _ = read(ends.read, &buffer, buffer.count)
        onQueue.append(DispatchQueue.getSpecific(key: self.queueKey))
        served.signal()
      }
      try multiplexer.serveOnThreadOfItsOwn(ended: { ended.signal() })
      return token
    }
    _ = write(ends.write, "x", 1)
    #expect(served.wait(timeout: .now() + 10) == .success)
    _ = write(ends.write, "y", 1)
    #expect(served.wait(timeout: .now() + 10) == .success)
    queue.sync {
      #expect(onQueue == ["daemon", "daemon"])
      multiplexer.stopServing()
    }
    #expect(ended.wait(timeout: .now() + 10) == .success, "the thread ends once told")
    // From then on a ready pipe is served by nobody, until the test serves the set itself
    // (which may also find the wake-up still unread: the thread can end without reading it).
    _ = write(ends.write, "z", 1)
    #expect(served.wait(timeout: .now() + 0.5) == .timedOut)
    #expect(multiplexer.serve(waitingAtMost: 5_000) >= 1)
    #expect(served.wait(timeout: .now()) == .success)
    queue.sync { multiplexer.unwatch(token) }
  }

  @Test func aDescriptorThatStaysReadableDoesNotStarveAnother() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let flood = try makePipe()
    let quiet = try makePipe()
    defer { for descriptor in [flood.read, flood.write, quiet.read, quiet.write] { close(descriptor) } }
    let chunk = [UInt8](repeating: 7, count: 4096)
    _ = write(flood.write, chunk, chunk.count)

    var log: [String] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let tokens = try queue.sync {
      [
        try multiplexer.watch(flood.read) {
          // Like a device: at most a bounded amount per wake-up. What it reads it writes
          // back, so it never runs dry: a flood that goes on for ever.
          let count = read(flood.read, &buffer, 256)
          if count > 0 { _ = write(flood.write, buffer, count) }
          log.append("flood")
        },
        try multiplexer.watch(quiet.read) {
          _ = read(quiet.read, &buffer, buffer.count)
          log.append("quiet")
        },
      ]
    }
    defer { queue.sync { for token in tokens { multiplexer.unwatch(token) } } }
    for _ in 0..<3 { #expect(multiplexer.serve(waitingAtMost: 5_000) == 1) }
    #expect(log == ["flood", "flood", "flood"])
    _ = write(quiet.write, "x", 1)
    // The next wake-up serves both, the flood still ready after it.
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 2)
    #expect(log.count == 5)
    #expect(Set(log[3...]) == ["flood", "quiet"])
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 1)
    #expect(log.last == "flood")
  }

  @Test func anEdgeTriggeredWatchRunsOncePerWriteAndNeedsNoRead() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let ends = try makePipe()
    defer { for descriptor in [ends.read, ends.write] { close(descriptor) } }
    var calls = 0
    // The handler never reads: the pipe stays readable, as a doorbell nobody reads does.
    let token = try queue.sync { try multiplexer.watch(ends.read, edgeTriggered: true) { calls += 1 } }
    defer { queue.sync { multiplexer.unwatch(token) } }
    _ = write(ends.write, "x", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 1)
    #expect(multiplexer.serve(waitingAtMost: 0) == 0, "still readable, but nothing new")
    #expect(calls == 1)
    _ = write(ends.write, "y", 1)
    _ = write(ends.write, "z", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 1, "two writes before one wait: one call")
    #expect(calls == 2)
    #expect(multiplexer.serve(waitingAtMost: 0) == 0)
    // Level-triggered, the same unread pipe (another descriptor of it) is ready at every wait.
    let duplicate = dup(ends.read)
    try #require(duplicate >= 0)
    defer { close(duplicate) }
    let level = try queue.sync { try multiplexer.watch(duplicate) { calls += 1 } }
    defer { queue.sync { multiplexer.unwatch(level) } }
    #expect(multiplexer.serve(waitingAtMost: 0) == 1)
    #expect(multiplexer.serve(waitingAtMost: 0) == 1)
  }

  @Test func aHandlerCanTellWhetherAnotherDescriptorWasReadyInItsWakeUp() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let output = try makePipe()
    let exit = try makePipe()
    defer { for descriptor in [output.read, output.write, exit.read, exit.write] { close(descriptor) } }
    var answers: [Bool] = []
    var buffer = [UInt8](repeating: 0, count: 16)
    let outputToken = try queue.sync { try multiplexer.watch(output.read) {} }
    let exitToken = try queue.sync {
      try multiplexer.watch(exit.read) {
        _ = read(exit.read, &buffer, buffer.count)
        answers.append(multiplexer.mayBeReady(outputToken))
      }
    }
    defer { queue.sync { for token in [outputToken, exitToken] { multiplexer.unwatch(token) } } }
    _ = write(exit.write, "x", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 1)
    // Written before the other: in the same wake-up.
    _ = write(output.write, "o", 1)
    _ = write(exit.write, "x", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 2)
    #expect(answers == [false, true])
    _ = read(output.read, &buffer, buffer.count)
    #expect(queue.sync { multiplexer.mayBeReady(outputToken) }, "outside a wake-up: it may be")
  }

  @Test func aDescriptorUnwatchedByAnEarlierHandlerInTheSameWakeUpIsNotCalled() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    let first = try makePipe()
    let second = try makePipe()
    defer { for descriptor in [first.read, first.write, second.read, second.write] { close(descriptor) } }
    var tokens: [Int32: EventMultiplexer.Token] = [:]
    var called: [Int32] = []
    try queue.sync {
      for ends in [first, second] {
        tokens[ends.read] = try multiplexer.watch(ends.read) {
          called.append(ends.read)
          // Whichever runs first unwatches both.
          for token in tokens.values { multiplexer.unwatch(token) }
        }
      }
    }
    _ = write(first.write, "x", 1)
    _ = write(second.write, "x", 1)
    #expect(multiplexer.serve(waitingAtMost: 5_000) == 2)
    #expect(called.count == 1)
    #expect(queue.sync { multiplexer.count } == 0)
  }

  @Test func aDeadlineMovedLaterDoesNotRearmTheTimerAndStillFiresOnlyWhenDue() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    var fired: [Timestamp] = []
    let timer = try queue.sync { try DeadlineTimer(multiplexer: multiplexer) { fired.append(MonotonicClock.now()) } }
    defer { queue.sync { timer.cancel() } }
    let start = MonotonicClock.now()
    let first = start + 20_000
    queue.sync { timer.schedule(at: first) }
    #expect(timer.armed == first)
    // Frames pushing the deadline back, as a moving contact's does: the timer stays armed
    // for the first time.
    for step in 1...10 { queue.sync { timer.schedule(at: first + Microseconds(step) * 5_000) } }
    let due = first + 50_000
    #expect(timer.deadline == due)
    #expect(timer.armed == first)
    // The early expiry arms it for the deadline, without calling the handler.
    while timer.armed == first { multiplexer.serve(waitingAtMost: 1_000) }
    #expect(fired.isEmpty)
    #expect(timer.armed == due)
    while fired.isEmpty && MonotonicClock.now() < start + 5_000_000 { multiplexer.serve(waitingAtMost: 1_000) }
    let at = try #require(fired.first)
    #expect(at >= due)
    #expect(timer.deadline == nil && timer.armed == nil)
    // An earlier deadline re-arms it.
    let later = MonotonicClock.now() + 10_000_000
    queue.sync { timer.schedule(at: later) }
    let sooner = MonotonicClock.now() + 10_000
    queue.sync { timer.schedule(at: sooner) }
    #expect(timer.armed == sooner)
    while fired.count < 2 && MonotonicClock.now() < start + 5_000_000 { multiplexer.serve(waitingAtMost: 1_000) }
    #expect(fired.count == 2)
    #expect(fired[1] >= sooner)
  }

  @Test func aDisarmedTimerNeverFiresEvenIfItsExpiryWasAlreadyPending() throws {
    let multiplexer = try EventMultiplexer(queue: queue)
    var fired = 0
    let timer = try queue.sync { try DeadlineTimer(multiplexer: multiplexer) { fired += 1 } }
    defer { queue.sync { timer.cancel() } }
    queue.sync { timer.schedule(at: MonotonicClock.now()) }
    usleep(5_000)
    queue.sync { timer.schedule(at: nil) }
    #expect(timer.armed == nil)
    #expect(multiplexer.serve(waitingAtMost: 50) == 0)
    #expect(fired == 0)
  }
}
