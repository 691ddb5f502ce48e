import Testing

@testable import GestureCore

/// A forwarding device as the daemon runs it, in virtual time: every event through the
/// engine, every decision and every whole frame through the gate, deadlines at their time.
struct ForwardingRun {
  /// What the gate let out, with when (the frame's or the decision's time, in ms).
  struct Written: Equatable, CustomStringConvertible {
    var ms: Double
    var frames: Int
    var description: String { "\(frames) frame(s) @\(ms)ms" }
  }

  var dispositions: [String] = []
  var written: [Written] = []
  var events: [RawEvent] = []
  var firings: [GestureEvent] = []
  /// What `releaseAll` wrote.
  var releaseEvents: [RawEvent] = []

  /// When a touch woke the panel (`wake`), in ms.
  var wakes: [Double] = []

  init(
    _ touches: Touches, _ profile: Profile, finishAt endMs: Double = 5000, release: Double? = nil,
    device: DeviceDescription = TestPanel.device
  ) {
    self.init(input: touches.events, profile, finishAt: endMs, release: release, device: device)
  }

  init(
    input: [RawEvent], _ profile: Profile, finishAt endMs: Double = 5000, release: Double? = nil,
    device: DeviceDescription = TestPanel.device
  ) {
    var forwarded = profile
    forwarded.forward = true
    forwarded.grab = true
    var engine = DeviceEngine(device: device, profile: forwarded)!
    var gate = ForwardGate(
      device: device, policy: ForwardPolicy(engine: engine), openedAt: Timestamp(microseconds: 0))
    var frameStart = 0
    var out: [RawEvent] = []
    func collect(at time: Timestamp) {
      for d in engine.dispositions {
        dispositions.append("#\(d.sequence) \(d.outcome) @\(Double(d.time.microseconds) / 1000)ms")
        gate.decide(d, into: &out)
      }
      engine.clearDispositions()
      take(at: time)
    }
    func take(at time: Timestamp) {
      guard !out.isEmpty else { return }
      let ms = Double(time.microseconds) / 1000
      if let last = written.last, last.ms == ms {
        // One write, as the daemon makes it after a frame.
        written[written.count - 1].frames += out.filter(\.isReport).count
        events += out
        out.removeAll()
        return
      }
      written.append(Written(ms: Double(time.microseconds) / 1000, frames: out.filter(\.isReport).count))
      events += out
      out.removeAll()
    }
    var released = false
    for (i, event) in input.enumerated() {
      if let release, !released, Double(event.time.microseconds) / 1000 >= release {
        released = true
        engine.cancel(at: event.time, into: &firings)
        engine.clearDispositions()
        gate.releaseAll(into: &out)
        releaseEvents = out
        out.removeAll()
      }
      if let due = engine.nextDeadline, due < event.time {
        engine.advance(to: event.time + -1, into: &firings)
        collect(at: engine.dispositions.last?.time ?? due)
      }
      engine.handle(event, into: &firings)
      collect(at: event.time)
      if event.isReport {
        gate.frame(
          input[frameStart...i], sequence: engine.frameSequence,
          sequenceOfSlot: { engine.sequence(ofSlot: $0) }, contactOfReport: { engine.contact(atReport: $0) },
          into: &out)
        if let woke = gate.takeWake() { wakes.append(Double(woke.microseconds) / 1000) }
        take(at: event.time)
        frameStart = i + 1
      }
    }
    engine.advance(to: Timestamp(microseconds: Int64(endMs * 1000)), into: &firings)
    collect(at: engine.dispositions.last?.time ?? Timestamp(microseconds: Int64(endMs * 1000)))
  }
}

private let corner = [Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1))]

