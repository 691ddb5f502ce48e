import Testing

@testable import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// Runs a script through an engine that reports the stream; the recording ends (`finish`)
/// at `end` ms, or at its last event.
func runWithStream(_ touches: Touches, _ profile: Profile, end: Double? = nil, reportsStream: Bool = true) throws
  -> (fired: [GestureEvent], stream: [GestureStreamEvent])
{
  var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile))
  engine.reportsStream = reportsStream
  var fired: [GestureEvent] = []
  for event in touches.events { engine.handle(event, into: &fired) }
  let last = end.map { Timestamp(microseconds: Int64($0 * 1000)) } ?? touches.events.last?.time
  engine.finish(at: last ?? Timestamp(microseconds: 0), into: &fired)
  return (fired, engine.streamEvents)
}

/// The stream compactly: "kind phase[ reason]".
func phases(_ stream: [GestureStreamEvent]) -> [String] {
  var result: [String] = []
  for event in stream {
    let line = "\(event.gesture.rawValue) \(event.phase.rawValue)" + (event.reason.map { " \($0.rawValue)" } ?? "")
    // Runs of `changed` are one entry: how many there are depends on the frames.
    if event.phase == .changed, result.last == line { continue }
    result.append(line)
  }
  return result
}

@Suite("The continuous stream")
struct StreamTests {
  @Test func aPinchFromThirtyToSixtyMillimetresEndsAtScaleTwo() throws {
    var t = Touches()
    t.drag([(1, (85, 50), (70, 50)), (2, (115, 50), (130, 50))], from: 0, to: 400, steps: 40)
    let (fired, stream) = try runWithStream(t, profile([bind(.pinch, .out, step: 10)]))
    #expect(phases(stream) == ["pinch began", "pinch changed", "pinch ended lift"])
    let last = try #require(stream.last)
    #expect(abs(last.values.scale - 2) < 1e-9)
    #expect(last.fingers == 2 && last.sequence == 1 && last.region == nil)
    #expect(abs(last.values.cx - 0.5) < 1e-9 && abs(last.values.cy - 0.5) < 1e-9)
    // Steps come from the same values: 1.1^7 ≤ 2 < 1.1^8.
    #expect(fired.compactMap(\.step).last == 7)
    #expect(fired.last?.endReason == .lift)
    // Began at recognition (pinch-out 1.25), measured from the reference, not from there.
    #expect(try #require(stream.first).values.scale >= 1.25)
  }

  @Test func aSixtyMillimetrePanInFourHundredMillisecondsMovesAtOneHundredFiftyPerSecond() throws {
    var t = Touches()
    t.drag([(1, (40, 50), (100, 50))], from: 0, to: 400, steps: 40)
    let (_, stream) = try runWithStream(t, profile([bind(.pan, .right, step: 10)]))
    #expect(phases(stream) == ["pan began", "pan changed", "pan ended lift"])
    // Once the window holds 100 ms of movement: 150 mm/s, 0 down.
    for event in stream where event.time.microseconds >= 100_000 {
      #expect(abs(event.values.vx - 150) < 1, "\(event)")
      #expect(abs(event.values.vy) < 1e-9)
    }
    #expect(abs(try #require(stream.last).values.dx - 60) < 0.1)
  }

