import Testing

@testable import GestureCore

@Suite("Touch sequences")
struct SequenceTests {
  @Test func aFingerLandingAfterTheLandingWindowSpoilsTheSequence() {
    var t = Touches()
    t.down(1, 80, 50, at: 0)
    t.down(2, 100, 50, at: 60)
    t.down(3, 120, 50, at: 200)  // late
    t.up(1, at: 250)
    t.up(2, at: 250)
    t.up(3, at: 250)
    #expect(run(t, profile([bind(.tap, fingers: 2), bind(.tap, fingers: 3)])).isEmpty)
  }

  @Test func aSixthFingerSpoilsTheSequence() {
    var t = Touches()
    for f in 1...6 { t.down(f, Double(f) * 20, 50, at: Double(f) * 5) }
    for f in 1...6 { t.up(f, at: 150) }
    #expect(run(t, profile([bind(.tap, fingers: 5)])).isEmpty)
  }

  @Test func aStuckContactIsDroppedAndThePanelWorksAgain() {
    var thresholds = Thresholds()
    thresholds.stuckContact = 2_000_000
    var t = Touches()
    t.down(9, 10, 10, at: 0)  // a ghost that never lifts
    t.tap(100, 50, at: 1000)  // while the ghost is down: a late finger, nothing fires
    t.tap(100, 50, at: 3000)  // after the ghost was dropped at 2 s
    let fired = run(t, profile([bind(.tap)], thresholds: thresholds))
    #expect(summary(fired) == ["tap taps=1 fingers=1 @3080.0ms binding=0"])
  }

  @Test func aContactIsStuckFromItsLastMoveBeyondTheSlopAndAStillOneFromItsLanding() throws {
    var thresholds = Thresholds()
    thresholds.stuckContact = 2_000_000
    var engine = try #require(
      DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap)], thresholds: thresholds)))
    engine.tracing = true
    var out: [GestureEvent] = []
    var t = Touches()
    t.down(1, 10, 10, at: 0)
    t.down(2, 150, 80, at: 100)
    t.move(1, 40, 10, at: 500)  // 30 mm, beyond the slop: the first contact is still from 500 ms on
    for event in t.events { engine.handle(event, into: &out) }
    func dropsUntil(_ microseconds: Int64) -> Int {
      engine.advance(to: Timestamp(microseconds: microseconds), into: &out)
      return engine.takeTrace().count { $0.contains("dropped: no movement") }
    }
    #expect(dropsUntil(2_099_999) == 0)
    #expect(dropsUntil(2_100_000) == 1)
    #expect(dropsUntil(2_499_999) == 0)
    #expect(dropsUntil(2_500_000) == 1)
    #expect(engine.nextDeadline == nil)
    #expect(engine.impossibleInputs == 0)
  }

  @Test func anIdleEngineAsksForNoDeadline() throws {
    var engine = try #require(
      DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap), bind(.tap, taps: 2)])))
    var out: [GestureEvent] = []
    #expect(engine.nextDeadline == nil)
    var t = Touches()
    t.tap(100, 50, at: 0, duration: 80)
    for event in t.events { engine.handle(event, into: &out) }
    #expect(engine.nextDeadline == Timestamp(microseconds: 380_000))
    engine.advance(to: Timestamp(microseconds: 379_999), into: &out)
    #expect(out.isEmpty)
    engine.advance(to: Timestamp(microseconds: 380_000), into: &out)
    #expect(out.count == 1)
    #expect(engine.nextDeadline == nil)
  }

  @Test func aDeviceThatGoesAwayFiresNothingFromHalfAGesture() throws {
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap), bind(.longPress)])))
    var out: [GestureEvent] = []
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    for event in t.events { engine.handle(event, into: &out) }
    engine.cancel(at: Timestamp(microseconds: 100_000), into: &out)
    engine.advance(to: Timestamp(microseconds: 10_000_000), into: &out)
    #expect(out.isEmpty)
    #expect(engine.nextDeadline == nil)
  }

  @Test func oneGesturePerSequence() {
    // A long press that then moves away like a swipe: the long press won.
    var t = Touches()
    t.down(1, 100, 80, at: 0)
    t.move(1, 100, 20, at: 700)
    t.up(1, at: 750)
    let fired = run(t, profile([bind(.longPress), bind(.swipe, .up)]))
    #expect(summary(fired) == ["long-press fingers=1 @500.0ms binding=0"])
  }

  @Test func anUnboundGestureDoesNotStealTheSequence() {
    // The same touch with no long-press binding is a swipe (it lasted 750 ms < 800 ms).
    var t = Touches()
    t.down(1, 100, 80, at: 0)
    t.move(1, 100, 20, at: 700)
    t.up(1, at: 750)
    #expect(run(t, profile([bind(.swipe, .up)])).map(\.event.direction) == [.up])
  }

  @Test func verboseTraceRecordsTransitions() throws {
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap)])))
    engine.tracing = true
    var out: [GestureEvent] = []
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    t.move(1, 110, 50, at: 50)
    t.up(1, at: 100)
    for event in t.events { engine.handle(event, into: &out) }
    let trace = engine.takeTrace()
    #expect(trace.contains { $0.contains("tap: possible → finger moved → failed (moved 10.0 mm > 5.0 mm)") })
    #expect(trace.contains { $0.contains("sequence: idle → finger down → landing") })
    #expect(trace.contains { $0.contains("sequence: landing → finger-landing elapsed → open") })
    #expect(trace.contains { $0.contains("sequence: open → last finger up → idle") })
    #expect(engine.takeTrace().isEmpty)
    #expect(engine.impossibleInputs == 0)
  }

  @Test func impossibleInputsAreCountedWithOrWithoutTheTrace() throws {
    for tracing in [false, true] {
      var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap)])))
      engine.tracing = tracing
      var out: [GestureEvent] = []
      // A contact the assembler never reported as down moves and lifts: an assembler bug
      // that must show, not vanish.
      var arbiter = GestureArbiter(profile: engine.profile, geometry: engine.geometry)
      arbiter.tracing = tracing
      let ghost = ContactChange(id: 99, phase: .moved, position: Point(x: 0.5, y: 0.5))
      arbiter.process(TouchFrame(time: Timestamp(microseconds: 10), changes: [ghost]), into: &out)
      var lift = ghost
      lift.phase = .ended
      arbiter.process(TouchFrame(time: Timestamp(microseconds: 20), changes: [lift]), into: &out)
      #expect(arbiter.impossibleInputs == 2)
      #expect(arbiter.traceLines.filter { $0.contains("impossible input") }.count == (tracing ? 2 : 0))
      #expect(out.isEmpty)
      #expect(engine.impossibleInputs == 0)
    }
  }
}
