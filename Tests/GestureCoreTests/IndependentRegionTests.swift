import Testing

@testable import GestureCore

/// The test panel's two halves as regions: left (0) and right (1).
private func halves(independent: Bool) -> [Region] {
  [
    Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: independent),
    Region(name: "right", area: Area(x: 0.5, y: 0, width: 0.5, height: 1), independent: independent),
  ]
}

/// Frames every 10 ms from `start` to `end` (both included): `body` writes each frame's
/// changes without syncing, the frame is synced after it.
private func frames(_ t: inout Touches, from start: Double, to end: Double, _ body: (Double, inout Touches) -> Void) {
  var ms = start
  while ms <= end {
    body(ms, &t)
    t.sync(at: ms)
    ms += 10
  }
}

/// Where a finger moving from `a` to `b` between `start` and `end` is at `ms`.
private func along(_ a: Double, _ b: Double, _ ms: Double, _ start: Double, _ end: Double) -> Double {
  a + (b - a) * min(1, max(0, (ms - start) / (end - start)))
}

@Suite("Independent regions: several sequences on one panel")
struct IndependentRegionTests {
  /// Two pinches out at once from `start`, one in each half, fingers 20 mm apart going to 40 mm.
  private func twoPinches(_ t: inout Touches, from start: Double) {
    frames(&t, from: start, to: start + 300) { ms, t in
      if ms == start {
        t.downWithoutSync(1, 30, 50, at: ms)
        t.downWithoutSync(2, 50, 50, at: ms)
        t.downWithoutSync(3, 130, 50, at: ms)
        t.downWithoutSync(4, 150, 50, at: ms)
      } else if ms == start + 300 {
        for f in 1...4 { t.upWithoutSync(f, at: ms) }
      } else {
        t.moveWithoutSync(2, along(50, 70, ms, start + 100, start + 250), 50, at: ms)
        t.moveWithoutSync(4, along(150, 170, ms, start + 100, start + 250), 50, at: ms)
      }
    }
  }

  private func twoPinches() -> Touches {
    var t = Touches()
    twoPinches(&t, from: 0)
    return t
  }

  @Test func twoPinchesAtOnceInTwoIndependentHalvesBothFire() {
    let bindings = [bind(.pinch, .out, name: "zoom")]
    let fired = run(twoPinches(), profile(bindings, regions: halves(independent: true)))
    #expect(fired.map(\.event.gesture) == [.pinch, .pinch])
    #expect(Set(fired.map(\.event.region)) == [0, 1])
    #expect(Set(fired.map(\.event.sequence)).count == 2)
    #expect(fired.allSatisfy { $0.event.fingers == 2 && ($0.event.scale ?? 0) >= 1.25 })
    // Without `independent`, the panel is one sequence of four fingers: no pinch.
    #expect(run(twoPinches(), profile(bindings, regions: halves(independent: false))).isEmpty)
  }

  /// One finger drags across the left half for a second while the right half gets a tap at
  /// 200 ms and a quick swipe right at 500 ms.
  private func dragWithTapAndSwipe() -> Touches {
    var t = Touches()
    frames(&t, from: 0, to: 1000) { ms, t in
      if ms == 0 {
        t.downWithoutSync(1, 10, 50, at: ms)
      } else {
        t.moveWithoutSync(1, along(10, 90, ms, 0, 1000), 50, at: ms)
      }
      if ms == 200 { t.downWithoutSync(2, 150, 50, at: ms) }
      if ms == 260 { t.upWithoutSync(2, at: ms) }
      if ms == 500 { t.downWithoutSync(3, 110, 30, at: ms) }
      if ms > 500 && ms < 650 { t.moveWithoutSync(3, along(110, 170, ms, 500, 650), 30, at: ms) }
      if ms == 650 { t.upWithoutSync(3, at: ms) }
      if ms == 1000 { t.upWithoutSync(1, at: ms) }
    }
    return t
  }

