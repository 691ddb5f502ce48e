import Testing

@testable import GestureCore

@Suite("Steps and the sequence state")
struct StepTests {
  @Test func levelsMoveWithOneStepOfHysteresis() {
    var out = StepLevel(binding: 0, kind: .pan, direction: .right, width: 10)
    #expect(out.follow(9.9) == 0)
    #expect(out.follow(10) == 1)
    // Jitter back below the boundary does not lower the level: only 0 does.
    #expect(out.follow(9) == 0)
    #expect(out.follow(0.1) == 0)
    #expect(out.follow(0) == -1)
    #expect(out.follow(35) == 3)
    #expect(out.steps(for: 3) == 3 && out.steps(for: -2) == 0)
    let left = StepLevel(binding: 1, kind: .pan, direction: .left, width: 10, level: -2)
    #expect(left.due == 2 && left.steps(for: -1) == 1 && left.steps(for: 4) == 0)
  }

  @Test func aMeasureThatIsNotFiniteMovesNoLevel() {
    var level = StepLevel(binding: 0, kind: .pinch, direction: .in, width: 0.1)
    #expect(level.follow(-Double.infinity) == 0)
    #expect(level.follow(Double.nan) == 0)
    #expect(level.level == 0)
  }

  @Test func aPinchLevelDecidesOnItsScaleAsOnTheScalesLogarithm() {
    let width = naturalLog(1.1)
    for start in -3...3 {
      var level = StepLevel(binding: 0, kind: .pinch, direction: .out, width: width, level: start)
      for bound in [start - 1, start + 1] {
        let edge = naturalExp(Double(bound) * width)
        var scales = [edge, edge.nextUp, edge.nextDown, edge.nextUp.nextUp, edge.nextDown.nextDown]
        for relative in [1e-12, 1e-10, 1e-8, 1e-3] { scales += [edge * (1 + relative), edge * (1 - relative)] }
        for scale in scales {
          #expect(level.wouldMove(scale: scale) == level.wouldMove(naturalLog(scale)), "level \(start), scale \(scale)")
        }
      }
      for scale in [0, 1, Double.infinity, Double.nan, 1e-300] {
        #expect(level.wouldMove(scale: scale) == level.wouldMove(naturalLog(scale)), "level \(start), scale \(scale)")
      }
      // After the level moved, its bounds are the new level's.
      _ = level.follow(naturalLog(1.1 * 1.1 * 1.1) + Double(start) * width)
      let raised = naturalExp(Double(level.level + 1) * width)
      #expect(level.wouldMove(scale: raised.nextUp.nextUp) == level.wouldMove(naturalLog(raised.nextUp.nextUp)))
      #expect(!level.wouldMove(scale: naturalExp(Double(level.level) * width)))
    }
  }

  @Test func aStepWindowHoldsOnlyMeasuresThatMoveNoneOfItsLevels() {
    var random = SplitMix64(seed: 0x57e9)
    for kind in [GestureKind.pan, .pinch, .rotate] {
      let directions: [Direction] =
        switch kind {
        case .pan: [.left, .right, .up, .down]
        case .pinch: [.in, .out]
        default: [.clockwise, .counterclockwise]
        }
      // As a sequence's levels stand: one level (they follow one measure), widths of their own.
      let level = Int(random.next() % 5) - 2
      let levels = directions.enumerated().map { n, direction in
        let width = kind == .pinch ? naturalLog(1.1 + 0.05 * Double(n)) : 10 + 2 * Double(n)
        return StepLevel(binding: n, kind: kind, direction: direction, width: width, level: level)
      }
      var window = StepWindow()
      #expect(!window.contains((1, 0)), "an empty window holds nothing")
      window.enclose(levels[...])
      var inside = 0
      for _ in 0..<2000 {
        let first = Double(Int(random.next() % 8001) - 4000) / 100
        let second = Double(Int(random.next() % 8001) - 4000) / 100
        let coordinates = kind == .pinch ? (naturalExp(first / 20), 0.0) : (first, kind == .pan ? second : 0)
        let moves = levels.contains { level in
          if kind == .pinch { return level.wouldMove(scale: coordinates.0) }
          return level.wouldMove(level.axis == 0 ? coordinates.0 : coordinates.1)
        }
        if window.contains(coordinates) {
          inside += 1
          #expect(!moves, "\(kind) at \(coordinates)")
        }
      }
      #expect(inside > 0, "\(kind): the test reached the window")
      #expect(!window.contains((.nan, 0)))
    }
  }

