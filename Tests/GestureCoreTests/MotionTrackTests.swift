import Testing

@testable import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite("The motion track: stream values and rates")
struct MotionTrackTests {
  let geometry = PanelGeometry(device: TestPanel.device, profile: Profile())!

  /// Fingers at positions in mm on the 200 × 100 mm test panel.
  func fingers(_ mm: [(Double, Double)]) -> SequenceFingers {
    SequenceFingers(
      mm.enumerated().map { i, p in
        let point = Point(x: p.0 / TestPanel.width, y: p.1 / TestPanel.height)
        return SequenceFinger(contact: UInt32(i), downTime: Timestamp(microseconds: 0), down: point, current: point)
      })
  }

  func at(_ ms: Double) -> Timestamp { Timestamp(microseconds: Int64((ms * 1000).rounded())) }

  /// Follows `frames` frames from `start` to `end` ms, fingers placed by `place(t)`, t 0...1.
  func follow(
    _ track: inout MotionTrack, frames: Int, from start: Double, to end: Double,
    _ place: (Double) -> [(Double, Double)]
  ) {
    for frame in 1...frames {
      let t = Double(frame) / Double(frames)
      track.follow(fingers(place(t)), geometry: geometry, at: at(start + (end - start) * t))
    }
  }

  func track(_ start: [(Double, Double)], at ms: Double = 0, quantities: MotionTrack.Quantities = .all)
    -> MotionTrack
  {
    var track = MotionTrack()
    track.quantities = quantities
    track.restart(fingers(start), geometry: geometry, at: at(ms))
    return track
  }

  @Test func aPinchFromThirtyToSixtyMillimetresIsScaleTwo() {
    var t = track([(50, 50), (80, 50)])
    follow(&t, frames: 30, from: 0, to: 300) { s in [(50 - 15 * s, 50), (80 + 15 * s, 50)] }
    let values = t.values(from: t.reference, geometry: geometry)
    #expect(abs(values.scale - 2) < 1e-9)
    #expect(abs(values.dx) < 1e-9 && abs(values.dy) < 1e-9)
    // 30 mm more span in 300 ms at a steady pace: 1 (of the reference) per 300 ms.
    #expect(abs(values.vscale - 1 / 0.3) < 1e-6)
    #expect(abs(values.cx - 65 / TestPanel.width) < 1e-9 && abs(values.cy - 0.5) < 1e-9)
  }

  @Test func aSixtyMillimetrePanInFourHundredMillisecondsIsOneHundredFiftyPerSecond() {
    var t = track([(40, 60)])
    follow(&t, frames: 40, from: 0, to: 400) { s in [(40 + 60 * s, 60 - 20 * s)] }
    let values = t.values(from: t.reference, geometry: geometry)
    #expect(abs(values.dx - 60) < 1e-9 && abs(values.dy + 20) < 1e-9)
    #expect(abs(values.vx - 150) < 1e-6)
    #expect(abs(values.vy + 50) < 1e-6)
    #expect(values.scale == 1 && values.angle == 0 && values.vscale == 0 && values.vangle == 0)
    #expect(abs(t.speed(along: .right) - 150) < 1e-6 && abs(t.speed(along: .left) + 150) < 1e-6)
    #expect(abs(t.speed(along: .up) - 50) < 1e-6)
  }

  @Test func aQuarterTurnInFourHundredFiftyMillisecondsIsTwoHundredDegreesPerSecond() {
    func around(_ degrees: Double) -> [(Double, Double)] {
      let radians = degrees * Double.pi / 180
      let (c, s) = (cos(radians) * 20, sin(radians) * 20)
      return [(100 - c, 50 - s), (100 + c, 50 + s)]
    }
    var t = track(around(0))
    follow(&t, frames: 45, from: 0, to: 450) { s in around(90 * s) }
    let values = t.values(from: t.reference, geometry: geometry)
    #expect(abs(values.angle - 90) < 1e-6)
    #expect(abs(values.vangle - 200) < 1e-6)
    #expect(abs(values.scale - 1) < 1e-9)
  }

  @Test func turnsPastHalfARoundAreCountedAndCounterclockwiseIsNegative() {
    func around(_ degrees: Double) -> [(Double, Double)] {
      let radians = degrees * Double.pi / 180
      return [(100, 50), (100 + cos(radians) * 20, 50 + sin(radians) * 20)]
    }
    var t = track(around(0))
    follow(&t, frames: 40, from: 0, to: 400) { s in around(-400 * s) }
    #expect(abs(t.values(from: t.reference, geometry: geometry).angle + 400) < 1e-6)
  }