  @Test func aQuarterTurnInFourHundredFiftyMillisecondsTurnsAtTwoHundredDegreesPerSecond() throws {
    var t = Touches()
    func around(_ degrees: Double) -> ((Double, Double), (Double, Double)) {
      let r = degrees * Double.pi / 180
      return ((100 - 20 * cos(r), 50 - 20 * sin(r)), (100 + 20 * cos(r), 50 + 20 * sin(r)))
    }
    t.down(1, around(0).0.0, around(0).0.1, at: 0)
    t.down(2, around(0).1.0, around(0).1.1, at: 0)
    for frame in 1...45 {
      let (a, b) = around(2 * Double(frame))
      t.moveWithoutSync(1, a.0, a.1, at: Double(frame) * 10)
      t.moveWithoutSync(2, b.0, b.1, at: Double(frame) * 10)
      t.sync(at: Double(frame) * 10)
    }
    t.upWithoutSync(1, at: 460)
    t.upWithoutSync(2, at: 460)
    t.sync(at: 460)
    let (_, stream) = try runWithStream(t, profile([bind(.rotate, .clockwise, step: 15)]))
    #expect(phases(stream) == ["rotate began", "rotate changed", "rotate ended lift"])
    let atEnd = try #require(stream.last { $0.phase == .changed && $0.time.microseconds == 450_000 })
    // 2° per 10 ms, rounded to the panel's 0.05 mm units.
    #expect(abs(atEnd.values.vangle - 200) < 5)
    #expect(abs(atEnd.values.angle - 90) < 1)
  }

  @Test func aRecordingThatEndsWithFingersDownCancelsTheStream() throws {
    var t = Touches()
    t.drag([(1, (40, 50), (100, 50))], from: 0, to: 400, steps: 40, lift: false)
    let (fired, stream) = try runWithStream(t, profile([bind(.pan, .right, step: 10)]))
    #expect(phases(stream) == ["pan began", "pan changed", "pan cancelled cancel"])
    #expect(fired.last?.endReason == .cancel && fired.last?.endSteps == 6)
  }

  @Test func aDeviceGoneOrAReloadCancelsTheStream() throws {
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile([bind(.pan, .right, step: 10)])))
    engine.reportsStream = true
    var t = Touches()
    t.drag([(1, (40, 50), (100, 50))], from: 0, to: 400, steps: 40, lift: false)
    var fired: [GestureEvent] = []
    for event in t.events { engine.handle(event, into: &fired) }
    engine.cancel(at: Timestamp(microseconds: 500_000), into: &fired)
    #expect(phases(engine.streamEvents) == ["pan began", "pan changed", "pan cancelled cancel"])
    #expect(engine.streamEvents.last?.time == Timestamp(microseconds: 500_000))
    #expect(fired.last?.endReason == .cancel)
  }

  @Test func aFingerCountChangeEndsTheStreamAndItDoesNotBeginAgainUntilEveryFingerLifted() throws {
    var t = Touches()
    t.down(1, 40, 50, at: 0)
    for frame in 1...20 { t.move(1, 40 + Double(frame) * 2, 50, at: Double(frame) * 10) }
    t.down(2, 90, 70, at: 210)  // late: the count changed
    for frame in 1...10 { t.move(1, 80 + Double(frame) * 2, 50, at: 210 + Double(frame) * 10) }
    t.up(2, at: 320)
    for frame in 1...10 { t.move(1, 100 + Double(frame) * 2, 50, at: 320 + Double(frame) * 10) }
    t.up(1, at: 430)
    t.drag([(1, (40, 50), (100, 50))], from: 1000, to: 1400, steps: 20)
    let (fired, stream) = try runWithStream(t, profile([bind(.pan, .right, step: 10)]))
    #expect(
      phases(stream) == [
        "pan began", "pan changed", "pan ended fingers", "pan began", "pan changed", "pan ended lift",
      ])
    #expect(stream.filter { $0.phase == .began }.map(\.sequence) == [1, 2])
    #expect(fired.filter { $0.endSteps != nil }.map(\.endReason) == [.fingers, .lift])
  }

  @Test func withoutTheStreamNothingIsReportedAndTheFiringsAreTheSame() throws {
    var t = Touches()
    t.drag([(1, (85, 50), (70, 50)), (2, (115, 50), (130, 50))], from: 0, to: 400, steps: 40)
    t.drag([(1, (40, 50), (100, 50))], from: 1000, to: 1400, steps: 40)
    let bindings = profile([bind(.pinch, .out, step: 10), bind(.pan, .right, step: 10), bind(.longPress)])
    let off = try runWithStream(t, bindings, reportsStream: false)
    let on = try runWithStream(t, bindings)
    #expect(off.stream.isEmpty && !on.stream.isEmpty)
    #expect(off.fired == on.fired)
  }

  @Test func aSimultaneousGroupStreamsEachMemberWithTheSameValues() throws {
    var t = Touches()
    t.down(1, 80, 50, at: 0)
    t.down(2, 120, 50, at: 0)
    for frame in 1...30 {
      let r = Double(frame) * Double.pi / 180
      let span = 20 + Double(frame)
      t.moveWithoutSync(1, 100 - span * cos(r), 50 - span * sin(r), at: Double(frame) * 10)
      t.moveWithoutSync(2, 100 + span * cos(r), 50 + span * sin(r), at: Double(frame) * 10)
      t.sync(at: Double(frame) * 10)
    }
    t.upWithoutSync(1, at: 320)
    t.upWithoutSync(2, at: 320)
    t.sync(at: 320)
    let (_, stream) = try runWithStream(
      t, profile([bind(.pinch, .out, step: 10), bind(.rotate, .clockwise, step: 5)], simultaneous: [.pinch, .rotate]))
    #expect(Set(stream.filter { $0.phase == .began }.map(\.gesture)) == [.pinch, .rotate])
    let ends = stream.filter { $0.phase == .ended }
    #expect(ends.count == 2 && ends[0].values == ends[1].values)
  }
}