  @Test func aTapAndASwipeOnOneHalfFireDuringADragOnTheOther() {
    let bindings = [
      bind(.tap, name: "tap"), bind(.swipe, .right, name: "swipe"),
      bind(.pan, .right, region: 0, name: "pan", step: 10),
    ]
    let fired = run(dragWithTapAndSwipe(), profile(bindings, regions: halves(independent: true)))
    let pan = fired.filter { $0.event.gesture == .pan }
    // 80 mm in 10 mm steps, less the first step's recognition distance.
    #expect(pan.filter { $0.event.step != nil }.count >= 7)
    #expect(pan.allSatisfy { $0.event.region == 0 })
    #expect(pan.last?.event.endReason == .lift)
    let right = fired.filter { $0.event.gesture != .pan }
    #expect(right.map(\.event.gesture) == [.tap, .swipe])
    #expect(right.allSatisfy { $0.event.region == 1 })
    #expect(right.first.map { $0.ms >= 260 && $0.ms < 500 } == true)
    // Without `independent`, the tap is a late finger of the drag's sequence: its steps end
    // there, and neither the tap nor the swipe fires.
    let shared = run(dragWithTapAndSwipe(), profile(bindings, regions: halves(independent: false)))
    #expect(shared.allSatisfy { $0.event.gesture == .pan })
    #expect(shared.last?.event.endSteps != nil && shared.last?.event.endReason == .fingers)
    #expect(shared.last.map { $0.ms == 200 } == true)
  }

  @Test func aSwipeBelongsToTheHalfItStartedIn() {
    var t = Touches()
    t.drag([(1, (60, 50), (140, 50))], from: 0, to: 200)
    let bindings = [
      bind(.swipe, .right, region: 0, name: "left swipe"), bind(.swipe, .right, region: 1, name: "right swipe"),
    ]
    for independent in [true, false] {
      let fired = run(t, profile(bindings, regions: halves(independent: independent)))
      #expect(fired.map(\.event.binding) == [0])
      #expect(fired.first?.event.region == 0)
    }
  }

  /// A tap's finger creeps within the slop, passes it at 50 ms (3.5 mm) and lifts at 70 ms:
  /// beyond the slop for the lift window and no longer, it is still a tap. Each move is timed
  /// by its own frame, in an independent region as in the shared sequence.
  @Test func aMoveInAnIndependentRegionIsTimedByItsOwnFrame() {
    var t = Touches()
    frames(&t, from: 0, to: 70) { ms, t in
      switch ms {
      case 0: t.downWithoutSync(1, 30, 50, at: ms)
      case 70: t.upWithoutSync(1, at: ms)
      case 50, 60: t.moveWithoutSync(1, 33.5, 50, at: ms)
      default: t.moveWithoutSync(1, 30 + ms / 100, 50, at: ms)
      }
    }
    let bindings = [bind(.tap, name: "tap")]
    for independent in [true, false] {
      let fired = run(t, profile(bindings, regions: halves(independent: independent)))
      #expect(summary(fired) == ["tap taps=1 fingers=1 @70.0ms binding=0"])
    }
  }

  @Test func aThreeFingerRegionlessSwipeInsideOneHalf() {
    var t = Touches()
    t.drag([(1, (20, 80), (20, 20)), (2, (35, 80), (35, 20)), (3, (50, 80), (50, 20))], from: 0, to: 200)
    let bindings = [bind(.swipe, fingers: 3, .up, name: "three up")]
    for independent in [true, false] {
      let fired = run(t, profile(bindings, regions: halves(independent: independent)))
      #expect(fired.map(\.event.gesture) == [.swipe])
      #expect(fired.first?.event.fingers == 3 && fired.first?.event.region == 0)
    }
  }

  /// A finger rests on the left half for 1.2 s; the right half is tapped at 200 and 700 ms.
  private func holdWhileTapping() -> Touches {
    var t = Touches()
    frames(&t, from: 0, to: 1200) { ms, t in
      if ms == 0 { t.downWithoutSync(1, 40, 50, at: ms) }
      if ms == 200 || ms == 700 { t.downWithoutSync(2, 150, 50, at: ms) }
      if ms == 260 || ms == 760 { t.upWithoutSync(2, at: ms) }
      if ms == 1200 { t.upWithoutSync(1, at: ms) }
    }
    return t
  }

