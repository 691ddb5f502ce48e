import Dispatch
import Synchronization
import Testing

@testable import TouchGestures

@Suite("TouchView")
struct TouchViewTests {
  let left = ViewFrame(x: 0, y: 0, width: 0.5, height: 1)
  let right = ViewFrame(x: 0.5, y: 0, width: 0.5, height: 1)

  @Test("each view takes the touches that land in it, the frontmost first, and gestures on two views run at once")
  func routing() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    let c = screen.addView("c", frame: ViewFrame(x: 0.1, y: 0.1, width: 0.2, height: 0.2))
    for view in [a, b, c] {
      try view.onTap { tap in seen.add("\(tap.view?.name ?? "-") tap \(tap.fingers)") }
    }
    try screen.onTap(fingers: 2) { _ in seen.add("screen 2-finger tap") }
    // One finger on a and one on b at once: two one-finger taps, not one two-finger tap.
    _ = try await replay(
      panel + """
        at 100ms down 1 0.25 0.5
        at 110ms down 2 0.75 0.5
        at 170ms up 1
        at 180ms up 2
        tap at=1s x=0.15 y=0.15
        """, on: screen)
    #expect(seen.all.sorted() == ["a tap 1", "b tap 1", "c tap 1"])
    a.bringToFront()
    _ = try await replay(panel + "tap at=100ms x=0.15 y=0.15\n", on: screen)
    #expect(seen.all.suffix(1) == ["a tap 1"])
  }

  @Test("a frame set before a landing applies to it; a view removed takes nothing and calls nothing")
  func movingAndRemoving() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onTap { _ in seen.add("a") }
    try screen.onTap { tap in seen.add("screen \(tap.view == nil)") }
    let taps = panel + "tap at=100ms x=0.25 y=0.5\ntap at=1s x=0.75 y=0.5\n"
    _ = try await replay(taps, on: screen)
    #expect(seen.all == ["a", "screen true"])
    a.frame = right
    #expect(a.frame == right)
    _ = try await replay(taps, on: screen)
    #expect(seen.all.suffix(2) == ["screen true", "a"])
    a.remove()
    a.remove()
    #expect(a.isRemoved)
    _ = try await replay(taps, on: screen)
    #expect(seen.all.suffix(2) == ["screen true", "screen true"])
  }

  @Test("a hit test decides instead of the frames, on the input side, at every landing")
  func hitTest() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    try a.onTap { _ in seen.add("a") }
    try b.onTap { _ in seen.add("b") }
    let asked = Atomic<Int>(0)
    // Rows of a list: which row is under the finger is the app's business.
    screen.setHitTest { position in
      asked.add(1, ordering: .relaxed)
      return position.y < 0.5 ? b : a
    }
    _ = try await replay(panel + "tap at=100ms x=0.25 y=0.25\ntap at=1s x=0.75 y=0.75\n", on: screen)
    #expect(seen.all == ["b", "a"])
    #expect(asked.load(ordering: .relaxed) == 2)
    screen.setHitTest(nil)
    _ = try await replay(panel + "tap at=100ms x=0.25 y=0.25\n", on: screen)
    #expect(seen.all.suffix(1) == ["a"])
  }

  @Test("a view added or moved while another view's fingers pan cancels nothing; the new view takes touches after")
  func changesDuringAGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(.right, step: .millimetres(10)) { pan in
      if case .ended(let steps) = pan.phase { seen.add("a pan ended after \(steps > 5 ? "many" : "few") steps") }
    }
    let added = Mutex<TouchView?>(nil)
    // Runs on the input side at each landing: the second one, during a's pan, adds view b
    // and moves a.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      a.frame = ViewFrame(x: 0, y: 0, width: 0.45, height: 1)
      let b = screen.addView("b", frame: ViewFrame(x: 0.5, y: 0, width: 0.5, height: 1))
      _ = try? b.onTap { _ in seen.add("b tap") }
      added.withLock { $0 = b }
      screen.setHitTest(nil)
      return nil
    }
    _ = try await replay(
      panel + """
        drag at=100ms from=0.05,0.5 to=0.4,0.5 duration=1s
        tap at=500ms x=0.75 y=0.5
        tap at=2s x=0.75 y=0.5
        """, on: screen)
    #expect(seen.all == ["a pan ended after many steps", "b tap"])
    #expect(added.withLock { $0 } != nil)
  }

  @Test("several handlers of one gesture, each disabled, enabled and cancelled by its token")
  func severalHandlers() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let view = screen.addView("v", frame: left)
    let first = try view.onTap { _ in seen.add("first") }
    let second = try view.onTap { _ in seen.add("second") }
    try screen.onTap { _ in seen.add("screen") }
    try screen.onTap { _ in seen.add("screen again") }
    let tap = panel + "tap at=100ms x=0.25 y=0.5\n"
    _ = try await replay(tap, on: screen)
    #expect(seen.all == ["first", "second"])
    first.isEnabled = false
    _ = try await replay(tap, on: screen)
    #expect(seen.all.suffix(1) == ["second"])
    first.isEnabled = true
    second.cancel()
    #expect(!second.isEnabled)
    _ = try await replay(tap, on: screen)
    #expect(seen.all.suffix(1) == ["first"])
    _ = try await replay(panel + "tap at=100ms x=0.75 y=0.5\n", on: screen)
    #expect(seen.all.suffix(2) == ["screen", "screen again"])
  }

  @Test("touch callbacks: each contact of a view lands, moves and lifts there, wherever it goes")
  func touches() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    let token = a.onTouch { touch in
      if touch.phase != .moved {
        seen.add("\(touch.view.name) \(touch.phase) \(Int((touch.positionInView.x * 10).rounded()))")
      }
    }
    b.onTouch { touch in if touch.phase == .down { seen.add("b down") } }
    // A drag from a into b stays a's.
    _ = try await replay(
      panel + "drag at=100ms from=0.25,0.5 to=0.75,0.5 duration=300ms\ntap at=1s x=0.75 y=0.5\n", on: screen)
    #expect(seen.all == ["a down 5", "a up 15", "b down"])
    token.isEnabled = false
    _ = try await replay(panel + "tap at=100ms x=0.25 y=0.5\n", on: screen)
    #expect(seen.all.count == 3)
  }

  @Test("a view's single tap fires at once where asked, and its double tap still fires")
  func singleTapAtOnce() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    for view in [a, b] {
      try view.onTap { _ in seen.add("\(view.name) single") }
      try view.onTap(taps: 2) { _ in seen.add("\(view.name) double") }
    }
    a.singleTapFiresAtOnce = true
    #expect(a.singleTapFiresAtOnce && !b.singleTapFiresAtOnce)
    _ = try await replay(panel + "tap at=100ms x=0.25 y=0.5 taps=2\ntap at=1s x=0.75 y=0.5 taps=2\n", on: screen)
    #expect(seen.all == ["a single", "a double", "b double"])
  }
}