  @Test func theSmallTangentSeriesIsTheArctangentToAnUlp() {
    for i in -20_000...20_000 {
      let t = MotionTrack.smallTangent * Double(i) / 20_000
      let exact = atan(t)
      #expect(abs(MotionTrack.arctangentOfSmall(t) - exact) <= exact.ulp, "t = \(t)")
    }
  }

  @Test func aFramesTurnIsTheDifferenceOfTheLinesHeadings() {
    var random = SplitMix64(seed: 0x7a11)
    func uniform(_ range: ClosedRange<Double>) -> Double {
      range.lowerBound + (range.upperBound - range.lowerBound) * Double(random.next() >> 11) / 0x1p53
    }
    func line(_ length: Double, _ degrees: Double) -> (dx: Double, dy: Double) {
      (length * cos(degrees * Double.pi / 180), length * sin(degrees * Double.pi / 180))
    }
    func headingsDifference(_ a: (dx: Double, dy: Double), _ b: (dx: Double, dy: Double)) -> Double {
      var delta = atan2Degrees(b.dy, b.dx) - atan2Degrees(a.dy, a.dx)
      if delta > 180 { delta -= 360 }
      if delta < -180 { delta += 360 }
      return delta
    }
    for _ in 0..<20_000 {
      let heading = uniform(-180...180)
      // Mostly what one frame turns; sometimes far more, up to nearly half a turn either way.
      let turned = random.next() % 4 == 0 ? uniform(-179...179) : uniform(-5...5)
      let a = line(uniform(0.5...300), heading)
      let b = line(uniform(0.5...300), heading + turned)
      let difference = headingsDifference(a, b)
      #expect(abs(MotionTrack.degreesTurned(from: a, to: b) - difference) < 1e-12, "\(a) → \(b)")
    }
    // Fingers on one point: the headings of whatever the lines are, as before.
    let degenerate = [
      ((0.0, 0.0), (3.0, 4.0)), ((3.0, 4.0), (0.0, 0.0)), ((0.0, 0.0), (0.0, 0.0)), ((-2.0, 0.0), (0.0, 0.0)),
    ]
    for (a, b) in degenerate {
      #expect(MotionTrack.degreesTurned(from: a, to: b) == headingsDifference(a, b))
    }
  }

  @Test func aRestBetweenFramesHoldsTheFingersStill() {
    // Slow for 500 ms, no frame for 300 ms (resting), then 30 mm in 50 ms: the last 100 ms
    // hold 50 ms of rest and the flick, 300 mm/s over the window.
    var t = track([(20, 50)])
    follow(&t, frames: 50, from: 0, to: 500) { s in [(20 + 10 * s, 50)] }
    follow(&t, frames: 5, from: 800, to: 850) { s in [(30 + 30 * s, 50)] }
    #expect(abs(t.values(from: t.reference, geometry: geometry).vx - 300) < 1e-6)
    // Frames close together are interpolated: a steady pace at 7 ms frames is exact.
    var steady = track([(20, 50)])
    follow(&steady, frames: 50, from: 0, to: 350) { s in [(20 + 70 * s, 50)] }
    #expect(abs(steady.values(from: steady.reference, geometry: geometry).vx - 200) < 1e-6)
  }

  @Test func aYoungSequenceOrAFullRingMeasuresOverWhatItHolds() {
    var young = track([(20, 50)])
    follow(&young, frames: 4, from: 0, to: 40) { s in [(20 + 4 * s, 50)] }
    #expect(abs(young.values(from: young.reference, geometry: geometry).vx - 100) < 1e-6)
    // 1000 frames a second: the ring holds 64 ms, which is what the rate is taken over.
    var fast = track([(20, 50)])
    follow(&fast, frames: 300, from: 0, to: 300) { s in [(20 + 60 * s, 50)] }
    #expect(fast.sampler.count == MotionSampler.capacity)
    #expect(abs(fast.values(from: fast.reference, geometry: geometry).vx - 200) < 1e-6)
    // One sample: no rate.
    let still = track([(20, 50)])
    #expect(still.values(from: still.reference, geometry: geometry).vx == 0)
  }

