import Testing

@testable import GestureCore

/// `DeviceEngine.firesBetweenContactChanges`, which lets the daemon read a panel's moves in
/// batches (docs/devices.md, "Reading at contact changes"): while it is false, a frame in
/// which no contact lands or lifts must fire nothing.
@Suite("Reading at contact changes")
struct ReadingAtContactChangesTests {
  /// Feeds `touches` frame by frame, deadlines due before a frame first (the daemon's timer
  /// runs those), and returns the frames of moves alone that fired while the flag said none
  /// could (and the deadlines that fired though `nextFiringDeadline` said none could), how
  /// often the flag was true before such a frame, and how many frames came with only quiet
  /// deadlines pending.
  func framesThatBrokeThePromise(_ touches: Touches, _ profile: Profile) -> (
    broken: [String], flagged: Int, quiet: Int
  ) {
    var engine = DeviceEngine(device: TestPanel.device, profile: profile)!
    var output: [GestureEvent] = []
    var broken: [String] = []
    var flagged = 0
    var quietDeadlines = 0
    var frame: [RawEvent] = []
    for event in touches.events {
      frame.append(event)
      guard event.type == EventType.syn, event.code == SynCode.report else { continue }
      let quiet = engine.nextDeadline != nil && engine.nextFiringDeadline == nil
      engine.advance(to: event.time + -1, into: &output)
      if quiet { quietDeadlines += 1 }
      if quiet && !output.isEmpty { broken.append("a quiet deadline fired \(output.map(\.gesture.rawValue))") }
      output.removeAll()
      let promised = !engine.firesBetweenContactChanges
      let changesContacts = frame.contains { $0.type == EventType.abs && $0.code == AbsCode.mtTrackingID }
      frame.withUnsafeBufferPointer { engine.handle(events: $0, into: &output) }
      Self.expectReadingStateAgrees(&engine)
      if !changesContacts {
        if !promised { flagged += 1 }
        if promised && !output.isEmpty { broken.append("\(output.map(\.gesture.rawValue)) at \(event.time)") }
      }
      output.removeAll()
      frame.removeAll()
    }
    return (broken, flagged, quietDeadlines)
  }

  /// `readingState()` answers as the getters do, each of them.
  static func expectReadingStateAgrees(
    _ engine: inout DeviceEngine, sourceLocation: Testing.SourceLocation = #_sourceLocation
  ) {
    let state = engine.readingState()
    #expect(state.contactsDown == engine.contactsDown, sourceLocation: sourceLocation)
    #expect(state.landingMayWait == engine.landingMayWait, sourceLocation: sourceLocation)
    #expect(state.firesBetweenContactChanges == engine.firesBetweenContactChanges, sourceLocation: sourceLocation)
    #expect(state.nextDeadline == engine.nextDeadline, sourceLocation: sourceLocation)
    #expect(state.nextFiringDeadline == engine.nextFiringDeadline, sourceLocation: sourceLocation)
    #expect(state.impossibleInputs == engine.impossibleInputs, sourceLocation: sourceLocation)
  }

  /// Feeds `touches` as the daemon reads a batched panel: a landing frame for which
  /// `landingMayWait` holds is kept back and handed over with the next frame that lands or
  /// lifts a contact; every other frame at once. Returns what fired and how many landings
  /// were kept back.
  func runWithLandingsKeptBack(_ touches: Touches, _ profile: Profile) -> (fired: [String], keptBack: Int) {
    var engine = DeviceEngine(device: TestPanel.device, profile: profile)!
    var output: [GestureEvent] = []
    var pending: [RawEvent] = []
    var frame: [RawEvent] = []
    var keptBack = 0
    for event in touches.events {
      frame.append(event)
      guard event.type == EventType.syn, event.code == SynCode.report else { continue }
      let changesContacts = frame.contains { $0.type == EventType.abs && $0.code == AbsCode.mtTrackingID }
      if changesContacts, pending.isEmpty, engine.contactsDown == 0, engine.landingMayWait {
        keptBack += 1
        pending = frame
      } else if !pending.isEmpty && !changesContacts {
        pending += frame
      } else {
        (pending + frame).withUnsafeBufferPointer { engine.handle(events: $0, into: &output) }
        pending.removeAll()
      }
      frame.removeAll()
    }
    if let last = touches.events.last { engine.finish(at: last.time, into: &output) }
    return (summary(output.map { Fired(event: $0) }), keptBack)
  }

