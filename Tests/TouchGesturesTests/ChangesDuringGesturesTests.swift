import Dispatch
import Synchronization
import Testing

@testable import TouchGestures

/// Views and handlers changed while fingers are down elsewhere: the change applies to the
/// gestures that begin after it, and the gestures in progress go on as they began.
@Suite("Changes during gestures")
struct ChangesDuringGesturesTests {
  let left = ViewFrame(x: 0, y: 0, width: 0.5, height: 1)
  let right = ViewFrame(x: 0.5, y: 0, width: 0.5, height: 1)
  /// A one-finger drag on the left half, with a tap on the right half while it goes on.
  let dragWithTap =
    panel + """
      drag at=100ms from=0.05,0.5 to=0.4,0.5 duration=1s
      tap at=500ms x=0.75 y=0.5
      """

  /// Records a motion handler's phases other than `changed`, with its name.
  static func phases(_ name: String, into seen: Seen) -> @Sendable (Motion) -> Void {
    { motion in
      if motion.phase != .changed { seen.add("\(name) \(motion.phase)") }
    }
  }

  @Test("a view added during a drag on another takes a tap that lands in it during the drag; the drag ends")
  func viewAddedDuringDrag() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("a pan", into: seen))
    let right = right
    // The drag's landing adds b: the tap at 500 ms lands in it while the drag goes on.
    screen.setHitTest { [weak screen] _ in
      let b = screen?.addView("b", frame: right)
      _ = try? b?.onTap { tap in seen.add("\(tap.view?.name ?? "-") tap") }
      screen?.setHitTest(nil)
      return a
    }
    _ = try await replay(dragWithTap, on: screen)
    #expect(seen.all == ["a pan began", "b tap", "a pan ended"])
  }

  @Test("a handler added during a gesture does not see that gesture's later events, and sees the next one")
  func handlerAddedDuringGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("first", into: seen))
    let added = Atomic<Bool>(false)
    // The tap's landing, during the drag, adds a second pan handler (another finger range:
    // an entry of its own) and a tap handler on a.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) {
        _ = try? a.onPan(fingers: 1...2, Self.phases("second", into: seen))
        _ = try? a.onTap { _ in seen.add("a tap") }
      }
      return nil
    }
    _ = try await replay(
      dragWithTap + "\n" + """
        drag at=2s from=0.05,0.5 to=0.4,0.5 duration=1s
        tap at=4s x=0.25 y=0.5
        """, on: screen)
    #expect(
      seen.all == ["first began", "first ended", "first began", "second began", "first ended", "second ended", "a tap"])
  }

  @Test("a view moved during a drag on it keeps the drag to its end")
  func viewMovedDuringDrag() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("a pan", into: seen))
    let b = screen.addView("b", frame: right)
    try b.onTap { _ in seen.add("b tap") }
    let right = right
    // The tap's landing moves a over b, in front of it: the tap lands in a.
    screen.setHitTest { [weak screen] position in
      if position.x > 0.5 {
        a.frame = right
        a.bringToFront()
        screen?.setHitTest(nil)
        return screen?.view(at: position)
      }
      return a
    }
    _ = try await replay(dragWithTap, on: screen)
    #expect(seen.all == ["a pan began", "a pan ended"])
    #expect(a.frame == right)
  }

  @Test("a view removed during a gesture on it gets cancelled; a drag on another view goes on to its end")
  func viewRemovedDuringGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("a pan", into: seen))
    let b = screen.addView("b", frame: ViewFrame(x: 0.5, y: 0, width: 0.5, height: 0.5))
    try b.onPan(Self.phases("b pan", into: seen))
    // The tap's landing at the bottom right, during both drags, removes b.
    screen.setHitTest { position in
      if position.x < 0.5 { return a }
      if position.y < 0.5 { return b }
      b.remove()
      return nil
    }
    _ = try await replay(
      panel + """
        drag at=100ms from=0.05,0.5 to=0.4,0.5 duration=1s
        drag at=100ms from=0.55,0.25 to=0.9,0.25 duration=1s
        tap at=500ms x=0.75 y=0.75
        """, on: screen)
    let all = seen.all
    #expect(all.filter { $0.hasPrefix("a") } == ["a pan began", "a pan ended"])
    // What b reported before its removal may not have reached the queue by then: once
    // removed, only the cancel does.
    #expect(all.filter { $0.hasPrefix("b") }.last == "b pan cancelled")
    #expect(!all.contains("b pan ended"))
  }

  /// Two drags on the left half, the tap on the right half during the first.
  var twoDrags: String {
    dragWithTap + "\n" + "drag at=2s from=0.05,0.5 to=0.4,0.5 duration=1s"
  }

  /// Every call of a handler as "name what time", time in milliseconds.
  static func calls(_ name: String, into seen: Seen) -> @Sendable (String, Duration) -> Void {
    { what, time in seen.add("\(name) \(what) \(time / .milliseconds(1))") }
  }

  /// The calls of `name`, without the name, at `start` ms or later and before `end` ms.
  static func calls(of name: String, in all: [String], from start: Double = 0, to end: Double = .infinity) -> [String] {
    all.filter { $0.hasPrefix(name + " ") }.map { String($0.dropFirst(name.count + 1)) }.filter {
      let time = Double($0.split(separator: " ").last ?? "") ?? -1
      return time >= start && time < end
    }
  }

  @Test(
    "a second handler of a step binding, added during a gesture, gets none of its firings and all of the next one's")
  func stepHandlerJoinsAtTheNextGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let first = Self.calls("first", into: seen)
    try a.onPan(.right, step: .millimetres(10)) { pan in first("\(pan.phase)", pan.time) }
    let added = Atomic<Bool>(false)
    // The tap's landing, during the first drag, adds a second handler of the same binding.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) {
        let second = Self.calls("second", into: seen)
        _ = try? a.onPan(.right, step: .millimetres(10)) { pan in second("\(pan.phase)", pan.time) }
      }
      return nil
    }
    _ = try await replay(twoDrags, on: screen)
    let all = seen.all
    // The first drag fired steps and its end after the tap: there was something to miss.
    let firstDrag = Self.calls(of: "first", in: all, from: 500, to: 2000)
    #expect(firstDrag.contains { $0.hasPrefix("step") })
    #expect(firstDrag.contains { $0.hasPrefix("ended") })
    // The second handler gets exactly what the first gets of the second drag.
    let secondDrag = Self.calls(of: "first", in: all, from: 2000)
    #expect(!secondDrag.isEmpty)
    #expect(Self.calls(of: "second", in: all) == secondDrag)
  }

  @Test("a second handler of a continuous gesture, added during it, gets none of its motions and all of the next one's")
  func motionHandlerJoinsAtTheNextGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let first = Self.calls("first", into: seen)
    try a.onPan { motion in first("\(motion.phase)", motion.time) }
    let added = Atomic<Bool>(false)
    // The tap's landing, during the first drag, adds a second handler to the same entry.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) {
        let second = Self.calls("second", into: seen)
        _ = try? a.onPan { motion in second("\(motion.phase)", motion.time) }
      }
      return nil
    }
    _ = try await replay(twoDrags, on: screen)
    let all = seen.all
    let firstDrag = Self.calls(of: "first", in: all, from: 500, to: 2000)
    #expect(firstDrag.contains { $0.hasPrefix("changed") })
    #expect(firstDrag.contains { $0.hasPrefix("ended") })
    let secondDrag = Self.calls(of: "first", in: all, from: 2000)
    #expect(secondDrag.first?.hasPrefix("began") == true)
    #expect(Self.calls(of: "second", in: all) == secondDrag)
  }

  @Test("a handler cancelled during a gesture is not called again; the other handler of its binding goes on")
  func handlerCancelledDuringGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let first = Self.calls("first", into: seen)
    try a.onPan { motion in first("\(motion.phase)", motion.time) }
    let second = Self.calls("second", into: seen)
    let token = try a.onPan { motion in second("\(motion.phase)", motion.time) }
    // The tap's landing, during the first drag, cancels the second handler.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      token.cancel()
      return nil
    }
    _ = try await replay(twoDrags, on: screen)
    let all = seen.all
    #expect(Self.calls(of: "first", in: all, from: 500).filter { $0.hasPrefix("ended") }.count == 2)
    // What reached the queue before the cancel may have run (a recording plays faster than
    // the queue takes it); nothing after it.
    #expect(Self.calls(of: "second", in: all, from: 500).isEmpty)
  }

  @Test("thresholds changed during a pinch apply from the next one; the pinch in progress keeps its own to its end")
  func thresholdsChangedDuringGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let calls = Self.calls("pinch", into: seen)
    try a.onPinch { motion in
      if motion.phase != .changed { calls("\(motion.phase) \(motion.scale)", motion.time) }
    }
    var thresholds = screen.thresholds
    thresholds.pinchOut = 1.8
    let changed = Atomic<Bool>(false)
    // The tap's landing, before the first pinch reaches the screen's pinch-out scale, asks
    // for a larger one.
    screen.setHitTest { [weak screen, thresholds] position in
      guard position.x > 0.5 else { return a }
      if !changed.exchange(true, ordering: .relaxed) { try? screen?.setThresholds(thresholds) }
      return nil
    }
    _ = try await replay(
      panel + """
        pinch at=100ms center=0.25,0.5 from=30mm to=60mm duration=1s
        tap at=150ms x=0.75 y=0.5
        pinch at=2s center=0.25,0.5 from=30mm to=60mm duration=1s
        """, on: screen)
    #expect(screen.thresholds.pinchOut == 1.8)
    let all = seen.all
    /// The phase and scale of each call from `start` ms on, before `end`.
    func phases(from start: Double, to end: Double) -> [(phase: Substring, scale: Double)] {
      Self.calls(of: "pinch", in: all, from: start, to: end).map {
        let words = $0.split(separator: " ")
        return (words[0], Double(words[1]) ?? 0)
      }
    }
    let first = phases(from: 0, to: 2000)
    let second = phases(from: 2000, to: .infinity)
    #expect(first.map(\.phase) == ["began", "ended"])
    #expect(second.map(\.phase) == ["began", "ended"])
    // The pinch in progress began at the screen's default pinch-out scale, the next one at
    // the new.
    #expect(first.first.map { $0.scale < 1.8 } == true)
    #expect(first.first.map { $0.scale >= GestureThresholds().pinchOut } == true)
    #expect(second.first.map { $0.scale >= 1.8 } == true)
  }

  @Test(
    "a simultaneous group made during a gesture applies from the next one; the gesture in progress keeps one winner")
  func simultaneousGroupMadeDuringGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let pinch = Self.calls("pinch", into: seen)
    try a.onPinch { motion in if motion.phase != .changed { pinch("\(motion.phase)", motion.time) } }
    let rotate = Self.calls("rotate", into: seen)
    try a.onRotate { motion in if motion.phase != .changed { rotate("\(motion.phase)", motion.time) } }
    let changed = Atomic<Bool>(false)
    // The tap's landing, as the first turn and spread begins, lets pinch and rotate go together.
    screen.setHitTest { [weak screen] position in
      guard position.x > 0.5 else { return a }
      if !changed.exchange(true, ordering: .relaxed) { try? screen?.recognizeSimultaneously(.pinch, .rotate) }
      return nil
    }
    _ = try await replay(
      panel + """
        rotate at=100ms center=0.25,0.5 span=30mm by=90deg to=60mm duration=600ms
        tap at=150ms x=0.75 y=0.5
        rotate at=2s center=0.25,0.5 span=30mm by=90deg to=60mm duration=600ms
        """, on: screen)
    let all = seen.all
    let first = ["pinch", "rotate"].filter { !Self.calls(of: $0, in: all, to: 2000).isEmpty }
    #expect(first.count == 1)
    for name in first { #expect(Self.calls(of: name, in: all, to: 2000).map { $0.prefix(5) } == ["began", "ended"]) }
    for name in ["pinch", "rotate"] {
      #expect(Self.calls(of: name, in: all, from: 2000).map { $0.prefix(5) } == ["began", "ended"])
    }
  }

  @Test("a handler added during the last gesture of one recording gets the gestures of the next source")
  func handlerAddedBeforeAnotherSource() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("first", into: seen))
    let added = Atomic<Bool>(false)
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) { _ = try? a.onPan(Self.phases("second", into: seen)) }
      return nil
    }
    _ = try await replay(dragWithTap, on: screen)
    // Another recording, another recognizer: its sequences come after the first's.
    _ = try await replay(panel + "drag at=100ms from=0.05,0.5 to=0.4,0.5 duration=1s", on: screen)
    #expect(seen.all == ["first began", "first ended", "first began", "second began", "first ended", "second ended"])
  }

  @Test("a binding added during a gesture comes before the ones a continuous handler needs, as it would after it")
  func bindingOrderAfterAChangeDuringAGesture() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    // A long press motion makes a's long presses recognized by a binding without a handler.
    try a.onLongPressMotion { _ in }
    try b.onPan { _ in }
    let added = Atomic<Bool>(false)
    // The drag's landing on b adds a long press handler on a: the same trigger as that
    // binding, which must not take its firings.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) { _ = try? a.onLongPress { _ in seen.add("a long press") } }
      return b
    }
    _ = try await replay(
      panel + """
        drag at=100ms from=0.6,0.5 to=0.9,0.5 duration=2s
        hold at=500ms x=0.25 y=0.5 duration=1s
        hold at=3s x=0.25 y=0.5 duration=1s
        """, on: screen)
    // During the drag, and after it once nothing is in progress.
    #expect(seen.all == ["a long press", "a long press"])
  }

  @Test("a double tap whose bindings change between its taps fires the handler it began with")
  func bindingsChangedBetweenTaps() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    let swipe = try b.onSwipe(.left) { _ in seen.add("b swipe") }
    try a.onTap(taps: 2) { tap in seen.add("a \(tap.taps) taps") }
    // The tap on b, between a's taps, removes b's swipe: a's binding comes first from then
    // on, while the second tap joins the chain that began with the bindings before.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      swipe.cancel()
      return b
    }
    _ = try await replay(
      panel + """
        tap at=100ms x=0.25 y=0.5 taps=2 gap=150ms
        tap at=230ms x=0.75 y=0.5
        """, on: screen)
    #expect(seen.all == ["a 2 taps"])
  }

  @Test("a handler added between the taps of a double tap gets the next double tap, not that one")
  func handlerAddedBetweenTaps() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let b = screen.addView("b", frame: right)
    try a.onTap(taps: 2) { _ in seen.add("first") }
    let added = Atomic<Bool>(false)
    // The tap on b, between a's first two taps, adds a second double-tap handler on a.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) { _ = try? a.onTap(taps: 2) { _ in seen.add("second") } }
      return b
    }
    _ = try await replay(
      panel + """
        tap at=100ms x=0.25 y=0.5 taps=2 gap=150ms
        tap at=230ms x=0.75 y=0.5
        tap at=1500ms x=0.25 y=0.5 taps=2 gap=150ms
        """, on: screen)
    #expect(seen.all == ["first", "first", "second"])
  }

  @Test("a touch handler added while a finger is down on its view follows the next contacts, not that one")
  func touchHandlerAddedDuringContact() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let a = screen.addView("a", frame: left)
    let first = Self.calls("first", into: seen)
    a.onTouch { touch in first("\(touch.phase)", touch.time) }
    let added = Atomic<Bool>(false)
    // The tap's landing, during the first drag, adds a second touch handler on a.
    screen.setHitTest { position in
      guard position.x > 0.5 else { return a }
      if !added.exchange(true, ordering: .relaxed) {
        let second = Self.calls("second", into: seen)
        a.onTouch { touch in second("\(touch.phase)", touch.time) }
      }
      return nil
    }
    _ = try await replay(twoDrags, on: screen)
    let all = seen.all
    #expect(Self.calls(of: "first", in: all, from: 500, to: 2000).contains { $0.hasPrefix("up") })
    let secondDrag = Self.calls(of: "first", in: all, from: 2000)
    #expect(secondDrag.first?.hasPrefix("down") == true)
    #expect(Self.calls(of: "second", in: all) == secondDrag)
  }

  @Test("a named region made during a drag on a view takes the taps that land in it during the drag; the drag ends")
  func namedRegionMadeDuringDrag() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let top = try screen.region("top", x: 0.5, y: 0, width: 0.5, height: 0.25)
    try screen.onTap(in: top) { tap in seen.add("\(tap.region?.name ?? "-") tap") }
    let a = screen.addView("a", frame: left)
    try a.onPan(Self.phases("a pan", into: seen))
    let made = Atomic<Bool>(false)
    // The first tap on the right half, during the drag on a, makes a region below "top".
    screen.setHitTest { [weak screen] position in
      guard position.x > 0.5 else { return a }
      if !made.exchange(true, ordering: .relaxed) {
        let corner = try? screen?.region("corner", x: 0.5, y: 0.75, width: 0.5, height: 0.25)
        _ = try? screen?.onTap(in: corner) { tap in seen.add("\(tap.region?.name ?? "-") tap") }
      }
      return nil
    }
    _ = try await replay(
      dragWithTap + "\n" + """
        tap at=700ms x=0.75 y=0.9
        tap at=900ms x=0.75 y=0.1
        tap at=2s x=0.75 y=0.9
        tap at=2500ms x=0.75 y=0.1
        """, on: screen)
    #expect(seen.all == ["a pan began", "corner tap", "top tap", "a pan ended", "corner tap", "top tap"])
  }
}