@Suite("Forwarding: which touches reach the clone, and when")
struct ForwardingTests {
  @Test("only a pinch bound: a quick tap passes whole at its lift, a held finger when landing ends (100 ms)")
  func tapWherePinchIsBound() {
    var quick = Touches()
    quick.tap(100, 50, at: 0, duration: 80)
    let a = ForwardingRun(quick, profile([bind(.pinch, fingers: 2, .in)]))
    // A second finger could still land and pinch until the lift.
    #expect(a.dispositions == ["#1 pass through @80.0ms"])
    #expect(a.written == [.init(ms: 80, frames: 2)])
    #expect(a.events == quick.events)

    var held = Touches()
    held.down(1, 100, 50, at: 0)
    held.move(1, 100.5, 50, at: 150)
    held.up(1, at: 250)
    let b = ForwardingRun(held, profile([bind(.pinch, fingers: 2, .in)]))
    #expect(b.dispositions == ["#1 pass through @100.0ms"])
    // The held down frame at 100 ms, then the rest live, at their own times.
    #expect(b.written == [.init(ms: 100, frames: 1), .init(ms: 150, frames: 1), .init(ms: 250, frames: 1)])
    #expect(b.events == held.events)
  }

  @Test("a bound pinch is claimed when it is recognized and never reaches the clone")
  func boundPinch() {
    var pinch = Touches()
    pinch.drag([(1, (80, 50), (95, 50)), (2, (120, 50), (105, 50))], from: 0, to: 300)
    let run = ForwardingRun(pinch, profile([bind(.pinch, fingers: 2, .in)]))
    #expect(run.dispositions.count == 1)
    #expect(run.dispositions.first?.hasPrefix("#1 claimed") == true)
    #expect(run.written.isEmpty)
    #expect(run.firings.count == 1)
  }

  @Test("a bound 5-tap in the corner is held throughout and never forwarded; two taps pass after the gap")
  func fiveTap() {
    let bindings = profile([bind(.tap, taps: 5, region: 0)], regions: corner)
    var five = Touches()
    for k in 0..<5 { five.tap(5, 5, at: Double(k) * 200, duration: 60) }
    let a = ForwardingRun(five, bindings)
    #expect(a.dispositions == (1...5).map { "#\($0) claimed @860.0ms" })
    #expect(a.written.isEmpty)
    #expect(a.firings.map(\.taps) == [5])

    var two = Touches()
    two.tap(5, 5, at: 0, duration: 60)
    two.tap(5, 5, at: 200, duration: 60)
    let b = ForwardingRun(two, bindings)
    // The chain gives up multi-tap-gap (300 ms) after the second release: both go out then.
    #expect(b.dispositions == ["#1 pass through @560.0ms", "#2 pass through @560.0ms"])
    #expect(b.written == [.init(ms: 560, frames: 4)])
    #expect(b.events == two.events)
  }

  @Test("a region with no binding holds nothing: its touches go out frame by frame as they come")
  func unboundRegion() {
    var drag = Touches()
    drag.drag([(1, (100, 50), (150, 60))], from: 0, to: 200, steps: 20)
    let run = ForwardingRun(drag, profile([bind(.tap, taps: 5, region: 0)], regions: corner))
    #expect(run.dispositions == ["#1 pass through @0.0ms"])
    // Each frame at its own time (the last move and the lift share 200 ms).
    #expect(run.written.map(\.ms) == (0...20).map { Double($0) * 10 })
    #expect(run.written.map(\.frames).reduce(0, +) == 22)
    #expect(run.events == drag.events)
  }

  @Test("an unbound two-finger swipe passes whole, from the frame its second finger lands")
  func unboundTwoFingerSwipe() {
    var swipe = Touches()
    swipe.down(1, 60, 50, at: 0)
    swipe.drag([(2, (80, 50), (160, 50))], from: 10, to: 200, steps: 10, lift: false)
    swipe.up(1, at: 200)
    swipe.up(2, at: 200)
    // One-finger gestures only: a second finger rules them all out.
    let run = ForwardingRun(swipe, profile([bind(.tap), bind(.swipe, fingers: 1, .right), bind(.longPress)]))
    #expect(run.dispositions == ["#1 pass through @10.0ms"])
    #expect(run.written.first == .init(ms: 10, frames: 2))
    #expect(run.events == swipe.events)
    #expect(run.firings.isEmpty)
  }

