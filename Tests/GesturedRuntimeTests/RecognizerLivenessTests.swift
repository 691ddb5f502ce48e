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
    var now = start
    for _ in 0..<100 {
      now = now + ping
      #expect(!liveness.isHung(at: now))
      // The answer comes a little after the ping, even a late one.
      liveness.heard(at: now + 2_000_000)
    }
    #expect(liveness.deadline == now + 2_000_000 + limit)
  }

  @Test func aRecognizerHungRightAfterAnsweringIsNoticedAtTheSecondPingAfter() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    liveness.heard(at: start + 1)
    #expect(!liveness.isHung(at: start + ping))
    #expect(liveness.isHung(at: start + 2 * ping))
  }

  @Test func silenceBeyondTheLimitIsAHangAndNotBefore() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: 8_000_000)
    liveness.heard(at: start + 1_000_000)
    #expect(liveness.deadline == start + 9_000_000)
    #expect(!liveness.isHung(at: start + 9_000_000))
    #expect(liveness.isHung(at: start + 9_000_001))
  }

  @Test func aRecognizerThatNeverSpeaksHangsOneLimitAfterItStarted() {
    let liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    #expect(!liveness.isHung(at: start + limit))
    #expect(liveness.isHung(at: start + limit + 1))
  }

  @Test func aMessageStampedEarlierDoesNotMoveTheDeadlineBack() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: limit)
    liveness.heard(at: start + 5_000_000)
    liveness.heard(at: start + 1_000_000)
    #expect(liveness.lastHeard == start + 5_000_000)
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
