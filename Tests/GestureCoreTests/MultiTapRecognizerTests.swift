import Testing

@testable import GestureCore

@Suite("Multi-tap")
struct MultiTapRecognizerTests {
  let singleAndDouble = profile([bind(.tap), bind(.tap, taps: 2)])

  @Test func doubleTapFiresAtSecondReleaseAndNoSingleTap() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(101, 50, at: 250, duration: 80)
    #expect(summary(run(t, singleAndDouble)) == ["tap taps=2 fingers=1 @330.0ms binding=1"])
  }

  @Test func aSingleTapWaitsForTheGapWhenADoubleTapIsBound() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    #expect(summary(run(t, singleAndDouble)) == ["tap taps=1 fingers=1 @380.0ms binding=0"])
  }

  @Test func theGapIsInclusive() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(100, 50, at: 380, duration: 80)  // exactly multi-tap-gap after the release
    #expect(summary(run(t, singleAndDouble)) == ["tap taps=2 fingers=1 @460.0ms binding=1"])
  }

  @Test func twoSlowTapsAreTwoSingleTaps() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(100, 50, at: 430, duration: 80)
    #expect(
      summary(run(t, singleAndDouble)) == [
        "tap taps=1 fingers=1 @380.0ms binding=0", "tap taps=1 fingers=1 @810.0ms binding=0",
      ])
  }

  @Test func aFarTapEndsTheChainAtItsDown() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(112, 50, at: 200, duration: 80)  // 12 mm > multi-tap-distance
    #expect(
      summary(run(t, singleAndDouble)) == [
        "tap taps=1 fingers=1 @200.0ms binding=0", "tap taps=1 fingers=1 @580.0ms binding=0",
      ])
  }

  @Test func multiTapDistanceIsMeasuredFromTheFirstTap() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 60)
    t.tap(108, 50, at: 150, duration: 60)
    t.tap(116, 50, at: 300, duration: 60)  // 8 mm from the second, 16 mm from the first
    let fired = run(t, profile([bind(.tap, taps: 2), bind(.tap, taps: 3)]))
    #expect(summary(fired) == ["tap taps=2 fingers=1 @300.0ms binding=0"])
  }

  @Test func anotherRegionEndsTheChainAtItsDown() {
    let regions = [Region(name: "a", area: Area(x: 0, y: 0, width: 0.5, height: 1)), Region(name: "b")]
    var t = Touches()
    t.tap(98, 50, at: 0, duration: 80)
    t.tap(102, 50, at: 200, duration: 80)  // 4 mm away but across the border
    let fired = run(t, profile([bind(.tap), bind(.tap, taps: 2)], regions: regions))
    #expect(fired.map(\.ms) == [200, 580])
    #expect(fired.map(\.event.region) == [0, 1])
  }

  @Test func aChainEndsEarlyAtTheHighestBoundCount() {
    let regions = [Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1))]
    var t = Touches()
    for i in 0..<5 { t.tap(5, 5, at: Double(i) * 200, duration: 60) }
    let fired = run(t, profile([bind(.tap, taps: 5, region: 0)], regions: regions))
    #expect(summary(fired) == ["tap taps=5 fingers=1 @860.0ms binding=0"])
    #expect(fired.first?.event.position == Point(x: 0.025, y: 0.05))
  }

  @Test func aChainWithAnUnboundCountFiresNothing() {
    var t = Touches()
    for i in 0..<3 { t.tap(100, 50, at: Double(i) * 200, duration: 60) }
    #expect(run(t, profile([bind(.tap, taps: 2), bind(.tap, taps: 5)])).isEmpty)
  }

  @Test func aDifferentFingerCountEndsTheChainWhenTheCountIsKnown() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(100, 50, at: 200, duration: 150, fingers: 2)  // second finger lands at 210
    let fired = run(t, profile([bind(.tap), bind(.tap, taps: 2), bind(.tap, fingers: 2)]))
    // The count is fixed when the landing window closes (200 + 100 ms).
    #expect(
      summary(fired) == [
        "tap taps=1 fingers=1 @300.0ms binding=0", "tap taps=1 fingers=2 @355.0ms binding=2",
      ])
  }

  @Test func aTouchThatIsNotATapEndsTheChainThenAndIsJudgedOnItsOwn() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.down(1, 100, 50, at: 200)
    t.up(1, at: 800)
    let fired = run(t, profile([bind(.tap), bind(.tap, taps: 2), bind(.longPress)]))
    // Still down at 200 + tap-max-duration: the pending tap fires; the long press at 700.
    #expect(
      summary(fired) == ["tap taps=1 fingers=1 @500.0ms binding=0", "long-press fingers=1 @700.0ms binding=2"])
  }

  @Test func twoFingerDoubleTap() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80, fingers: 2)
    t.tap(101, 51, at: 250, duration: 80, fingers: 2)
    let fired = run(t, profile([bind(.tap, fingers: 2), bind(.tap, taps: 2, fingers: 2)]))
    #expect(summary(fired) == ["tap taps=2 fingers=2 @335.0ms binding=1"])
  }

  @Test func theLastTapOfARecordingIsStillReported() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    t.tap(100, 50, at: 200, duration: 80)
    let fired = run(t, profile([bind(.tap, taps: 2), bind(.tap, taps: 3)]))
    #expect(summary(fired) == ["tap taps=2 fingers=1 @580.0ms binding=0"])
  }
}