  @Test(
    "tap bound alone: a resting finger passes when tap-max-duration has passed, a moving one beyond tap-slop and the lift roll"
  )
  func tapBoundAlone() {
    var rest = Touches()
    rest.down(1, 100, 50, at: 0)
    rest.up(1, at: 900)
    let a = ForwardingRun(rest, profile([bind(.tap)]))
    #expect(a.dispositions == ["#1 pass through @300.001ms"])

    var moving = Touches()
    moving.down(1, 100, 50, at: 0)
    moving.move(1, 102, 50, at: 20)
    moving.move(1, 106, 50, at: 40)
    moving.up(1, at: 60)
    let b = ForwardingRun(moving, profile([bind(.tap)]))
    #expect(b.dispositions == ["#1 pass through @40.0ms"])
    #expect(b.written == [.init(ms: 40, frames: 3), .init(ms: 60, frames: 1)])
  }

  @Test(
    "a long press is held for its duration and claimed then; a swipe binding holds a slow drag up to swipe-max-duration"
  )
  func longPressAndSwipe() {
    var press = Touches()
    press.down(1, 100, 50, at: 0)
    press.up(1, at: 700)
    let a = ForwardingRun(press, profile([bind(.longPress)]))
    #expect(a.dispositions == ["#1 claimed @500.0ms"])
    #expect(a.written.isEmpty)

    var slow = Touches()
    slow.drag([(1, (50, 50), (60, 50))], from: 0, to: 1500, steps: 15)
    let b = ForwardingRun(slow, profile([bind(.swipe, .right)]))
    #expect(b.dispositions == ["#1 pass through @800.001ms"])
    #expect(b.events == slow.events)
  }

  @Test("with swipe-min-speed a swipe binding holds a slow drag until its lift decides it")
  func swipeMinSpeedHoldsUntilTheLift() {
    var thresholds = Thresholds()
    thresholds.swipeMinSpeed = 300
    var slow = Touches()
    slow.drag([(1, (50, 50), (90, 50))], from: 0, to: 1500, steps: 30)
    let held = ForwardingRun(slow, profile([bind(.swipe, .right)], thresholds: thresholds))
    #expect(held.dispositions == ["#1 pass through @1500.0ms"])
    #expect(held.events == slow.events)
    // Ending in a flick, it is claimed at the lift and nothing reaches the clone.
    var flick = Touches()
    flick.down(1, 30, 50, at: 0)
    for frame in 1...100 { flick.move(1, 30 + Double(frame) * 0.3, 50, at: Double(frame) * 10) }
    for frame in 1...6 { flick.move(1, 60 + Double(frame) * 8, 50, at: 1000 + Double(frame) * 10) }
    flick.up(1, at: 1070)
    let claimed = ForwardingRun(flick, profile([bind(.swipe, .right)], thresholds: thresholds))
    #expect(claimed.dispositions == ["#1 claimed @1070.0ms"])
    #expect(claimed.written.isEmpty && claimed.firings.count == 1)
  }