  @Test func aSequenceSteppingIsNotHeldToTheLastSequencesLevels() {
    var t = Touches()
    // Two fingers, then three, each pan 8 mm right: under the first's 10 mm step, past the
    // second's 5 mm.
    for (fingers, start) in [(2, 0.0), (3, 1000.0)] {
      for f in 1...fingers { t.down(f, 60 + 20 * Double(f), 50, at: start) }
      for step in 1...8 {
        for f in 1...fingers { t.move(f, 60 + 20 * Double(f) + Double(step), 50, at: start + 100 + Double(step) * 10) }
      }
      for f in 1...fingers { t.up(f, at: start + 300) }
    }
    let bindings = [bind(.pan, fingers: 2, .right, step: 10), bind(.pan, fingers: 3, .right, step: 5)]
    let fired = run(t, profile(bindings))
    #expect(fired.filter { $0.event.binding == 0 }.isEmpty)
    #expect(fired.filter { $0.event.binding == 1 }.map(\.event.phase) == [.step(1), .end(steps: 1)])
  }

  @Test func aQuietBoxHoldsOnlyMeasuresThatMoveNoLevelAndCrossNoThreshold() {
    var random = SplitMix64(seed: 0x9b0c)
    let limits = RecognitionLimits(Thresholds(), slop: 4)
    let kinds: [(GestureKind, [Direction], Double)] = [
      (.pan, [.left, .right, .up, .down], 12), (.pinch, [.in, .out], naturalLog(1.1)),
      (.rotate, [.clockwise, .counterclockwise], 15),
    ]
    var bound: [BindingIndex.Continuous] = []
    var levels: [GestureKind: [StepLevel]] = [:]
    for (kind, directions, width) in kinds {
      let level = Int(random.next() % 3) - 1
      levels[kind] = directions.map { StepLevel(binding: 0, kind: kind, direction: $0, width: width, level: level) }
      // A pan's step (beyond the slop) is its recognition distance.
      bound += directions.map {
        BindingIndex.Continuous(binding: 0, kind: kind, direction: $0, width: width, step: kind == .pan ? width : nil)
      }
    }
    // Each kind tracking (its levels and its threshold bound the box) or recognized (its levels).
    for recognized in [[GestureKind](), [.pan], [.pinch, .rotate], [.pan, .pinch, .rotate]] {
      var box = QuietBox.everywhere
      for (kind, _, _) in kinds {
        var window = StepWindow()
        window.enclose(levels[kind]![...])
        box.narrow(kind, to: window)
        if !recognized.contains(kind) { box.narrow(kind, toThresholdsOf: limits, bound: bound) }
      }
      var inside = 0
      for _ in 0..<4000 {
        let m = (
          Double(Int(random.next() % 6001) - 3000) / 100, Double(Int(random.next() % 6001) - 3000) / 100,
          naturalExp(Double(Int(random.next() % 601) - 300) / 1000), Double(Int(random.next() % 6001) - 3000) / 100
        )
        guard box.contains(m) else { continue }
        inside += 1
        var pan = PanMeasure()
        pan.update(MotionFrame(dx: m.0, dy: m.1, span: 0, turn: 0))
        var pinch = PinchMeasure(baseline: 10)
        pinch.update(MotionFrame(dx: 0, dy: 0, span: 10 * m.2, turn: 0))
        var rotate = RotateMeasure()
        rotate.update(MotionFrame(dx: 0, dy: 0, span: 0, turn: m.3))
        let moves =
          levels[.pan]!.contains { pan.wouldMove($0) } || levels[.pinch]!.contains { pinch.wouldMove($0) }
          || levels[.rotate]!.contains { rotate.wouldMove($0) }
        #expect(!moves, "\(m)")
        if !recognized.contains(.pan) { #expect(pan.crossed(bound, limits: limits) == nil, "\(m)") }
        if !recognized.contains(.pinch) { #expect(pinch.crossed(bound, limits: limits) == nil, "\(m)") }
        if !recognized.contains(.rotate) { #expect(rotate.crossed(bound, limits: limits) == nil, "\(m)") }
      }
      #expect(inside > 0, "\(recognized): the test reached the box")
    }
    #expect(!QuietBox().contains((0, 0, 1, 0)), "an empty box holds nothing")
    #expect(!QuietBox.everywhere.contains((.nan, 0, 1, 0)))
  }

  @Test func aSequenceIsNotHeldToWhereTheLastSequenceHadNothingToDo() {
    var t = Touches()
    // Two fingers pan right past the 20 mm step and back to where they began: the level is 0
    // again, and nothing moves it within 20 mm either way.
    let out = (1...25).map(Double.init) + (0...24).reversed().map(Double.init) + [-1]
    t.down(1, 80, 50, at: 0)
    t.down(2, 100, 50, at: 0)
    for (n, dx) in out.enumerated() {
      for f in 1...2 { t.move(f, 60 + 20 * Double(f) + dx, 50, at: 100 + Double(n) * 10) }
    }
    for f in 1...2 { t.up(f, at: 800) }
    // Three fingers, while they land (100 ms), pan 17 mm right and back to 11 mm: their 5 mm
    // steps' level reaches 3 and stays there (a level falls only a whole step back).
    for f in 1...3 { t.down(f, 60 + 20 * Double(f), 50, at: 1000) }
    for (n, dx) in [3.0, 6, 9, 12, 15, 17, 14, 11].enumerated() {
      for f in 1...3 { t.move(f, 60 + 20 * Double(f) + dx, 50, at: 1010 + Double(n) * 10) }
    }
    for f in 1...3 { t.up(f, at: 1300) }
    let bindings = [bind(.pan, fingers: 2, .right, step: 20), bind(.pan, fingers: 3, .right, step: 5)]
    let fired = run(t, profile(bindings))
    #expect(fired.filter { $0.event.binding == 0 }.map(\.event.phase) == [.step(1), .end(steps: 1)])
    #expect(fired.filter { $0.event.binding == 1 }.last?.event.phase == .end(steps: 3))
  }

  @Test func traceNumbersNeverTrap() {
    // Int(...) of a Double past Int.max traps; a broken device can report such distances.
    #expect(formatted(9.3e17) == "9.3e+17")
    #expect(formatted(-1e300) == "-1e+300")
    #expect(formatted(3.25) == "3.3")
    #expect(formatted(-0.06) == "-0.1")
    #expect(formatted(-12.34) == "-12.3")
    #expect(formatted(.infinity) == "inf")
    #expect(RecognizerFailure.moved(millimetres: 1e19, limit: 3).description == "moved 1e+19 mm > 3.0 mm")
  }

  private func pinchOut(_ t: inout Touches, from start: Double) {
    t.down(1, 80, 50, at: start)
    t.down(2, 100, 50, at: start)
    for step in 1...10 { t.move(2, 100 + Double(step) * 2, 50, at: start + 100 + Double(step) * 20) }
  }

  @Test func aDeviceGoneMidStepEndsTheSteps() throws {
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: profile([bind(.pinch, .out, step: 10)])))
    var out: [GestureEvent] = []
    var t = Touches()
    pinchOut(&t, from: 0)
    for event in t.events { engine.handle(event, into: &out) }
    let steps = out.compactMap(\.step)
    #expect(steps == Array(1...steps.count) && steps.count == 7)  // 20 -> 40 mm: 1.1^7 <= 2
    engine.cancel(at: Timestamp(microseconds: 400_000), into: &out)
    #expect(out.last?.phase == .end(steps: 7))
    #expect(out.last?.time == Timestamp(microseconds: 400_000))
    #expect(out.allSatisfy { $0.sequence == 1 })
  }

  @Test func aGestureOutsideTheGroupFailsTheMembers() {
    // Two fingers rest: the long press wins; the pinch after it, a group member, fires nothing.
    var t = Touches()
    pinchOut(&t, from: 0)
    t.up(1, at: 400)
    t.up(2, at: 400)
    var resting = Touches()
    resting.down(1, 80, 50, at: 0)
    resting.down(2, 100, 50, at: 0)
    for step in 1...10 { resting.move(2, 100 + Double(step) * 2, 50, at: 600 + Double(step) * 20) }
    resting.up(1, at: 900)
    resting.up(2, at: 900)
    let bindings = [bind(.longPress, fingers: 2), bind(.pinch, .out, step: 10), bind(.rotate, .clockwise, step: 15)]
    let fired = run(resting, profile(bindings, simultaneous: [.pinch, .rotate]))
    #expect(summary(fired) == ["long-press fingers=2 @500.0ms binding=0"])
    // Without the rest, the pinch steps and numbers its sequence.
    let pinched = run(t, profile(bindings, simultaneous: [.pinch, .rotate]))
    #expect(pinched.map(\.event.phase).prefix(2) == [.step(1), .step(2)])
    #expect(pinched.last?.event.phase == .end(steps: 7))
  }

  @Test func aSequenceThatEndsBeforeItsCountIsFixedFiresNoSteps() {
    var t = Touches()
    t.down(1, 100, 50, at: 0)
    for step in 1...4 { t.move(1, 100, 50 + Double(step) * 8, at: Double(step) * 15) }
    t.up(1, at: 70)
    #expect(run(t, profile([bind(.pan, .down, step: 10)])).isEmpty)
  }
}

@Suite("Steps under random touches")
struct RandomStepTests {
  /// Random touches of 1–3 fingers wandering over the panel, with every continuous kind
  /// bound with steps, in a group and without: nothing traps, no input is impossible, steps
  /// count 1, 2, … per binding and sequence, and every end reports the steps before it.
  @Test(arguments: [false, true])
  func stepsAndEndsStayConsistent(grouped: Bool) throws {
    var random = SplitMix64(seed: grouped ? 0xfeed : 0xbeef)
    var bindings: [Binding] = []
    for fingers in 1...3 {
      for direction in [Direction.up, .down, .left, .right] {
        bindings.append(bind(.pan, fingers: fingers, direction, step: 5))
      }
    }
    bindings += [
      bind(.pinch, .in, step: 10), bind(.pinch, .out, step: 10), bind(.rotate, .clockwise, step: 15),
      bind(.rotate, .counterclockwise, step: 15), bind(.tap), bind(.tap, fingers: 2), bind(.longPress),
      bind(.swipe, .up),
    ]
    let p = profile(bindings, simultaneous: grouped ? [.pan, .pinch, .rotate] : [])
    var engine = try #require(DeviceEngine(device: TestPanel.device, profile: p))
    engine.tracing = true
    var out: [GestureEvent] = []
    var t = Touches()
    var ms = 0.0
    for _ in 0..<200 {
      let fingers = Int(random.next() % 3) + 1
      var positions = (0..<fingers).map { _ in
        (Double(random.next() % 180) + 10, Double(random.next() % 80) + 10)
      }
      // Landings and lifts in time order, some landing after finger-landing (late).
      let landings = (0..<fingers).map { _ in Double(random.next() % 150) }.sorted()
      for f in 0..<fingers { t.down(f + 1, positions[f].0, positions[f].1, at: ms + landings[f]) }
      ms += 160
      for _ in 0..<Int(random.next() % 40) {
        ms += 10
        for f in 0..<fingers {
          positions[f].0 = min(195, max(5, positions[f].0 + Double(Int(random.next() % 9) - 4)))
          positions[f].1 = min(95, max(5, positions[f].1 + Double(Int(random.next() % 9) - 4)))
          t.move(f + 1, positions[f].0, positions[f].1, at: ms)
        }
      }
      let lifts = (0..<fingers).map { _ in Double(random.next() % 40) }.sorted()
      for f in 0..<fingers { t.up(f + 1, at: ms + 10 + lifts[f]) }
      ms += 100
    }
    for event in t.events { engine.handle(event, into: &out) }
    engine.finish(at: Timestamp(microseconds: Int64(ms * 1000) + 1_000_000), into: &out)
    #expect(engine.impossibleInputs == 0, "\(engine.takeTrace().filter { $0.contains("impossible") }.prefix(3))")
    var fired: [String: Int] = [:]
    var ended = Set<String>()
    for event in out {
      let key = "\(event.sequence)/\(event.binding)"
      switch event.phase {
      case .oneShot: #expect(event.gesture.traits.stepUnit == nil || event.gesture != .pan)
      case .step(let k):
        #expect(!ended.contains(key), "a step after the end: \(key)")
        #expect(k == fired[key, default: 0] + 1, "step \(k) of \(key) after \(fired[key, default: 0])")
        fired[key] = k
      case .end(let n):
        #expect(n == fired[key] && ended.insert(key).inserted, "end \(n) of \(key)")
      }
    }
    // Every binding that stepped has ended by the end of the recording.
    #expect(Set(fired.keys) == ended)
    #expect(fired.count > 10, "the random touches stepped \(fired.count) times")
  }
}