  @Test func aLaterReferenceMeasuresFromThere() {
    var t = track([(20, 50), (40, 50)])
    follow(&t, frames: 10, from: 0, to: 100) { s in [(20 + 10 * s, 50), (40 + 10 * s, 50)] }
    let fired = t.here
    follow(&t, frames: 10, from: 100, to: 200) { s in [(30 + 5 * s, 50 + 8 * s), (50 + 15 * s, 50 + 8 * s)] }
    let values = t.values(from: fired, geometry: geometry)
    #expect(abs(values.dx - 10) < 1e-9 && abs(values.dy - 8) < 1e-9)
    #expect(abs(values.scale - 1.5) < 1e-9)
    let (dx, dy) = t.offset(from: t.reference, geometry: geometry)
    #expect(abs(dx - 20) < 1e-9 && abs(dy - 8) < 1e-9)
  }

  @Test func onlyWhatIsAskedForIsFollowed() {
    var t = track([(20, 50), (40, 50)], quantities: [.centroid])
    follow(&t, frames: 10, from: 0, to: 100) { s in [(20, 50), (40 + 20 * s, 50)] }
    #expect(abs(t.centroid.x * TestPanel.width - 40) < 1e-9)
    // Neither the span nor the turn is measured, at the reference or since.
    #expect(t.span == 0 && t.turn == 0 && t.sampler.count == 0)
  }

  @Test func theRingAllocatesNothingAfterItIsMade() {
    var sampler = MotionSampler()
    for i in 0..<1000 {
      sampler.append(MotionSample(time: at(Double(i)), x: Double(i), y: 0, span: 0, turn: 0))
    }
    #expect(sampler.count == MotionSampler.capacity)
    #expect(sampler[0].x == Double(1000 - MotionSampler.capacity))
    #expect(sampler.newest?.x == 999)
    // A second sample at one time replaces the first.
    sampler.append(MotionSample(time: at(999), x: 5, y: 0, span: 0, turn: 0))
    #expect(sampler.newest?.x == 5 && sampler.count == MotionSampler.capacity)
  }
}

@Suite("The stream's state machine")
struct StreamEmitterTests {
  let frame = StreamEmitter.Frame(time: Timestamp(microseconds: 1000), sequence: 3, fingers: 2, region: 1)

  @Test func beganChangedOnlyWhenSomethingChangesThenEndedOnce() {
    var emitter = StreamEmitter(kind: .pinch)
    var events: [GestureStreamEvent] = []
    let begun = emitter.begin(StreamValues(scale: 1.3), frame, into: &events)
    #expect(begun.map { "\($0.from) → \($0.event) → \($0.to)" } == "idle → recognized → streaming")
    emitter.change(StreamValues(scale: 1.3), frame, into: &events)
    emitter.change(StreamValues(scale: 1.4), frame, into: &events)
    let ended = emitter.end(.lift, frame, into: &events)
    #expect(ended.map { "\($0.from) → \($0.event) → \($0.to)" } == "streaming → last finger up → over (lift)")
    #expect(events.map(\.phase) == [.began, .changed, .ended])
    #expect(events.map(\.values.scale) == [1.3, 1.4, 1.4])
    #expect(events.map(\.reason) == [nil, nil, .lift])
    #expect(events.allSatisfy { $0.gesture == .pinch && $0.sequence == 3 && $0.fingers == 2 && $0.region == 1 })
    // Over until the sequence ends: it neither begins nor changes again.
    #expect(emitter.begin(StreamValues(), frame, into: &events) == nil)
    emitter.change(StreamValues(scale: 2), frame, into: &events)
    #expect(emitter.end(.cancel, frame, into: &events) == nil)
    #expect(events.count == 3)
    emitter.reset()
    #expect(emitter.begin(StreamValues(), frame, into: &events) != nil)
  }

  @Test func aCancelIsCancelledAndAnIdleStreamEndsNothing() {
    var streams = GestureStreams()
    var events: [GestureStreamEvent] = []
    var tracer = Tracer()
    tracer.isOn = true
    #expect(streams.begin(.tap, StreamValues(), frame, into: &events) == nil)
    _ = streams.begin(.rotate, StreamValues(angle: 20), frame, into: &events)
    _ = streams.begin(.pan, StreamValues(angle: 20), frame, into: &events)
    #expect(streams.anyStreaming && streams[.rotate]?.isStreaming == true)
    streams.end(.cancel, sparing: GestureKindSet([.pan]), frame, into: &events, trace: &tracer)
    #expect(events.map(\.phase) == [.began, .began, .cancelled] && events.last?.reason == .cancel)
    #expect(events.last?.gesture == .rotate)
    #expect(tracer.lines == ["0.000000 rotate stream: streaming → cancelled → over (cancel)"])
    streams.end(.lift, frame, into: &events, trace: &tracer)
    #expect(events.last?.phase == .ended && events.last?.gesture == .pan && !streams.anyStreaming)
  }
}