  /// A landing on an idle panel may be read with the frames after it when nothing could
  /// fire before them: the same gestures fire at the same times as when read at once.
  @Test func aLandingWaitsOnlyWhenNothingCouldFireBeforeTheNextRead() {
    var t = Touches()
    t.drag([(1, (20, 50), (140, 50))], from: 0, to: 200, steps: 20)
    t.tap(100, 50, at: 600)
    t.tap(100, 50, at: 900)
    t.drag([(1, (20, 50), (140, 50)), (2, (20, 70), (140, 70))], from: 1500, to: 1700, steps: 20)
    let swipes = profile([bind(.swipe, .right), bind(.swipe, fingers: 2, .right), bind(.tap)])
    let kept = runWithLandingsKeptBack(t, swipes)
    #expect(kept.fired == summary(run(t, swipes)))
    #expect(kept.fired.count == 4)
    #expect(kept.keptBack == 4, "every sequence's first landing waits")

    // A tap chain waiting for its next tap needs that tap's landing at once; so does a long
    // press (it fires while held), a bound pan (it fires on moves) and forwarding.
    let doubleTap = profile([bind(.tap, taps: 2), bind(.swipe, .right)])
    let chained = runWithLandingsKeptBack(t, doubleTap)
    #expect(chained.fired == summary(run(t, doubleTap)))
    #expect(chained.keptBack == 3, "the second tap's landing is read at once")
    for needsLandings in [
      profile([bind(.swipe, .right), bind(.longPress)]), profile([bind(.pan, step: 10)]),
    ] {
      #expect(runWithLandingsKeptBack(t, needsLandings).keptBack == 0)
    }
    var forwarding = swipes
    forwarding.forward = true
    #expect(!DeviceEngine(device: TestPanel.device, profile: forwarding)!.landingMayWait)

    // A reload that binds a long press makes the next landing be read at once.
    var engine = DeviceEngine(device: TestPanel.device, profile: swipes)!
    #expect(engine.landingMayWait)
    engine.replaceProfile(profile([bind(.swipe, .right), bind(.longPress)]))
    #expect(!engine.landingMayWait)
  }

  @Test func aSwipeAndATapProfileNeverNeedsAMoveFrame() {
    var t = Touches()
    t.drag([(1, (20, 50), (140, 50))], from: 0, to: 200, steps: 20)
    t.tap(100, 50, at: 600)
    t.drag([(1, (20, 50), (20, 50))], from: 1200, to: 2200, steps: 50)  // a long press
    let p = profile([bind(.swipe, .right), bind(.tap), bind(.longPress)])
    let result = framesThatBrokeThePromise(t, p)
    #expect(result.broken.isEmpty)
    #expect(result.flagged == 0)
    #expect(summary(run(t, p)).count == 3)
  }

  /// Without a long press or a tap chain bound, no deadline fires anything: a batched
  /// reader's timer sleeps through the landing's end and a contact held still.
  @Test func aSwipeOnlyProfilesDeadlinesAreQuiet() {
    var t = Touches()
    t.drag([(1, (20, 50), (140, 50))], from: 0, to: 200, steps: 20)
    t.drag([(1, (20, 50), (20, 50))], from: 600, to: 1600, steps: 50)
    t.tap(100, 50, at: 2000)
    let p = profile([bind(.swipe, .right), bind(.tap)])
    let result = framesThatBrokeThePromise(t, p)
    #expect(result.broken.isEmpty)
    #expect(result.quiet > 60)
    var engine = DeviceEngine(device: TestPanel.device, profile: p)!
    var output: [GestureEvent] = []
    var down = Touches()
    down.down(1, 50, 50, at: 0)
    down.events.withUnsafeBufferPointer { engine.handle(events: $0, into: &output) }
    #expect(engine.nextDeadline != nil)
    #expect(engine.nextFiringDeadline == nil)
    var withLongPress = DeviceEngine(
      device: TestPanel.device, profile: profile([bind(.swipe, .right), bind(.longPress)]))!
    down.events.withUnsafeBufferPointer { withLongPress.handle(events: $0, into: &output) }
    #expect(withLongPress.nextFiringDeadline == withLongPress.nextDeadline)
  }

  @Test func aBoundPanFiresOnMovesSoItsProfileSaysSoThroughout() {
    var t = Touches()
    t.drag([(1, (20, 50), (140, 50))], from: 0, to: 400, steps: 40)
    let p = profile([bind(.pan, .right, step: 10), bind(.swipe, .left)])
    let result = framesThatBrokeThePromise(t, p)
    #expect(result.broken.isEmpty)
    #expect(result.flagged == 40)
    var engine = DeviceEngine(device: TestPanel.device, profile: p)!
    #expect(engine.firesBetweenContactChanges)
    var output: [GestureEvent] = []
    engine.advance(to: Timestamp(microseconds: 1), into: &output)
    #expect(engine.firesBetweenContactChanges)
  }

  /// A tap waits for a second; the second touch slides away: the chain ends, and its single
  /// tap fires, on the frame that takes the finger beyond the slop, a frame of moves alone.
  @Test func aTapChainsNextTouchUnderWayCanFireOnAMove() {
    var t = Touches()
    t.tap(100, 50, at: 0)
    t.drag([(1, (100, 50), (160, 50))], from: 200, to: 500, steps: 30)
    // A lone tap, fired by the gap's end: a deadline that fires.
    t.tap(100, 50, at: 1000)
    let p = profile([bind(.tap), bind(.tap, taps: 2)])
    let result = framesThatBrokeThePromise(t, p)
    #expect(result.broken.isEmpty)
    #expect(result.flagged > 0)
    #expect(
      summary(run(t, p)) == ["tap taps=1 fingers=1 @230.0ms binding=0", "tap taps=1 fingers=1 @1380.0ms binding=0"])
    var engine = DeviceEngine(device: TestPanel.device, profile: p)!
    #expect(!engine.firesBetweenContactChanges)
    var output: [GestureEvent] = []
    var second = Touches()
    second.tap(100, 50, at: 0)
    second.down(1, 100, 50, at: 200)
    second.events.withUnsafeBufferPointer { engine.handle(events: $0, into: &output) }
    #expect(engine.firesBetweenContactChanges, "the second touch is down: a slide would end the chain")
    #expect(engine.contactsDown == 1)
  }
}
