import Testing

@testable import GestureCore

@Suite("Long press")
struct LongPressRecognizerTests {
  @Test func firesWhileHeldWhenTheTimeHasPassed() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.move(1, 101, 50, at: 300)
    t.up(1, at: 2000)
    let fired = run(t, profile([bind(.longPress), bind(.tap)]))
    #expect(summary(fired) == ["long-press fingers=1 @500.0ms binding=0"])
  }

  @Test func liftingBeforeTheTimeFiresNothing() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.up(1, at: 450)
    #expect(run(t, profile([bind(.longPress)])).isEmpty)
  }

  @Test func liftingExactlyAtTheTimeFiresNothing() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.up(1, at: 500)
    #expect(run(t, profile([bind(.longPress)])).isEmpty)
  }

  @Test func movingBeyondSlopFiresNothing() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.move(1, 100, 54, at: 200)
    t.up(1, at: 900)
    #expect(run(t, profile([bind(.longPress)])).isEmpty)
  }

  @Test func twoFingerLongPress() {
    var t = Touches()
    t.down(1, 80, 50, at: 0)
    t.down(2, 110, 50, at: 60)
    t.up(1, at: 900)
    t.up(2, at: 900)
    let fired = run(t, profile([bind(.longPress), bind(.longPress, fingers: 2)]))
    #expect(summary(fired) == ["long-press fingers=2 @500.0ms binding=1"])
  }

  @Test func aLongerPerDeviceTimeIsHonoured() {
    var thresholds = Thresholds()
    thresholds.longPress = 800_000
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.up(1, at: 700)
    t.down(1, 100, 50, at: 2000)
    t.up(1, at: 2900)
    let fired = run(t, profile([bind(.longPress)], thresholds: thresholds))
    #expect(summary(fired) == ["long-press fingers=1 @2800.0ms binding=0"])
  }

  @Test func aStillContactAtTheEndOfARecordingIsCancelledNotPressed() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.sync(at: 200)
    #expect(run(t, profile([bind(.longPress)])).isEmpty)
  }
}