  @Test func aLongPressOnOneHalfWhileTheOtherTaps() {
    let bindings = [bind(.longPress, name: "hold"), bind(.tap, name: "tap")]
    let fired = run(holdWhileTapping(), profile(bindings, regions: halves(independent: true)))
    #expect(fired.map(\.event.gesture) == [.tap, .longPress, .tap])
    #expect(fired.map(\.event.region) == [1, 0, 1])
    #expect(fired[1].ms == 500)
    // Without `independent`, the first tap lands late in the long press's sequence: nothing
    // fires until every finger is up.
    #expect(run(holdWhileTapping(), profile(bindings, regions: halves(independent: false))).isEmpty)
  }

  /// A double tap on the left half, the right half tapped between its two taps.
  private func doubleTapWithATouchBetween() -> Touches {
    var t = Touches()
    t.down(1, 40, 50, at: 0)
    t.up(1, at: 60)
    t.down(2, 150, 50, at: 100)
    t.up(2, at: 150)
    t.down(1, 40, 50, at: 200)
    t.up(1, at: 260)
    return t
  }

  @Test func aTouchInAnotherIndependentRegionNeitherEndsNorFiresAPendingMultiTap() {
    let bindings = [bind(.tap, taps: 2, name: "double")]
    let fired = run(doubleTapWithATouchBetween(), profile(bindings, regions: halves(independent: true)))
    #expect(fired.map(\.event.taps) == [2])
    #expect(fired.first?.event.region == 0)
    // Without `independent`, the touch in the other region ends the chain at one tap.
    #expect(run(doubleTapWithATouchBetween(), profile(bindings, regions: halves(independent: false))).isEmpty)
  }

  @Test func anIndependentRegionSeesItsBindingsAndTheRegionlessOnesWithShadowing() {
    var t = Touches()
    t.tap(40, 50, at: 0)
    t.tap(150, 50, at: 1000)
    let bindings = [bind(.tap, region: 0, name: "left tap"), bind(.tap, name: "any tap")]
    let fired = run(t, profile(bindings, regions: halves(independent: true)))
    #expect(fired.map(\.event.binding) == [0, 1])
    #expect(fired.map(\.event.region) == [0, 1])
  }

