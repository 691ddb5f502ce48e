import Dispatch
import GestureCore
import Testing
import TouchScript

@testable import TouchGestures

/// Whether the core in this build reports the continuous stream (a pinch replayed with
/// `reportsStream` gives stream events): the end-to-end motion tests need it.
let coreReportsStream: Bool = {
  let script = panel + "pinch at=100ms center=0.5,0.5 from=30mm to=60mm duration=400ms\n"
  guard let text = try? TouchScript.parse(script, file: "probe.touch").evemuText(),
    let recording = try? EvemuParser.parse(text, file: "probe.evemu"), let device = recording.device
  else { return false }
  var profile = Profile(name: "probe")
  profile.bindings = [Binding(gesture: .pinch, direction: .out)]
  let result = Replay.run(
    device: device, events: recording.events, configuration: Configuration(profiles: [profile]),
    reportsStream: true)
  return !result.stream.isEmpty
}()

/// A stream event of sequence 1 with the values given.
func streamEvent(
  _ gesture: GestureKind, _ phase: GestureStreamEvent.Phase, ms: Int64, sequence: Int = 1, fingers: Int = 2,
  region: Int? = 0, _ values: StreamValues = StreamValues()
) -> GestureStreamEvent {
  GestureStreamEvent(
    time: Timestamp(microseconds: ms * 1000), sequence: sequence, gesture: gesture, phase: phase,
    reason: phase == .ended ? .lift : phase == .cancelled ? .cancel : nil, fingers: fingers, region: region,
    values: values)
}

@Suite("Motion")
struct MotionTests {
  func follower(_ kind: MotionKind, fingers: ClosedRange<Int> = 1...2, threshold: MotionThreshold = .screen)
    -> MotionFollower
  {
    MotionFollower(entry: MotionEntry(kind: kind, view: nil, fingers: fingers, threshold: threshold))
  }

  @Test("began, changed, ended once per sequence; nothing more until another sequence")
  func phases() {
    var pinch = follower(.pinch)
    let events = [
      streamEvent(.pinch, .began, ms: 100), streamEvent(.pinch, .changed, ms: 110),
      streamEvent(.pan, .changed, ms: 110), streamEvent(.pinch, .ended, ms: 120),
      streamEvent(.pinch, .changed, ms: 130), streamEvent(.pinch, .began, ms: 200, sequence: 2),
      streamEvent(.pinch, .cancelled, ms: 210, sequence: 2),
    ]
    #expect(events.map { pinch.phase(for: $0) } == [.began, .changed, nil, .ended, nil, .began, .cancelled])
  }

  @Test("a handler's own threshold holds its began back until a frame passes it")
  func ownThreshold() {
    var rotate = follower(.rotate, threshold: MotionThreshold(angle: 30))
    let phases = [10.0, 29, 31, 20].enumerated().map { k, angle in
      rotate.phase(for: streamEvent(.rotate, k == 0 ? .began : .changed, ms: Int64(k), StreamValues(angle: angle)))
    }
    #expect(phases == [nil, nil, .began, .changed])
    var pan = follower(.pan, threshold: MotionThreshold(distance: 5))
    #expect(pan.phase(for: streamEvent(.pan, .began, ms: 0, StreamValues(dx: 3, dy: 3))) == nil)
    #expect(pan.phase(for: streamEvent(.pan, .changed, ms: 1, StreamValues(dx: 3, dy: 4))) == .began)
  }

  @Test("a transform group reports one value per frame, whichever of its kinds report it")
  func groupFrame() {
    var transform = follower(.transform)
    let phases = [
      streamEvent(.pan, .began, ms: 100), streamEvent(.pinch, .began, ms: 100), streamEvent(.rotate, .began, ms: 110),
      streamEvent(.pan, .changed, ms: 110), streamEvent(.pinch, .changed, ms: 120), streamEvent(.pan, .ended, ms: 130),
      streamEvent(.pinch, .ended, ms: 130),
    ].map { transform.phase(for: $0) }
    #expect(phases == [.began, nil, .changed, nil, .changed, .ended, nil])
    var longPress = follower(.longPress, fingers: 1...1)
    #expect(longPress.phase(for: streamEvent(.longPress, .began, ms: 0, fingers: 2)) == nil)
    #expect(longPress.phase(for: streamEvent(.longPress, .began, ms: 0, fingers: 1)) == .began)
  }

  @Test("values in the panel's and the view's terms")
  func values() {
    let values = StreamValues(cx: 0.5, cy: 0.25, dx: 20, dy: -10, scale: 1.5, angle: -30, vx: 100, vy: 0)
    let frame = ViewFrame(x: 0.25, y: 0, width: 0.5, height: 0.5)
    let motion = Motion(
      streamEvent(.pan, .changed, ms: 250, values), gesture: .pan, phase: .changed, view: nil, frame: frame,
      panel: PanelSize(width: 200, height: 100))
    #expect(motion.translation == Offset(dx: 20, dy: -10))
    // The view is 100 mm × 50 mm.
    #expect(motion.translationInView == Offset(dx: 0.2, dy: -0.2))
    #expect(motion.focalPoint == Position(x: 0.5, y: 0.25))
    #expect(motion.focalPointInView == Position(x: 0.5, y: 0.5))
    #expect(motion.scale == 1.5 && motion.rotation == -30 && motion.velocity == Offset(dx: 100, dy: 0))
    #expect(motion.time == .milliseconds(250) && motion.fingers == 2)
  }

  @Test("a finger range out of 1...5 is refused at the call")
  func refused() {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let view = screen.addView("v", frame: ViewFrame(x: 0, y: 0, width: 1, height: 1))
    #expect(throws: GestureDiagnostic.self) { try view.onPan(fingers: 1...6) { _ in } }
    #expect(throws: GestureDiagnostic.self) { try view.onPinch(threshold: MotionThreshold(scaleChange: 1.5)) { _ in } }
  }

  @Test(
    "a pinch on one view and a pan on another, at once, each followed from began to ended",
    .enabled(if: coreReportsStream, "the core in this build does not report the continuous stream yet"))
  func endToEnd() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let left = screen.addView("left", frame: ViewFrame(x: 0, y: 0, width: 0.5, height: 1))
    let right = screen.addView("right", frame: ViewFrame(x: 0.5, y: 0, width: 0.5, height: 1))
    try left.onPinch { motion in
      if motion.phase != .changed { seen.add("left pinch \(motion.phase) \(Int((motion.scale * 10).rounded()))") }
    }
    try right.onPan { motion in
      if motion.phase != .changed { seen.add("right pan \(motion.phase) \(Int(motion.translation.dx / 10))") }
    }
    _ = try await replay(
      panel + """
        pinch at=100ms center=0.25,0.5 from=30mm to=60mm duration=400ms
        drag at=100ms from=0.6,0.5 to=0.6+60mm,0.5 duration=400ms
        """, on: screen)
    #expect(
      seen.all.sorted() == ["left pinch began 10", "left pinch ended 20", "right pan began 0", "right pan ended 6"])
  }
}
