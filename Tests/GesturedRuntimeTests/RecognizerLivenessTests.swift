import GestureCore
import GesturedSystem
import Testing

@testable import GesturedRuntime

@Suite("The launcher's judgement of a silent recognizer")
struct RecognizerLivenessTests {
  let start = Timestamp(microseconds: 50_000_000)
  /// The unit's WatchdogSec=30s pinged at half of it, as systemd asks.
  let ping: Microseconds = 15_000_000
  var limit: Microseconds { RecognizerLiveness.silenceLimit(pingInterval: ping) }

  @Test func aRecognizerThatAnswersEveryPingNeverHangs() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    // A check is mutating, which #expect cannot call: its answer goes through `hung`.
    var hung: Bool
    var now = start
    for _ in 0..<100 {
      now = now + ping
      hung = liveness.isHung(at: now)
      #expect(!hung)
      // The answer comes a little after the ping, even a late one.
      liveness.heard()
    }
    // Dated by the check before it.
    #expect(liveness.deadline == now + limit)
  }

  @Test func aRecognizerHungRightAfterAnsweringIsNoticedAtTheSecondPingAfter() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    var hung: Bool
    liveness.heard()
    hung = liveness.isHung(at: start + ping)
    #expect(!hung)
    hung = liveness.isHung(at: start + 2 * ping)
    #expect(hung)
  }

  @Test func silenceBeyondTheLimitIsAHangAndNotBefore() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: 8_000_000)
    var hung: Bool
    hung = liveness.isHung(at: start + 1_000_000)
    #expect(!hung)
    liveness.heard()
    #expect(liveness.deadline == start + 9_000_000)
    hung = liveness.isHung(at: start + 9_000_000)
    #expect(!hung)
    hung = liveness.isHung(at: start + 9_000_001)
    #expect(hung)
  }

  @Test func aRecognizerThatNeverSpeaksHangsOneLimitAfterItStarted() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    var hung: Bool
    hung = liveness.isHung(at: start + limit)
    #expect(!hung)
    hung = liveness.isHung(at: start + limit + 1)
    #expect(hung)
  }

  @Test func aMessageCountsOnceAndFromTheCheckBeforeIt() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    var hung: Bool
    liveness.heard()
    liveness.heard()
    #expect(liveness.heardSinceCheck)
    hung = liveness.isHung(at: start + ping)
    #expect(!hung)
    #expect(!liveness.heardSinceCheck)
    #expect(liveness.lastHeard == start)
    liveness.heard()
    hung = liveness.isHung(at: start + 2 * ping)
    #expect(!hung)
    #expect(liveness.lastHeard == start + ping)
    // A check that comes early (a clock read before the previous one's) moves nothing back.
    liveness.heard()
    hung = liveness.isHung(at: start + ping)
    #expect(!hung)
    #expect(liveness.lastHeard == start + 2 * ping)
  }

  @Test func aHangIsNoticedWithinTheUnitsWatchdogTimeout() throws {
    let bytes = try InputFile.read(path: packageRoot + "/systemd/gestured.service", maximumSize: 1 << 16)
    let unit = String(decoding: bytes, as: UTF8.self)
    let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("WatchdogSec=") })
    let seconds = try #require(Int64(line.dropFirst("WatchdogSec=".count).dropLast()))
    // The launcher pings at half the timeout; a hang right after an answer is seen at the
    // second ping after it, no later than systemd would see a hung launcher.
    let pingInterval = seconds * 1_000_000 / 2
    #expect(2 * pingInterval <= seconds * 1_000_000)
    #expect(RecognizerLiveness.silenceLimit(pingInterval: pingInterval) > pingInterval)
    #expect(RecognizerLiveness.silenceLimit(pingInterval: pingInterval) < 2 * pingInterval)
  }
}
