import Dispatch
import GestureCore
import Synchronization
import Testing

@testable import TouchGestures

/// State of a main-actor app, changed by handlers with no `assumeIsolated` of their own.
@MainActor final class Selection {
  var taps: [String] = []
}

@Suite("Delivery")
struct DeliveryTests {
  @MainActor
  @Test("main-actor handlers change main-actor state; a screen on another queue refuses them")
  func mainActor() async throws {
    let screen = TouchScreen(queue: .main)
    let selection = Selection()
    let view = screen.addView("v", frame: ViewFrame(x: 0, y: 0, width: 1, height: 1))
    try view.mainActor.onTap { tap in selection.taps.append("\(tap.view?.name ?? "-") \(tap.taps)") }
    _ = try await replay(panel + "tap at=100ms x=0.5 y=0.5\n", on: screen)
    #expect(selection.taps == ["v 1"])

    let other = TouchScreen(queue: DispatchQueue(label: "test.handlers")).addView(
      "w", frame: ViewFrame(x: 0, y: 0, width: 1, height: 1))
    #expect(throws: GestureDiagnostic.self) { try other.mainActor.onTap { _ in } }
  }

  @Test(
    "three views, two handlers on each: one batch per frame, however many handlers it calls, and at most one hop per batch"
  )
  func oneHopPerFrame() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let calls = Mutex<(count: Int, frames: Set<Duration>)>((0, []))
    for k in 0..<3 {
      let view = screen.addView("\(k)", frame: ViewFrame(x: Double(k) / 3, y: 0, width: 1.0 / 3, height: 1))
      try view.onTransform { motion in
        calls.withLock {
          $0.count += 1
          $0.frames.insert(motion.time)
        }
      }
      view.onTouch { touch in
        calls.withLock {
          $0.count += 1
          $0.frames.insert(touch.time)
        }
      }
    }
    _ = try await replay(
      panel + """
        rotate at=100ms center=0.16,0.5 span=30mm by=90deg to=60mm duration=500ms
        pinch at=100ms center=0.5,0.5 from=30mm to=60mm duration=500ms
        rotate at=100ms center=0.83,0.5 span=30mm by=-90deg to=40mm duration=500ms
        """, on: screen)
    let (count, frames) = calls.withLock { $0 }
    #expect(count > 3 * frames.count)
    // A stream that begins when the recognizer decides at a deadline (once per view here)
    // comes in a batch of its own; everything else a frame calls comes in the frame's batch.
    #expect(screen.handlerBatches <= frames.count + 3)
    #expect(screen.handlerHops >= 1)
    #expect(screen.handlerHops <= screen.handlerBatches)
  }

  @Test("a view's events as an async sequence, in order, finished when the view is removed")
  func asyncSequence() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let view = screen.addView("v", frame: ViewFrame(x: 0, y: 0, width: 0.5, height: 1))
    try view.onTap(taps: 1) { _ in }
    try view.onTap(taps: 2) { _ in }
    try view.onSwipe(.right) { _ in }
    let events = view.events()
    let consumer = Task {
      var seen: [String] = []
      for await event in events {
        switch event {
        case .tap(let tap): seen.append("tap \(tap.taps)")
        case .swipe(let swipe): seen.append("swipe \(swipe.direction)")
        default: seen.append("other")
        }
      }
      return seen
    }
    _ = try await replay(
      panel + """
        tap at=100ms x=0.25 y=0.5 taps=2
        tap at=1s x=0.25 y=0.5
        swipe at=2s from=0.1,0.5 to=0.4,0.5
        tap at=3s x=0.75 y=0.5
        """, on: screen)
    view.remove()
    #expect(await consumer.value == ["tap 2", "tap 1", "swipe right"])
  }

  @Test("a lagging consumer's changed frames coalesce; began, ended and firings are never dropped")
  func bounded() async {
    let buffer = ViewEventBuffer()
    func motion(_ gesture: MotionKind, _ phase: MotionPhase, _ scale: Double) -> ViewEvent {
      .motion(
        Motion(
          GestureStreamEvent(
            time: Timestamp(microseconds: 0), sequence: 1, gesture: .pinch, phase: .changed, fingers: 2, region: nil,
            values: StreamValues(scale: scale)), gesture: gesture, phase: phase, view: nil, frame: nil,
          panel: PanelSize(width: 100, height: 100)))
    }
    buffer.push(motion(.pinch, .began, 1))
    for k in 1...1000 { buffer.push(motion(.pinch, .changed, 1 + Double(k) / 1000)) }
    buffer.push(motion(.rotate, .changed, 7))
    buffer.push(motion(.pinch, .changed, 3))
    buffer.push(motion(.pinch, .ended, 3))
    #expect(buffer.count == 5)
    var phases: [String] = []
    for _ in 0..<5 {
      if case .motion(let m) = await buffer.next() { phases.append("\(m.gesture) \(m.phase) \(m.scale)") }
    }
    #expect(
      phases == ["pinch began 1.0", "pinch changed 2.0", "rotate changed 7.0", "pinch changed 3.0", "pinch ended 3.0"])
  }
}