@Suite("Swipe release speed")
struct SwipeReleaseSpeedTests {
  var rightwards: Profile {
    var thresholds = Thresholds()
    thresholds.swipeMinSpeed = 300
    return profile([bind(.swipe, .right)], thresholds: thresholds)
  }

  @Test func aFlickAfterASlowDragFires() throws {
    var t = Touches()
    t.down(1, 30, 50, at: 0)
    // 30 mm in a second, then 48 mm in 60 ms.
    for frame in 1...100 { t.move(1, 30 + Double(frame) * 0.3, 50, at: Double(frame) * 10) }
    for frame in 1...6 { t.move(1, 60 + Double(frame) * 8, 50, at: 1000 + Double(frame) * 10) }
    t.up(1, at: 1070)
    #expect(summary(run(t, rightwards)) == ["swipe/right fingers=1 @1070.0ms binding=0"])
    // Without swipe-min-speed it is too slow.
    #expect(run(t, profile([bind(.swipe, .right)])).isEmpty)
  }

  @Test func aConstantSlowDragStillFiresNothing() throws {
    var t = Touches()
    t.drag([(1, (30, 50), (130, 50))], from: 0, to: 1200, steps: 120)
    #expect(run(t, rightwards).isEmpty)
    // The same distance in time is a swipe, as before.
    var quick = Touches()
    quick.drag([(1, (30, 50), (130, 50))], from: 0, to: 500, steps: 50)
    #expect(run(quick, rightwards).count == 1)
  }

  @Test func aFlickThatStopsBeforeTheLiftDoesNotFire() throws {
    var t = Touches()
    t.down(1, 30, 50, at: 0)
    for frame in 1...100 { t.move(1, 30 + Double(frame) * 0.3, 50, at: Double(frame) * 10) }
    for frame in 1...6 { t.move(1, 60 + Double(frame) * 8, 50, at: 1000 + Double(frame) * 10) }
    t.up(1, at: 1300)  // held still 240 ms first
    #expect(run(t, rightwards).isEmpty)
  }

