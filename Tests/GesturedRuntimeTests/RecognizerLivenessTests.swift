import GestureCore
import GesturedSystem
import Testing

@testable import GesturedRuntime

@Suite("The launcher's judgement of a silent recognizer")
struct RecognizerLivenessTests {
  let start = Timestamp(microseconds: 50_000_000)

  @Test func aRecognizerThatKeepsSendingNeverHangs() {
    var liveness = RecognizerLiveness(startedAt: start)
    var now = start
    for _ in 0..<100 {
      now = now + RecognizerLiveness.interval
      #expect(!liveness.isHung(at: now))
      liveness.heard(at: now)
    }
    #expect(liveness.deadline == now + RecognizerLiveness.defaultSilenceLimit)
  }

  @Test func silenceBeyondTheLimitIsAHangAndNotBefore() {
    var liveness = RecognizerLiveness(startedAt: start, silenceLimit: 8_000_000)
    liveness.heard(at: start + 1_000_000)
    #expect(liveness.deadline == start + 9_000_000)
    #expect(!liveness.isHung(at: start + 9_000_000))
    #expect(liveness.isHung(at: start + 9_000_001))
  }

  @Test func aRecognizerThatNeverSpeaksHangsOneLimitAfterItStarted() {
    let liveness = RecognizerLiveness(startedAt: start)
    #expect(!liveness.isHung(at: start + RecognizerLiveness.defaultSilenceLimit))
    #expect(liveness.isHung(at: start + RecognizerLiveness.defaultSilenceLimit + 1))
  }

  @Test func aMessageStampedEarlierDoesNotMoveTheDeadlineBack() {
    var liveness = RecognizerLiveness(startedAt: start)
    liveness.heard(at: start + 5_000_000)
    liveness.heard(at: start + 1_000_000)
    #expect(liveness.lastHeard == start + 5_000_000)
  }

  @Test func theLimitSpansSeveralKeepAlivesAndStaysWellUnderTheUnitsWatchdog() throws {
    let bytes = try InputFile.read(path: packageRoot + "/systemd/gestured.service", maximumSize: 1 << 16)
    let unit = String(decoding: bytes, as: UTF8.self)
    let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("WatchdogSec=") })
    let seconds = try #require(Int64(line.dropFirst("WatchdogSec=".count).dropLast()))
    #expect(RecognizerLiveness.defaultSilenceLimit >= 3 * RecognizerLiveness.interval)
    #expect(RecognizerLiveness.defaultSilenceLimit <= seconds * 1_000_000 / 2)
  }
}
