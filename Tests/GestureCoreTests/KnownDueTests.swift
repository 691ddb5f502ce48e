import Testing

@testable import GestureCore

/// A sequence keeps what it has due between the changes that move it
/// (`SequenceArbiter.earliestDue`); after every event and every deadline, what it keeps must
/// be what its state gives.
@Suite("A sequence's deadline, kept between changes")
struct KnownDueTests {
  /// Feeds `touches` event by event, running deadlines as they fall due; returns after how
  /// many events some sequence kept a stale due, and the inputs the engine found impossible.
  func staleDues(_ touches: Touches, _ profile: Profile) -> (stale: Int, impossible: Int) {
    var engine = DeviceEngine(device: TestPanel.device, profile: profile)!
    var output: [GestureEvent] = []
    var stale = 0
    for event in touches.events {
      if let due = engine.nextDeadline, due < event.time {
        engine.advance(to: due, into: &output)
        if !engine.arbiter.knownDuesAreCurrent() { stale += 1 }
      }
      engine.handle(event, into: &output)
      if !engine.arbiter.knownDuesAreCurrent() { stale += 1 }
    }
    while let due = engine.nextDeadline {
      engine.advance(to: due, into: &output)
      if !engine.arbiter.knownDuesAreCurrent() { stale += 1 }
    }
    return (stale, engine.arbiter.impossibleInputs)
  }

  @Test func aLongPressThatMovedOffHasNoDeadlineLeft() {
    // The finger slides beyond the slop before the long press's time: the long press fails
    // on a move, and with it goes the time it had due.
    var touches = Touches()
    touches.down(1, 50, 50, at: 0)
    for step in 1...10 { touches.move(1, 50 + Double(step), 50, at: 100 + Double(step) * 10) }
    touches.up(1, at: 2000)
    let result = staleDues(touches, profile([bind(.longPress), bind(.tap)]))
    #expect(result.stale == 0)
    #expect(result.impossible == 0)
  }

  @Test func randomTouchesLeaveNoStaleDue() {
    var random = SplitMix64(seed: 0xd0e5)
    let bindings = [
      bind(.tap), bind(.tap, taps: 2), bind(.tap, fingers: 2), bind(.longPress), bind(.swipe, .right),
      bind(.pan, fingers: 2, .right, step: 10), bind(.pinch, .out, step: 0.1), bind(.rotate, .clockwise),
    ]
    var stale = 0
    var impossible = 0
    for _ in 0..<200 {
      var touches = Touches()
      var ms = 0.0
      var down: [Int: (Double, Double)] = [:]
      for _ in 0..<40 {
        ms += Double(random.next() % 60)
        let finger = Int(random.next() % 7) + 1
        if let (x, y) = down[finger] {
          if random.next() % 4 == 0 {
            touches.up(finger, at: ms)
            down[finger] = nil
          } else {
            let moved = (x + Double(Int(random.next() % 21) - 10), y + Double(Int(random.next() % 21) - 10))
            touches.move(finger, moved.0, moved.1, at: ms)
            down[finger] = moved
          }
        } else {
          let at = (20 + Double(random.next() % 160), 20 + Double(random.next() % 60))
          touches.down(finger, at.0, at.1, at: ms)
          down[finger] = at
        }
      }
      for finger in down.keys.sorted() { touches.up(finger, at: ms + 10) }
      let result = staleDues(touches, profile(bindings, simultaneous: [.pan, .pinch, .rotate]))
      stale += result.stale
      impossible += result.impossible
    }
    #expect(stale == 0)
    #expect(impossible == 0)
  }
}