  @Test(
    "the Wacom's top swipe (about 276 mm in 1.2 s) slows to about 24 mm/s before the lift: it fires from 20 mm/s",
    .enabled(if: SharedFixtures.root != nil, "../shared/fixtures/real is not present"))
  func wacomTopSwipe() throws {
    let file = "evemu-devices/Wacom_ISDv4_E6_Finger.single-top-swipe.events"
    let recording = try EvemuParser.parse(try #require(SharedFixtures.bytes(file)), file: file)
    let description = "evemu-devices/Wacom_ISDv4_E6_Finger.desc"
    let descriptionBytes = try #require(SharedFixtures.bytes(description))
    let device = try #require(try EvemuParser.parse(descriptionBytes, file: description).device)
    var bindings: [Binding] = []
    for direction in [Direction.up, .down, .left, .right] { bindings.append(bind(.swipe, direction)) }
    func replay(_ speed: Double) -> [GestureEvent] {
      var thresholds = Thresholds()
      thresholds.swipeMinSpeed = speed
      return Replay.run(
        device: device, events: recording.events,
        configuration: Configuration(profiles: [profile(bindings, thresholds: thresholds)])
      ).firings
    }
    #expect(replay(0).isEmpty)
    // Its peak is about 410 mm/s; in the last 100 ms it moved 2.4 mm, 40 ms of them resting.
    #expect(replay(20).map(\.direction) == [.right])
    #expect(replay(30).isEmpty)
  }

  @Test func aVerySlowDragFiresNothingAtTwentyMillimetresPerSecond() throws {
    var thresholds = Thresholds()
    thresholds.swipeMinSpeed = 20
    var t = Touches()
    t.drag([(1, (30, 50), (70, 50))], from: 0, to: 2500, steps: 250)
    #expect(run(t, profile([bind(.swipe, .right)], thresholds: thresholds)).isEmpty)
  }
}

@Suite("Long press: hold and drag")
struct HoldAndDragTests {
  /// Rests 600 ms near (50, 50), then drags 35 mm right and 12 mm down in 350 ms.
  var holdThenDrag: Touches {
    var t = Touches()
    t.down(1, 50, 50, at: 0)
    t.move(1, 51, 50, at: 300)
    for frame in 1...35 {
      t.move(1, 51.25 + Double(frame), 50 + Double(frame) * 12 / 35, at: 600 + Double(frame) * 10)
    }
    t.up(1, at: 1000)
    return t
  }

  @Test func holdThenDragStepsFromWhereItFired() throws {
    let bindings = profile([bind(.longPress), bind(.longPress, .right, step: 10), bind(.longPress, .down, step: 5)])
    let (fired, stream) = try runWithStream(holdThenDrag, bindings)
    let lines = fired.map { e in
      "\(e.binding) \(e.phase)" + (e.dx.map { " dx \(Int($0.rounded()))" } ?? "")
        + (e.dy.map { " dy \(Int($0.rounded()))" } ?? "")
    }
    // The one-shot at 500 ms; then 10 mm steps right, 5 mm steps down, measured from 51 mm.
    #expect(
      lines == [
        "0 one-shot", "1 step 1 dx 10 dy 3", "2 step 1 dx 15 dy 5", "1 step 2 dx 20 dy 7", "1 step 3 dx 30 dy 10",
        "2 step 2 dx 30 dy 10", "1 end after 3 steps dx 35 dy 12", "2 end after 2 steps dx 35 dy 12",
      ])
    #expect(fired.first?.time == Timestamp(microseconds: 500_000) && fired.first?.dx == nil)
    #expect(fired.filter { $0.step != nil }.allSatisfy { $0.direction != nil })
    #expect(phases(stream) == ["long-press began", "long-press changed", "long-press ended lift"])
    #expect(try #require(stream.first).values.dx == 0)
    #expect(abs(try #require(stream.last).values.dx - 35.25) < 0.1)
  }

  @Test func aLongPressWithoutAStepStaysOneShot() throws {
    let (fired, stream) = try runWithStream(holdThenDrag, profile([bind(.longPress)]), reportsStream: false)
    #expect(summary(fired.map { Fired(event: $0) }) == ["long-press fingers=1 @500.0ms binding=0"])
    #expect(stream.isEmpty)
  }

  @Test func aDragBindingAloneStillNeedsTheFingersToRestFirst() throws {
    var moving = Touches()
    moving.drag([(1, (50, 50), (90, 50))], from: 0, to: 800, steps: 40)
    #expect(run(moving, profile([bind(.longPress, .right, step: 10)])).isEmpty)
    let fired = run(holdThenDrag, profile([bind(.longPress, .right, step: 10)]))
    #expect(fired.compactMap(\.event.step) == [1, 2, 3])
  }
}
