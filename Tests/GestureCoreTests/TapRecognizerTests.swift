import Testing

@testable import GestureCore

@Suite("Tap")
struct TapRecognizerTests {
  @Test func singleTapFiresAtReleaseWithoutWaiting() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    let fired = run(t, profile([bind(.tap)]))
    #expect(summary(fired) == ["tap taps=1 fingers=1 @80.0ms binding=0"])
    #expect(fired.first?.event.position == Point(x: 0.5, y: 0.5))
  }

  @Test func movementUpToTapSlopIsStillATap() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.move(1, 102.9, 50, at: 40)
    t.up(1, at: 80)
    #expect(summary(run(t, profile([bind(.tap)]))) == ["tap taps=1 fingers=1 @80.0ms binding=0"])
  }

  @Test func movementBeyondTapSlopIsNoTap() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.move(1, 103.2, 50, at: 40)
    t.move(1, 100, 50, at: 60)  // coming back does not make it a tap again
    t.up(1, at: 80)
    #expect(run(t, profile([bind(.tap)])).isEmpty)
  }

  @Test func tapMaxDurationIsInclusive() {
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 300)
    t.tap(100, 50, at: 1000, duration: 301)
    #expect(summary(run(t, profile([bind(.tap)]))) == ["tap taps=1 fingers=1 @300.0ms binding=0"])
  }

  @Test func twoAndThreeFingerTapsCountStaggeredFingers() {
    var t = Touches()
    t.tap(50, 50, at: 0, duration: 120, fingers: 2)
    t.tap(50, 50, at: 1000, duration: 120, fingers: 3)
    let fired = run(t, profile([bind(.tap, fingers: 2), bind(.tap, fingers: 3)]))
    #expect(summary(fired) == ["tap taps=1 fingers=2 @125.0ms binding=0", "tap taps=1 fingers=3 @1130.0ms binding=1"])
  }

  @Test func aTapWithAnUnboundFingerCountFiresNothing() {
    var t = Touches()
    t.tap(50, 50, at: 0, fingers: 2)
    #expect(run(t, profile([bind(.tap)])).isEmpty)
  }

  @Test func regionComesFromTheFirstFingerDown() {
    let regions = [Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1)), Region(name: "right")]
    var t = Touches()
    t.tap(150, 50, at: 0)
    t.tap(20, 50, at: 1000)
    let fired = run(t, profile([bind(.tap, region: 0), bind(.tap, region: 1)], regions: regions))
    #expect(fired.map(\.event.region) == [1, 0])
    #expect(fired.map(\.event.binding) == [1, 0])
  }

  @Test func aRegionBindingShadowsARegionlessOne() {
    let regions = [Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1)), Region(name: "main")]
    var t = Touches()
    t.tap(5, 5, at: 0)
    t.tap(100, 50, at: 1000)
    let fired = run(t, profile([bind(.tap), bind(.tap, region: 0)], regions: regions))
    #expect(fired.map(\.event.binding) == [1, 0])
  }

  @Test func aPointOutsideEveryRegionHasNoRegionAndOnlyRegionlessBindingsApply() {
    let regions = [Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1))]
    var t = Touches()
    t.tap(100, 50, at: 0)
    let fired = run(t, profile([bind(.tap, region: 0), bind(.tap)], regions: regions))
    #expect(fired.map(\.event.binding) == [1])
    #expect(fired.first?.event.region == nil)
  }
}
