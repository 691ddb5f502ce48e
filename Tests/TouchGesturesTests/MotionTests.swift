import Dispatch
import GestureCore
import Synchronization
import Testing
import TouchScript

@testable import TouchGestures

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
    "a pinch on one view and a pan on another, at once, each followed from began to ended")
  func endToEnd() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let left = screen.addView("left", frame: ViewFrame(x: 0, y: 0, width: 0.5, height: 1))
    let right = screen.addView("right", frame: ViewFrame(x: 0.5, y: 0, width: 0.5, height: 1))
    let values = Mutex<[String: Double]>([:])
    try left.onPinch { motion in
      if motion.phase != .changed { values.withLock { $0["pinch \(motion.phase)"] = motion.scale } }
    }
    try right.onPan { motion in
      if motion.phase != .changed { values.withLock { $0["pan \(motion.phase)"] = motion.translation.dx } }
    }
    _ = try await replay(
      panel + """
        pinch at=100ms center=0.25,0.5 from=30mm to=60mm duration=400ms
        drag at=100ms from=0.6,0.5 to=0.6+60mm,0.5 duration=400ms
        """, on: screen)
    // Each begins when recognized (the pinch past the screen's 1.25, the pan past its
    // distance), measured from where its fingers landed, and ends at its lift.
    let seen = values.withLock { $0 }
    #expect(seen.keys.sorted() == ["pan began", "pan ended", "pinch began", "pinch ended"])
    #expect((1.25...1.35).contains(seen["pinch began"] ?? 0))
    #expect(abs((seen["pinch ended"] ?? 0) - 2) < 0.03)
    #expect((1...20).contains(seen["pan began"] ?? 0))
    #expect(abs((seen["pan ended"] ?? 0) - 60) < 1.5)
  }

  @Test(
    "a transform group: one value per frame with scale and rotation; a removed view's gesture is cancelled")
  func transformAndRemoval() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let photo = screen.addView("photo", frame: ViewFrame(x: 0, y: 0, width: 0.5, height: 1))
    let doomed = screen.addView("doomed", frame: ViewFrame(x: 0.5, y: 0, width: 0.5, height: 0.5))
    let frames = Mutex<[Motion]>([])
    try photo.onTransform { motion in frames.withLock { $0.append(motion) } }
    let doomedPhases = Mutex<[MotionPhase]>([])
    try doomed.onPinch { motion in doomedPhases.withLock { $0.append(motion.phase) } }
    // The landing at the bottom right, during doomed's pinch, removes doomed.
    screen.setHitTest { position in
      if position.x < 0.5 { return photo }
      if position.y < 0.5 { return doomed }
      doomed.remove()
      return nil
    }
    _ = try await replay(
      panel + """
        rotate at=100ms center=0.25,0.5 span=40mm by=90deg to=60mm duration=450ms
        pinch at=100ms center=0.75,0.25 from=30mm to=60mm duration=600ms
        tap at=500ms x=0.75 y=0.75
        """, on: screen)
    let motions = frames.withLock { $0 }
    #expect(motions.first?.phase == .began)
    #expect(motions.last?.phase == .ended)
    #expect(Set(motions.map(\.time)).count == motions.count)
    #expect(abs((motions.last?.rotation ?? 0) - 90) < 3)
    #expect(abs((motions.last?.scale ?? 0) - 1.5) < 0.05)
    #expect(motions.allSatisfy { $0.gesture == .transform && $0.view === photo })
    let phases = doomedPhases.withLock { $0 }
    // What came before the removal may not have reached the queue yet: once removed, only
    // the cancel does.
    #expect(phases.last == .cancelled)
    #expect(!phases.contains(.ended))
  }

  @Test(
    "a simultaneous group is per view: a transform view's gestures share, a plain view's first one wins")
  func groupPerView() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let map = screen.addView("map", frame: ViewFrame(x: 0, y: 0, width: 1.0 / 3, height: 1))
    let plain = screen.addView("plain", frame: ViewFrame(x: 1.0 / 3, y: 0, width: 1.0 / 3, height: 1))
    let grouped = screen.addView("grouped", frame: ViewFrame(x: 2.0 / 3, y: 0, width: 1.0 / 3, height: 1))
    let began = Mutex<[String]>([])
    try map.onTransform { _ in }
    for view in [map, plain, grouped] {
      try view.onPinch { motion in if motion.phase == .began { began.withLock { $0.append("\(view) pinch") } } }
      try view.onRotate { motion in if motion.phase == .began { began.withLock { $0.append("\(view) rotate") } } }
    }
    try grouped.recognizeSimultaneously(.pinch, .rotate)
    #expect(throws: GestureDiagnostic.self) { try grouped.recognizeSimultaneously(.pan) }
    // The same turn and spread on each view, at once.
    _ = try await replay(
      panel + """
        rotate at=100ms center=0.16,0.5 span=30mm by=90deg to=60mm duration=600ms
        rotate at=100ms center=0.5,0.5 span=30mm by=90deg to=60mm duration=600ms
        rotate at=100ms center=0.83,0.5 span=30mm by=90deg to=60mm duration=600ms
        """, on: screen)
    let seen = Set(began.withLock { $0 })
    #expect(seen.isSuperset(of: ["map pinch", "map rotate", "grouped pinch", "grouped rotate"]))
    #expect(seen.filter { $0.hasPrefix("plain") }.count == 1)
  }
}
