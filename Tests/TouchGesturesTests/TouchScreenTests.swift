import Dispatch
import GesturedConfig
import Synchronization
import Testing
import TouchScript

@testable import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// What handlers saw, in order: they all run on the screen's one serial queue.
final class Seen: Sendable {
  private let lines = Mutex<[String]>([])
  func add(_ line: String) { lines.withLock { $0.append(line) } }
  var all: [String] { lines.withLock { $0 } }
}

/// Plays `script` (a touch script) through `screen` and waits for the recording's end; the
/// source events other than `finished`, as text.
func replay(_ script: String, on screen: TouchScreen) async throws -> [String] {
  let recording = try TouchScript.parse(script, file: "test.touch").evemuText()
  let path = "/tmp/touchgestures-\(getpid())-\(UInt64.random(in: 0...UInt64.max)).evemu"
  #expect(write(recording, to: path))
  defer { unlink(path) }
  let events = Seen()
  await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
    screen.start(.recording(path)) { event in
      switch event {
      case .finished: done.resume()
      case .failed(let message):
        events.add("failed: \(message)")
        done.resume()
      default: events.add("\(event)")
      }
    }
  }
  return events.all
}

func write(_ text: String, to path: String) -> Bool {
  guard let file = fopen(path, "w") else { return false }
  defer { fclose(file) }
  return fputs(text, file) >= 0
}

let panel = """
  panel mt-b name="Scripted Panel B" vendor=0x1234 product=0x5678 x=0..4095 y=0..2303 resolution=16 slots=10
  seed 3
  jitter 0.2mm

  """

/// The first diagnostic `gestured check` gives for a one-binding config.
func checkMessage(_ yaml: String) -> String? {
  ConfigLoader.parse(yaml, file: "gestured.yaml").diagnostics.first?.message
}