  @Test func aContactOutsideTheIndependentRegionsJoinsTheSharedSequence() {
    // Left independent, right an ordinary region: two fingers on the right, one landing
    // on the left between them, make one two-finger tap on the right.
    let regions = [
      Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: true),
      Region(name: "right", area: Area(x: 0.5, y: 0, width: 0.5, height: 1)),
    ]
    var t = Touches()
    t.down(1, 120, 50, at: 0)
    t.down(2, 40, 50, at: 20)
    t.down(3, 135, 50, at: 40)
    t.up(1, at: 100)
    t.up(3, at: 110)
    t.up(2, at: 120)
    let bindings = [bind(.tap, fingers: 2, name: "two"), bind(.tap, name: "one")]
    let fired = run(t, profile(bindings, regions: regions))
    #expect(fired.map(\.event.binding).sorted() == [0, 1])
    #expect(fired.first { $0.event.binding == 0 }?.event.region == 1)
    #expect(fired.first { $0.event.binding == 1 }?.event.region == 0)
  }

  @Test func theSequencesOfIndependentRegionsAreReusedRoundAfterRound() throws {
    var engine = try #require(
      DeviceEngine(
        device: TestPanel.device, profile: profile([bind(.pinch, .out)], regions: halves(independent: true))))
    var t = Touches()
    for round in 0..<3 { twoPinches(&t, from: Double(round) * 1000) }
    var out: [GestureEvent] = []
    for event in t.events { engine.handle(event, into: &out) }
    engine.advance(to: Timestamp(microseconds: 5_000_000), into: &out)
    #expect(out.filter { $0.gesture == .pinch }.count == 6)
    #expect(Set(out.map(\.sequence)).count == 6)
    #expect(engine.arbiter.independentSequences == 2)
    #expect(engine.nextDeadline == nil)
  }

  @Test func aCancelEndsTheStepsOfEverySequenceWithTheReasonCancel() throws {
    var engine = try #require(
      DeviceEngine(
        device: TestPanel.device,
        profile: profile([bind(.pinch, .out, name: "zoom", step: 10)], regions: halves(independent: true))))
    var t = Touches()
    frames(&t, from: 0, to: 250) { ms, t in
      if ms == 0 {
        for (f, x) in [(1, 30.0), (2, 50.0), (3, 130.0), (4, 150.0)] { t.downWithoutSync(f, x, 50, at: ms) }
      } else {
        t.moveWithoutSync(2, along(50, 70, ms, 100, 250), 50, at: ms)
        t.moveWithoutSync(4, along(150, 170, ms, 100, 250), 50, at: ms)
      }
    }
    var out: [GestureEvent] = []
    for event in t.events { engine.handle(event, into: &out) }
    engine.cancel(at: Timestamp(microseconds: 400_000), into: &out)
    let ends = out.filter { $0.endSteps != nil }
    #expect(ends.count == 2)
    #expect(Set(ends.map(\.region)) == [0, 1])
    #expect(ends.allSatisfy { $0.endReason == .cancel })
    #expect(out.filter { $0.endSteps == nil }.allSatisfy { $0.endReason == nil })
  }

  @Test func aTapChainInAnIndependentRegionIsSeenByTheBatchedReading() throws {
    var engine = try #require(
      DeviceEngine(
        device: TestPanel.device, profile: profile([bind(.tap, taps: 2)], regions: halves(independent: true))))
    var out: [GestureEvent] = []
    var t = Touches()
    t.tap(150, 50, at: 0, duration: 60)
    for event in t.events { engine.handle(event, into: &out) }
    // The chain waits for its second tap: its gap's end can fire, moves cannot yet.
    #expect(engine.nextFiringDeadline == Timestamp(microseconds: 360_000))
    #expect(!engine.firesBetweenContactChanges)
    var second = Touches()
    second.down(1, 150, 50, at: 100)
    for event in second.events { engine.handle(event, into: &out) }
    // The second tap is under way: sliding beyond the slop would end the chain at once.
    #expect(engine.firesBetweenContactChanges)
    #expect(engine.frameSequence == 2)
    #expect(out.isEmpty)
  }

  /// A frame's sequence is the first independent one active as the frame begins: after a
  /// deadline ended one (a contact dropped as stuck) and after a cancel ended them all.
  @Test func aFramesSequenceIsTheFirstIndependentOneStillActive() throws {
    var thresholds = Thresholds()
    thresholds.stuckContact = 1_000_000
    var engine = try #require(
      DeviceEngine(
        device: TestPanel.device,
        profile: profile([bind(.tap)], regions: halves(independent: true), thresholds: thresholds)))
    var out: [GestureEvent] = []
    var t = Touches()
    var fed = 0
    func feedNew() {
      for event in t.events[fed...] { engine.handle(event, into: &out) }
      fed = t.events.count
    }
    t.down(1, 30, 50, at: 0)
    t.down(2, 130, 50, at: 10)
    t.move(2, 135, 50, at: 500)
    feedNew()
    #expect(engine.frameSequence == 1)
    // Finger 1 has not moved for a second: dropped at 1000 ms, its sequence ends.
    t.move(2, 140, 50, at: 1100)
    feedNew()
    #expect(engine.frameSequence == 2)
    engine.cancel(at: Timestamp(microseconds: 1_200_000), into: &out)
    t.up(1, at: 1300)
    t.up(2, at: 1300)
    t.down(3, 40, 50, at: 1400)
    feedNew()
    #expect(engine.frameSequence == 3)
  }
}
