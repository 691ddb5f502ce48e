import Dispatch
import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// The event loop's fairness, with pipes standing in for devices: a handler that reads a
/// bounded amount leaves the rest for the next wake-up, and every ready descriptor is served
/// in each wake-up.
@Suite("Event loop", .serialized)
final class EventMultiplexerTests {
  let queue = DispatchQueue(label: "gestured.tests.event-loop")

  /// A pipe with a non-blocking read end.
  func makePipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    try #require(pipe(&ends) == 0)
    for end in ends { try #require(fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) == 0) }
    return (ends[0], ends[1])
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
    // Once the flood has run a few wake-ups, make the quiet one ready while no handler runs.
    let deadline = MonotonicClock.now() + 5_000_000
    while queue.sync(execute: { log.count < 3 }) && MonotonicClock.now() < deadline { usleep(1_000) }
    queue.sync {
      _ = write(quiet.write, "x", 1)
      log.append("written")
    }
    while !queue.sync(execute: { log.contains("quiet") }) && MonotonicClock.now() < deadline { usleep(1_000) }

    let seen = queue.sync { log }
    let written = try #require(seen.firstIndex(of: "written"))
    let served = try #require(seen.firstIndex(of: "quiet"), "the quiet descriptor was never served")
    #expect(served > written)
    // The next wake-up reports both: at most one flood read comes before the quiet one.
    #expect(seen[written..<served].filter { $0 == "flood" }.count <= 1, "\(seen[written...served])")
    #expect(seen[..<written].count >= 3, "the flood ran first")
  }
}