@Suite("TouchScreen") struct TouchScreenTests {
  @Test("a recording's gestures reach the closures with the config's values, on the screen's queue")
  func replayThroughClosures() async throws {
    let queue = DispatchQueue(label: "test.handlers")
    let screen = TouchScreen(queue: queue)
    let seen = Seen()
    let corner = try screen.region("corner", x: 0, y: 0, width: 0.1, height: 0.1)
    try screen.onTap(taps: 2, in: corner) { tap in
      dispatchPrecondition(condition: .onQueue(queue))
      seen.add("tap \(tap.taps) in \(tap.region?.name ?? "-") fingers \(tap.fingers) at \(tap.time)")
    }
    try screen.onSwipe(.left, fingers: 2) { swipe in seen.add("swipe \(swipe.direction) \(swipe.fingers)") }
    try screen.onLongPress { press in seen.add("long press x \(Int(press.position.x * 10))") }
    let events = try await replay(
      panel + """
        tap at=100ms x=0.04 y=0.05 taps=2
        swipe at=1s from=0.7,0.5 to=0.3,0.5 fingers=2
        hold at=2s x=0.5 y=0.8
        """, on: screen)
    #expect(events.count == 1)
    #expect(events.first?.hasPrefix(#"connected(name: "Scripted Panel B""#) == true)
    #expect(
      seen.all == [
        "tap 2 in corner fingers 1 at 0.41 seconds", "swipe left 2", "long press x 5",
      ])
  }

  @Test("steps, their end and the scale; a group steps pan and pinch in one sequence")
  func stepsAndGroups() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    try screen.recognizeSimultaneously(.pan, .pinch, .rotate)
    try screen.onPan(.right, fingers: 2, step: .millimetres(12)) { pan in
      if case .ended(let steps) = pan.phase { seen.add("pan end \(steps) dx \(Int(pan.offset.dx))") }
    }
    try screen.onPinch(.out, step: .percent(10)) { pinch in
      switch pinch.phase {
      case .step(let k): seen.add("pinch \(k) \(Int(pinch.scale * 100))")
      case .ended(let steps): seen.add("pinch end \(steps)")
      case .oneShot: seen.add("one-shot?")
      }
    }
    _ = try await replay(
      panel + """
        at 100ms down 1 0.3 0.5
        at 100ms down 2 0.3+40mm 0.5
        at 200ms move 1 0.3 0.5
        at 200ms move 2 0.3+40mm 0.5
        at 1200ms move 1 0.3+35mm 0.5
        at 1200ms move 2 0.3+95mm 0.5
        at 1300ms up 1
        at 1300ms up 2
        """, on: screen)
    #expect(seen.all == ["pinch 1 125", "pinch 2 125", "pinch 3 133", "pinch 4 146", "pan end 3 dx 44", "pinch end 4"])
  }

  @Test("firings reach the queue in at most one hop each, frames that fire nothing in none")
  func hops() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    try screen.onPinch(.out, step: .percent(5)) { pinch in seen.add("pinch \(pinch.phase)") }
    try screen.onTap { _ in seen.add("tap") }
    // About 100 frames of a slow pinch, then a tap.
    _ = try await replay(
      panel + """
        pinch at=100ms center=0.5,0.5 from=40mm to=60mm duration=1s
        tap at=2s x=0.5 y=0.5
        """, on: screen)
    let hops = screen.handlerHops
    #expect(seen.all.count >= 8)
    #expect(hops >= 1 && hops <= seen.all.count)
    // A two-second drag no binding wants: hundreds of frames, no hop.
    _ = try await replay(panel + "drag at=100ms from=0.2,0.5 to=0.8,0.5\n", on: screen)
    #expect(screen.handlerHops == hops)
  }

  @Test("a cancelled handler is not called, and its trigger may be bound again")
  func cancel() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    let token = try screen.onTap { _ in seen.add("first") }
    token.cancel()
    token.cancel()
    #expect(token.isCancelled)
    try screen.onTap { _ in seen.add("second") }
    _ = try await replay(panel + "tap at=100ms x=0.5 y=0.5\n", on: screen)
    #expect(seen.all == ["second"])
  }

  @Test("what the config rejects is thrown with gestured check's rule in the words of code, at the call's line")
  func sameErrorsAsTheConfig() throws {
    let screen = TouchScreen(queue: .main)
    func thrown(_ body: () throws -> Void) -> GestureDiagnostic? {
      do {
        try body()
        return nil
      } catch { return error as? GestureDiagnostic }
    }
    let taps = thrown { try screen.onTap(taps: 200) { _ in } }
    #expect(taps?.line == #line - 1)
    #expect(taps?.file == #fileID)
    #expect(taps?.description.hasPrefix("\(#fileID):\(#line - 3):") == true)
    // The config's rule, in the words of code: arguments, not keys.
    #expect(checkMessage("bindings: [{ gesture: tap, taps: 200, run: x }]") == "'taps' must be 1 to 100, not 200")
    #expect(taps?.message == "the argument `taps:` must be 1 to 100, not 200")

    let fingers = thrown { try screen.onSwipe(.up, fingers: 6) { _ in } }
    #expect(
      fingers?.message == "the argument `fingers:` must be 1 to 5, not 6")
    #expect(fingers?.hint == "gestured follows up to 5 fingers")

    let step = thrown { try screen.onPinch(.in, step: .percent(150)) { _ in } }
    #expect(
      step?.message
        == checkMessage("bindings: [{ gesture: pinch, direction: in, step: 150%, run: x }]")?.replacing(
          "'step'", with: "the argument `step:`"))
    #expect(step?.hint?.contains("step: .percent(") == true)
    let pan = thrown { try screen.onPan(.up, step: .millimetres(0)) { _ in } }
    #expect(pan?.message.hasPrefix("the argument `step:` must be more than 0mm") == true)
    #expect(pan?.hint?.contains("step: .millimetres(") == true)

    let area = thrown { try screen.region("wide", x: 0.5, width: 0.6) }
    #expect(
      area?.message
        == checkMessage("regions: [{ name: wide, area: { x: 0.5, y: 0, width: 0.6, height: 1 } }]\nbindings: []"))

    // A second handler of the same gesture joins the first (TouchViewTests.severalHandlers).
    try screen.onTap(taps: 2) { _ in }
    #expect(thrown { try screen.onTap(taps: 2) { _ in } } == nil)

    let group = thrown { try screen.recognizeSimultaneously(.pinch, .pinch) }
    #expect(group?.message == "pinch is in the group twice")
    #expect(
      thrown { try screen.recognizeSimultaneously(.pinch) }?.message
        == "a recognizeSimultaneously group needs two or three gestures")

    let other = try TouchScreen(queue: .main).region("elsewhere")
    #expect(thrown { try screen.onLongPress(in: other) { _ in } }?.message == "unknown region 'elsewhere'")
  }

  @Test("thresholds are the config's, checked with its rules (fields for keys), and change recognition")
  func thresholds() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    #expect(screen.thresholds.longPress == .milliseconds(500))
    var wide = GestureThresholds()
    wide.swipeAngle = 50
    #expect(throws: GestureDiagnostic.self) { try screen.setThresholds(wide) }
    do throws(GestureDiagnostic) {
      try screen.setThresholds(wide)
    } catch {
      #expect(
        error.message
          == checkMessage("thresholds: { swipe-angle: 50deg }\nbindings: [{ gesture: tap, run: x }]")?.replacing(
            "'swipe-angle'", with: "`GestureThresholds.swipeAngle`"))
    }
    var instant = GestureThresholds()
    instant.longPress = .zero
    #expect(throws: GestureDiagnostic.self) { try screen.setThresholds(instant) }
    do throws(GestureDiagnostic) {
      try screen.setThresholds(instant)
    } catch {
      #expect(
        error.message
          == checkMessage("thresholds: { long-press: 0ms }\nbindings: [{ gesture: tap, run: x }]")?.replacing(
            "'long-press'", with: "`GestureThresholds.longPress`"))
    }

    let seen = Seen()
    try screen.onLongPress { _ in seen.add("long press") }
    let hold = panel + "hold at=100ms x=0.5 y=0.5 duration=800ms\n"
    _ = try await replay(hold, on: screen)
    #expect(seen.all == ["long press"])
    var patient = GestureThresholds()
    patient.longPress = .seconds(1)
    try screen.setThresholds(patient)
    _ = try await replay(hold, on: screen)
    #expect(seen.all == ["long press"])
  }

  @Test("what the config warns about is in warnings, in the words of code")
  func warnings() throws {
    let screen = TouchScreen(queue: .main)
    #expect(screen.warnings.map(\.message) == ["the screen has no handlers, so nothing is recognized"])
    try screen.region("main")
    let mainLine = #line - 1
    try screen.region("button", x: 0.1, y: 0.1, width: 0.2, height: 0.2)
    try screen.onSwipe(.left, from: .left) { _ in }
    try screen.onPan(.up, fingers: 1, step: .millimetres(10)) { _ in }
    try screen.onPinch(.out) { _ in }
    try screen.recognizeSimultaneously(.pan, .pinch)
    let messages = screen.warnings.map(\.message)
    #expect(
      messages == [
        "region 'button' lies inside 'main', made before it at line \(mainLine): no gesture ever belongs to 'button'",
        "a swipe left from the left edge moves off the panel and can hardly happen",
        "pan and pinch can never share a sequence: their handlers take 1 and 2 fingers",
      ])
    #expect(screen.warnings.allSatisfy { $0.severity == .warning })
  }

  @Test("a recording that cannot be read fails with replay's words, firing nothing")
  func badRecording() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    let seen = Seen()
    try screen.onTap { _ in seen.add("tap") }
    let failed = await withCheckedContinuation { (done: CheckedContinuation<String, Never>) in
      screen.start(.recording("/nonexistent/recording.evemu")) { event in
        if case .failed(let message) = event { done.resume(returning: message) }
      }
    }
    #expect(failed.hasPrefix("cannot read '/nonexistent/recording.evemu'"))
    #expect(seen.all.isEmpty)
  }

  @Test("a device path that is not there: unavailable (absent), then waiting for it")
  func absentDevice() async throws {
    let screen = TouchScreen(queue: DispatchQueue(label: "test.handlers"))
    try screen.onTap { _ in }
    let path = "/nonexistent/event42"
    let events = Seen()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      screen.start(.device(path)) { event in
        switch event {
        case .unavailable(let failure): events.add("unavailable \(failure)")
        case .waiting(let wanted):
          events.add("waiting for \(wanted)")
          done.resume()
        case .failed(let message):
          events.add("failed \(message)")
          done.resume()
        default: events.add("\(event)")
        }
      }
    }
    screen.stop()
    #expect(events.all == ["unavailable \(path): no such device", "waiting for \(path)"])
  }
}
