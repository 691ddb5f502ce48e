import Synchronization
import Testing

@testable import GestureCore

@Suite("Landing router")
struct LandingRouterTests {
  /// Regions with no area: only the router puts contacts in them.
  let placeless = Area(x: 0, y: 0, width: 0, height: 0)

  func engine(_ bindings: [Binding], router: @escaping @Sendable (Point) -> Int?) throws -> DeviceEngine {
    let regions = [
      Region(name: "a", area: placeless, independent: true), Region(name: "b", area: placeless, independent: true),
    ]
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile(bindings, regions: regions)))
    engine.landingRouter = router
    return engine
  }

  func feed(_ engine: inout DeviceEngine, _ touches: Touches) -> [GestureEvent] {
    var out: [GestureEvent] = []
    for event in touches.events { engine.handle(event, into: &out) }
    engine.finish(at: touches.events.last!.time, into: &out)
    return out
  }

  @Test func routedContactsRunAsIndependentSequencesOfTheRegionsTheRouterNames() throws {
    var e = try engine([bind(.tap, region: 0), bind(.tap, region: 1)]) { $0.x < 0.5 ? 0 : 1 }
    var t = Touches()
    // Two one-finger taps at once, one per half: on the shared sequence a two-finger tap.
    t.down(1, 40, 50, at: 0)
    t.down(2, 160, 50, at: 10)
    t.up(1, at: 80)
    t.up(2, at: 90)
    let fired = feed(&e, t)
    #expect(fired.map(\.binding).sorted() == [0, 1])
    #expect(fired.map(\.region).sorted { ($0 ?? -1) < ($1 ?? -1) } == [0, 1])
  }

  @Test func theRouterIsAskedAtEachLandingSoThatARegionMayMoveBetweenThem() throws {
    let left = Atomic<Bool>(true)
    var e = try engine([bind(.tap, region: 0)]) { point in
      left.load(ordering: .relaxed) == (point.x < 0.5) ? 0 : nil
    }
    var first = Touches()
    first.tap(40, 50, at: 0)
    #expect(feed(&e, first).map(\.region) == [0])
    left.store(false, ordering: .relaxed)
    var second = Touches()
    second.tap(40, 50, at: 1000)
    second.tap(160, 50, at: 2000)
    #expect(feed(&e, second).map(\.time.microseconds) == [2_080_000])
  }

  @Test func aContactTheRouterLeavesOutJoinsTheSharedSequence() throws {
    var e = try engine([bind(.tap, fingers: 2)]) { _ in nil }
    var t = Touches()
    t.tap(40, 50, at: 0, fingers: 2)
    #expect(feed(&e, t).map(\.fingers) == [2])
  }
}

@Suite("Single tap at once")
struct SingleTapAtOnceTests {
  @Test func aSingleTapThatFiresAtOnceDoesSoBesideADoubleTapWhichStillFires() {
    var single = bind(.tap)
    single.firesAtOnce = true
    let bindings = [single, bind(.tap, taps: 2)]
    var t = Touches()
    t.tap(100, 50, at: 0)
    t.tap(100, 50, at: 200)
    t.tap(100, 50, at: 2000)
    #expect(
      summary(run(t, profile(bindings))) == [
        "tap taps=1 fingers=1 @80.0ms binding=0", "tap taps=2 fingers=1 @280.0ms binding=1",
        "tap taps=1 fingers=1 @2080.0ms binding=0",
      ])
    // Without it the single tap waits out the gap, and a double tap is no single tap.
    #expect(
      summary(run(t, profile([bind(.tap), bind(.tap, taps: 2)]))) == [
        "tap taps=2 fingers=1 @280.0ms binding=1", "tap taps=1 fingers=1 @2380.0ms binding=0",
      ])
  }
}

@Suite("Replacing a profile")
struct ReplaceProfileTests {
  let placeless = Area(x: 0, y: 0, width: 0, height: 0)

  @Test func sequencesInProgressKeepTheirProfileAndTheNextOnesTakeTheNew() throws {
    let regions = [
      Region(name: "a", area: placeless, independent: true), Region(name: "b", area: placeless, independent: true),
    ]
    var e = try #require(
      DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap, region: 0)], regions: regions)))
    e.landingRouter = { $0.x < 0.5 ? 0 : 1 }
    var out: [GestureEvent] = []
    var t = Touches()
    t.down(1, 40, 50, at: 0)
    let landing = t.events.count
    t.down(2, 160, 50, at: 20)
    t.up(2, at: 90)
    t.up(1, at: 120)
    t.tap(40, 50, at: 1000)
    for event in t.events[..<landing] { e.handle(event, into: &out) }
    // Region a's tap moves to index 1 and region b gains one, while a finger is down in a.
    #expect(e.profileGeneration == 0)
    e.replaceProfile(profile([bind(.tap, region: 1), bind(.tap, region: 0)], regions: regions))
    #expect(e.profileGeneration == 1)
    // The sequence in progress in a may still fire with the first profile.
    #expect(e.oldestGenerationInUse == 0)
    for event in t.events[landing...] { e.handle(event, into: &out) }
    #expect(e.oldestGenerationInUse == 1)
    e.finish(at: t.events.last!.time, into: &out)
    // b's tap and the next one in a: the new profile's indices; the tap in progress in a:
    // the old profile's.
    #expect(out.map(\.binding) == [0, 0, 1])
    #expect(out.map(\.region) == [1, 0, 0])
    #expect(out.map(\.time.microseconds) == [90_000, 120_000, 1_080_000])
    // Each says which profile's indices it carries.
    #expect(out.map(\.profileGeneration) == [1, 0, 1])
  }
}