  @Test("after a claimed touch, the clone gets the values it missed before the next forwarded frame")
  func catchUpAfterClaimed() {
    // A tap claimed in the corner at x = 5 mm, then a touch the panel reports with a new
    // tracking id and y only: x did not change, so the panel does not resend it.
    var touches = Touches()
    touches.tap(5, 5, at: 0, duration: 60)
    let units = TestPanel.unitsPerMillimetre
    let t = Timestamp(microseconds: 1_000_000)
    let second: [RawEvent] = [
      RawEvent(time: t, type: EventType.abs, code: AbsCode.mtTrackingID, value: 500),
      RawEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 50 * units),
      RawEvent(time: t, type: EventType.syn, code: SynCode.report, value: 0),
    ]
    var all = touches
    all.append(second)
    let run = ForwardingRun(all, profile([bind(.tap, region: 0)], regions: corner))
    #expect(run.dispositions == ["#1 claimed @60.0ms", "#2 pass through @1000.0ms"])
    // The clone never saw the claimed tap: both its values come first, in the same frame.
    let caughtUp = [
      RawEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionX, value: 5 * units),
      RawEvent(time: t, type: EventType.abs, code: AbsCode.mtPositionY, value: 5 * units),
    ]
    #expect(run.events == caughtUp + second)
  }

  @Test("a release ends every contact on the clone and passes nothing of them until they lift")
  func releaseAll() {
    var touches = Touches()
    touches.drag([(1, (100, 50), (150, 50))], from: 0, to: 200, steps: 10, lift: false)
    touches.up(1, at: 300)
    touches.tap(100, 50, at: 400)
    let run = ForwardingRun(touches, profile([bind(.tap, region: 0)], regions: corner), release: 100)
    #expect(
      run.releaseEvents.map { [Int($0.type), Int($0.code), Int($0.value)] } == [
        [Int(EventType.abs), Int(AbsCode.mtTrackingID), -1], [Int(EventType.syn), Int(SynCode.report), 0],
      ])
    // Frames after the release up to the lift stay away; the next tap goes out.
    #expect(!run.events.contains { $0.time.microseconds > 100_000 && $0.time.microseconds <= 300_000 })
    #expect(run.events.contains { $0.time.microseconds == 400_000 && $0.code == AbsCode.mtTrackingID })
  }

  @Test("a profile without forward decides nothing")
  func notForwarding() {
    var touches = Touches()
    touches.tap(100, 50, at: 0)
    var engine = DeviceEngine(device: TestPanel.device, profile: profile([bind(.tap)]))!
    var out: [GestureEvent] = []
    for event in touches.events { engine.handle(event, into: &out) }
    engine.advance(to: Timestamp(microseconds: 5_000_000), into: &out)
    #expect(engine.dispositions.isEmpty)
  }
}

@Suite("Forwarding: how long each region can hold a touch")
struct HoldLimitTests {
  @Test("per region, the worst binding: a tap, a 5-tap chain, a long press, a pan, nothing")
  func perRegion() {
    let regions = [
      Region(name: "tap", area: Area(x: 0, y: 0, width: 0.1, height: 0.1)),
      Region(name: "five", area: Area(x: 0.9, y: 0, width: 0.1, height: 0.1)),
      Region(name: "press", area: Area(x: 0, y: 0.9, width: 0.1, height: 0.1)),
      Region(name: "map", area: Area(x: 0.4, y: 0.4, width: 0.2, height: 0.2)),
    ]
    let p = profile(
      [
        bind(.tap, region: 0), bind(.tap, taps: 5, region: 1), bind(.tap, region: 2), bind(.longPress, region: 2),
        bind(.pan, .up, region: 3),
      ], regions: regions)
    let limits = HoldLimit.perRegion(of: p)
    #expect(limits.map(\.region) == ["tap", "five", "press", "map", nil])
    #expect(limits.map(\.limit.duration) == [300_000, 2_700_000, 500_000, nil, nil])
    #expect(
      limits[0].limit.description.contains("tap@tap: until it moves beyond tap-slop (3 mm) or tap-max-duration passes"))
    #expect(limits[3].limit.untilLifted)
    #expect(limits[4].limit.holdsNothing)
    #expect(limits[4].limit.description == "holds nothing: every touch goes to the clone at once")
  }

  @Test("a binding for two fingers holds a one-finger touch until finger-landing ends, at least")
  func moreFingers() {
    var thresholds = Thresholds()
    thresholds.tapMaxDuration = 50_000
    let limit = HoldLimit.limit(profile([bind(.tap, fingers: 2)], thresholds: thresholds), region: nil)
    #expect(limit.duration == 100_000)
  }

  @Test("with swipe-min-speed a swipe binding holds a touch until it lifts: a fast release fires it at any age")
  func swipeMinSpeed() {
    var thresholds = Thresholds()
    #expect(HoldLimit.limit(profile([bind(.swipe, .up)], thresholds: thresholds), region: nil).duration == 800_000)
    thresholds.swipeMinSpeed = 300
    let limit = HoldLimit.limit(profile([bind(.swipe, .up)], thresholds: thresholds), region: nil)
    #expect(limit.untilLifted && limit.duration == nil)
    #expect(limit.description.contains("swipe-min-speed"))
  }
}
