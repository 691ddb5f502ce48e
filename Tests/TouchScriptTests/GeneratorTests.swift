import Testing

@testable import GestureCore
@testable import TouchScript

/// Events as `time-in-ms NAME value` strings, so whole sequences compare at a glance.
func describe(_ events: [RawEvent]) -> [String] {
  events.map { event in
    let name: String
    if event.type == EventType.syn && event.code == SynCode.report {
      name = "SYN"
    } else if event.type == EventType.syn && event.code == SynCode.mtReport {
      name = "MT_SYN"
    } else {
      name = EvemuWriter.codeName(type: event.type, code: event.code)
        .replacingPrefix("ABS_MT_POSITION_", with: "MT_").replacingPrefix("ABS_MT_", with: "MT_")
    }
    let value = name == "SYN" || name == "MT_SYN" ? "" : " \(event.value)"
    return "\(event.time.microseconds / 1000) \(name)\(value)"
  }
}

extension String {
  func replacingPrefix(_ prefix: String, with replacement: String) -> String {
    hasPrefix(prefix) ? replacement + dropFirst(prefix.count) : self
  }
}

func script(_ text: String) throws -> TouchScript {
  try TouchScript.parse(text, file: "test.touch")
}

@Suite("Protocol B events")
struct ProtocolBTests {
  @Test("two overlapping fingers: slots switch only when needed, pointer follows the oldest")
  func twoFingers() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000 resolution=10 slots=4
      at 0ms down 1 0.1 0.2
      at 10ms down 2 0.3 0.4
      at 20ms up 1
      at 30ms up 2
      """)
    #expect(
      describe(result.events) == [
        "0 MT_TRACKING_ID 0", "0 MT_X 100", "0 MT_Y 200", "0 BTN_TOUCH 1", "0 ABS_X 100",
        "0 ABS_Y 200", "0 SYN",
        "10 MT_SLOT 1", "10 MT_TRACKING_ID 1", "10 MT_X 300", "10 MT_Y 400", "10 SYN",
        "20 MT_SLOT 0", "20 MT_TRACKING_ID -1", "20 ABS_X 300", "20 ABS_Y 400", "20 SYN",
        "30 MT_SLOT 1", "30 MT_TRACKING_ID -1", "30 BTN_TOUCH 0", "30 SYN",
      ])
  }

  @Test("a new contact where the last one was sends its tracking id but not the unchanged position")
  func unchangedPositionNotResent() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000
      at 0ms down 1 0.5 0.5
      at 50ms up 1
      at 100ms down 1 0.5 0.5
      at 150ms up 1
      """)
    #expect(
      describe(result.events) == [
        "0 MT_TRACKING_ID 0", "0 MT_X 500", "0 MT_Y 500", "0 BTN_TOUCH 1", "0 ABS_X 500",
        "0 ABS_Y 500", "0 SYN",
        "50 MT_TRACKING_ID -1", "50 BTN_TOUCH 0", "50 SYN",
        "100 MT_TRACKING_ID 1", "100 BTN_TOUCH 1", "100 SYN",
        "150 MT_TRACKING_ID -1", "150 BTN_TOUCH 0", "150 SYN",
      ])
  }

  @Test(
    "a moving finger is sampled at the rate; only the changing axis is sent; a resting one sends nothing"
  )
  func sampledMovement() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000
      rate 100hz
      at 0ms down 1 0.0 0.5
      at 40ms move 1 0.4 0.5
      at 100ms up 1
      """)
    #expect(
      describe(result.events) == [
        "0 MT_TRACKING_ID 0", "0 MT_Y 500", "0 BTN_TOUCH 1", "0 ABS_Y 500", "0 SYN",
        "10 MT_X 100", "10 ABS_X 100", "10 SYN",
        "20 MT_X 200", "20 ABS_X 200", "20 SYN",
        "30 MT_X 300", "30 ABS_X 300", "30 SYN",
        "40 MT_X 400", "40 ABS_X 400", "40 SYN",
        "100 MT_TRACKING_ID -1", "100 BTN_TOUCH 0", "100 SYN",
      ])
  }

  @Test("the description has slots, tracking ids, pointer axes, BTN_TOUCH and INPUT_PROP_DIRECT")
  func description() throws {
    let result = try script(
      "panel mt-b name=\"Scripted Panel B\" vendor=0x1234 product=0x5678 x=0..4095 y=0..2303 resolution=16 slots=10"
    )
    let device = result.device
    #expect(device.name == "Scripted Panel B")
    #expect(device.vendor == 0x1234 && device.product == 0x5678 && device.bus == 3)
    #expect(device.touchProtocol == .multitouchB(slots: 10))
    #expect(device.axes[AbsCode.mtPositionX] == AxisInfo(minimum: 0, maximum: 4095, resolution: 16))
    #expect(device.axes[AbsCode.mtPositionY] == AxisInfo(minimum: 0, maximum: 2303, resolution: 16))
    #expect(device.axes[AbsCode.x] == device.axes[AbsCode.mtPositionX])
    #expect(device.keys == [KeyCode.btnTouch])
    #expect(device.isDirect)
    #expect(result.events.isEmpty)
  }

  @Test("a landing takes a slot that was free before the frame, not one lifted in the same frame")
  func slotNotHandedOverInOneFrame() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000 slots=2
      at 0ms down 1 0.1 0.1
      at 50ms up 1
      at 50ms down 2 0.2 0.2
      at 90ms up 2
      """)
    let lines = describe(result.events)
    #expect(lines.contains("50 MT_SLOT 1"))
    #expect(lines.contains("50 MT_TRACKING_ID -1"))
    #expect(lines.contains("50 MT_TRACKING_ID 1"))
  }

  @Test("more fingers than slots is an error on the line that adds one too many")
  func tooManyFingers() throws {
    let error = #expect(throws: TouchScriptError.self) {
      try script(
        """
        panel mt-b x=0..1000 y=0..1000 slots=2
        tap at=0ms x=0.5 y=0.5 fingers=2
        at 10ms down extra 0.9 0.9
        at 200ms up extra
        """)
    }
    #expect(error?.line == 3)
    #expect(error?.message.contains("at most 2") == true)
  }
}

@Suite("Other panel kinds")
struct OtherPanelKindTests {
  @Test("mt-b-slot0: tracking ids without ABS_MT_SLOT, one contact at a time")
  func slotZero() throws {
    let result = try script(
      """
      panel mt-b-slot0 x=0..1000 y=0..1000
      at 0ms down 1 0.1 0.2
      at 20ms up 1
      """)
    #expect(result.device.axes[AbsCode.mtSlot] == nil)
    #expect(result.device.touchProtocol == .multitouchB(slots: 1))
    #expect(
      describe(result.events) == [
        "0 MT_TRACKING_ID 0", "0 MT_X 100", "0 MT_Y 200", "0 BTN_TOUCH 1", "0 ABS_X 100",
        "0 ABS_Y 200", "0 SYN",
        "20 MT_TRACKING_ID -1", "20 BTN_TOUCH 0", "20 SYN",
      ])
    let error = #expect(throws: TouchScriptError.self) {
      try script("panel mt-b-slot0\ntap at=0ms x=0.5 y=0.5 fingers=2")
    }
    #expect(error?.line == 2)
  }

  @Test("mt-a: every frame lists every contact; the frame after the last lift is empty")
  func protocolA() throws {
    let result = try script(
      """
      panel mt-a x=0..1000 y=0..1000
      rate 100hz
      at 0ms down 1 0.1 0.2
      at 10ms down 2 0.3 0.4
      at 20ms up 1
      at 30ms up 2
      """)
    #expect(result.device.touchProtocol == .multitouchA)
    #expect(result.device.axes[AbsCode.x] == nil, "mt-a reports no pointer axes unless pointer=yes")
    #expect(
      describe(result.events) == [
        "0 MT_X 100", "0 MT_Y 200", "0 MT_SYN", "0 BTN_TOUCH 1", "0 SYN",
        "10 MT_X 100", "10 MT_Y 200", "10 MT_SYN", "10 MT_X 300", "10 MT_Y 400", "10 MT_SYN",
        "10 SYN",
        "20 MT_X 300", "20 MT_Y 400", "20 MT_SYN", "20 SYN",
        "30 MT_SYN", "30 BTN_TOUCH 0", "30 SYN",
      ])
  }

  @Test("mt-a keeps reporting a resting finger at the rate")
  func protocolARepeats() throws {
    let result = try script(
      "panel mt-a x=0..1000 y=0..1000\nrate 50hz\nat 0ms down 1 0.5 0.5\nat 100ms up 1")
    let reports = result.events.filter { $0.type == EventType.syn && $0.code == SynCode.report }
    #expect(reports.map { $0.time.microseconds / 1000 } == [0, 20, 40, 60, 80, 100])
  }

  @Test("single: ABS_X/ABS_Y and BTN_TOUCH; single-left: BTN_LEFT")
  func singleTouch() throws {
    for (kind, button, name) in [
      ("single", KeyCode.btnTouch, "BTN_TOUCH"), ("single-left", KeyCode.btnLeft, "BTN_LEFT"),
    ] {
      let result = try script(
        """
        panel \(kind) x=0..1000 y=0..1000 direct=no
        at 0ms down 1 0.1 0.2
        at 10ms move 1 0.1 0.3
        at 20ms up 1
        """)
      #expect(result.device.keys == [button])
      #expect(result.device.touchProtocol == .singleTouch(button: button))
      #expect(!result.device.isDirect)
      #expect(
        describe(result.events) == [
          "0 ABS_X 100", "0 ABS_Y 200", "0 \(name) 1", "0 SYN",
          "10 ABS_Y 300", "10 SYN",
          "20 \(name) 0", "20 SYN",
        ])
    }
  }

  @Test("single-touch panels cannot have two fingers down")
  func singleTouchOneFinger() throws {
    let error = #expect(throws: TouchScriptError.self) {
      try script("panel single\n\ntap at=0ms x=0.5 y=0.5 fingers=2 stagger=20ms")
    }
    #expect(error?.line == 3)
  }
}

@Suite("Jitter, timing and macros")
struct MacroTests {
  /// Samples of one axis code, in order.
  func values(_ events: [RawEvent], _ code: UInt16) -> [Int32] {
    events.filter { $0.type == EventType.abs && $0.code == code }.map(\.value)
  }

  @Test("jitter is deterministic per seed and stays within its amplitude and the axis range")
  func jitter() throws {
    let text = """
      panel mt-b x=0..999 y=0..999 resolution=10
      jitter 2mm
      at 0ms down 1 0 0
      at 0ms down 2 1 1
      at 0ms down 3 0.5 0.5
      at 500ms up 1
      at 500ms up 2
      at 500ms up 3
      """
    let first = try script("seed 7\n" + text)
    let again = try script("seed 7\n" + text)
    let other = try script("seed 8\n" + text)
    #expect(first.events == again.events)
    #expect(first.events != other.events)
    let xs = values(first.events, AbsCode.mtPositionX)
    #expect(xs.count > 50, "resting fingers jitter on every sample")
    #expect(xs.allSatisfy { $0 >= 0 && $0 <= 999 })
    #expect(values(first.events, AbsCode.mtPositionY).allSatisfy { $0 >= 0 && $0 <= 999 })
    #expect(xs.contains(0) && xs.contains(999), "edge fingers are clamped, not pushed outside")
    // The middle finger (slot 2) stays within 2 mm = 20 units of 499.5.
    var slot = 0
    var middle: [Int32] = []
    for event in first.events where event.type == EventType.abs {
      if event.code == AbsCode.mtSlot { slot = Int(event.value) }
      if event.code == AbsCode.mtPositionX && slot == 2 { middle.append(event.value) }
    }
    #expect(!middle.isEmpty)
    #expect(middle.allSatisfy { abs(Double($0) - 499.5) <= 20.5 })
  }

  @Test("tap with stagger: fingers land stagger apart, side by side at spacing, and lift together")
  func staggeredTap() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000 resolution=10
      tap at=100ms x=0.5 y=0.5 fingers=3 stagger=30ms spacing=20mm duration=150ms
      """)
    let downs = result.events.filter { $0.code == AbsCode.mtTrackingID && $0.value >= 0 }
    #expect(downs.map { $0.time.microseconds / 1000 } == [100, 130, 160])
    let ups = result.events.filter { $0.code == AbsCode.mtTrackingID && $0.value < 0 }
    #expect(ups.map { $0.time.microseconds / 1000 } == [250, 250, 250])
    #expect(values(result.events, AbsCode.mtPositionX) == [300, 500, 700])
  }

  @Test(
    "taps= repeats a tap after gap; move= slides the finger, reaching the end one sample before lifting"
  )
  func repeatedAndMovingTaps() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000 resolution=10
      tap at=0ms x=0.5 y=0.5 taps=2 duration=50ms gap=100ms
      tap at=1s x=0.5 y=0.5 duration=100ms move=4mm,0
      """)
    let downs = result.events.filter { $0.code == AbsCode.mtTrackingID && $0.value >= 0 }
    #expect(downs.map { $0.time.microseconds / 1000 } == [0, 150, 1000])
    let moving = result.events.filter {
      $0.code == AbsCode.mtPositionX && $0.time.microseconds >= 1_000_000
    }
    #expect(moving.last?.value == 540)
    #expect(moving.last?.time.microseconds == 1_090_000)
  }

  @Test("swipe: fingers rest until the last lands, then move together to the end")
  func swipe() throws {
    let result = try script(
      """
      panel mt-b x=0..1000 y=0..1000 resolution=10
      swipe at=0ms from=0.5,0.8 by=0,-40mm fingers=2 stagger=20ms spacing=10mm duration=220ms
      """)
    var slot = 0
    var ys: [[Int32]] = [[], []]
    var times: [[Int64]] = [[], []]
    for event in result.events where event.type == EventType.abs {
      if event.code == AbsCode.mtSlot { slot = Int(event.value) }
      if event.code == AbsCode.mtPositionY {
        ys[slot].append(event.value)
        times[slot].append(event.time.microseconds / 1000)
      }
    }
    #expect(ys[0].first == 800 && ys[1].first == 800)
    #expect(times[0].dropFirst().first == 30, "finger 1 rests until finger 2 lands at 20 ms")
    #expect(ys[0].last == 400 && ys[1].last == 400)
    #expect(times[0].last == 210, "the end is reached one 10 ms sample before the lift at 220 ms")
    let ups = result.events.filter { $0.code == AbsCode.mtTrackingID && $0.value < 0 }
    #expect(ups.map { $0.time.microseconds / 1000 } == [220, 220])
  }

  /// Both fingers' positions in millimetres at every frame where both are down.
  func twoFingerSamples(_ result: TouchScript) -> [((Double, Double), (Double, Double))] {
    let size = result.panel.millimetres
    let unitsX = Double(result.panel.xAxis.maximum - result.panel.xAxis.minimum)
    let unitsY = Double(result.panel.yAxis.maximum - result.panel.yAxis.minimum)
    var slot = 0
    var state: [(x: Int32, y: Int32, down: Bool)] = Array(repeating: (0, 0, false), count: 2)
    var samples: [((Double, Double), (Double, Double))] = []
    for event in result.events {
      switch (event.type, event.code) {
      case (EventType.abs, AbsCode.mtSlot): slot = Int(event.value)
      case (EventType.abs, AbsCode.mtTrackingID): state[slot].down = event.value >= 0
      case (EventType.abs, AbsCode.mtPositionX): state[slot].x = event.value
      case (EventType.abs, AbsCode.mtPositionY): state[slot].y = event.value
      case (EventType.syn, SynCode.report):
        if state[0].down && state[1].down {
          func mm(_ s: (x: Int32, y: Int32, down: Bool)) -> (Double, Double) {
            (Double(s.x) / unitsX * size.width, Double(s.y) / unitsY * size.height)
          }
          samples.append((mm(state[0]), mm(state[1])))
        }
      default: break
      }
    }
    return samples
  }

  func distance(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
    ((a.0 - b.0) * (a.0 - b.0) + (a.1 - b.1) * (a.1 - b.1)).squareRoot()
  }

  @Test("pinch with still=1: finger 1 does not move, the span goes from → to")
  func pinch() throws {
    let result = try script(
      """
      panel mt-b x=0..2000 y=0..2000 resolution=10
      pinch at=0ms center=0.5,0.5 from=40mm to=20mm still=1 stagger=60ms duration=400ms
      """)
    let samples = twoFingerSamples(result)
    #expect(samples.count > 20)
    #expect(Set(samples.map { "\($0.0)" }).count == 1, "finger 1 stays still")
    #expect(abs(distance(samples.first!.0, samples.first!.1) - 40) < 0.15)
    #expect(abs(distance(samples.last!.0, samples.last!.1) - 20) < 0.15)
  }

  @Test("rotate follows the arc: the span stays while the angle turns by `by`, clockwise positive")
  func rotate() throws {
    let result = try script(
      """
      panel mt-b x=0..2000 y=0..2000 resolution=10
      rotate at=0ms center=0.5,0.5 span=40mm by=90deg duration=400ms
      """)
    let samples = twoFingerSamples(result)
    for (a, b) in samples { #expect(abs(distance(a, b) - 40) < 0.2) }
    let (a, b) = samples.last!
    // Finger 2 started right of finger 1 and turned a quarter clockwise: now below it (y down).
    #expect(abs(b.0 - a.0) < 0.2)
    #expect(abs(b.1 - a.1 - 40) < 0.2)
  }

  @Test("a panel without resolution uses gestured's rule: the longer axis is 300 mm")
  func guessedSize() throws {
    let result = try script(
      """
      panel mt-b x=0..4000 y=0..3000
      at 0ms down 1 0.5+30mm 0.5-15mm
      at 50ms up 1
      """)
    #expect(result.panel.millimetres == PanelSize(width: 300, height: 225))
    let geometry = PanelGeometry(device: result.device, profile: Profile())
    #expect(geometry?.sizeSource == .guessed)
    #expect(geometry?.deviceWidth == 300)
    #expect(values(result.events, AbsCode.mtPositionX) == [2400])
    #expect(values(result.events, AbsCode.mtPositionY) == [1300])
  }

  @Test("size= overrides the millimetres the script uses, as a config's size: does for gestured")
  func declaredSize() throws {
    let result = try script(
      "panel mt-b x=0..1000 y=0..1000 resolution=5 size=100x50mm\nat 0ms down 1 0+10mm 0+10mm")
    #expect(values(result.events, AbsCode.mtPositionX) == [100])
    #expect(values(result.events, AbsCode.mtPositionY) == [200])
  }

  @Test("a macro that would leave the panel is an error on its line")
  func offPanel() throws {
    let error = #expect(throws: TouchScriptError.self) {
      try script(
        "panel mt-b x=0..1000 y=0..1000 resolution=10\n\nswipe at=0ms from=0.5,0.2 by=0,-30mm")
    }
    #expect(error?.line == 3)
    #expect(error?.message.contains("outside the panel") == true)
  }

  @Test("end keeps a finger that never lifts down until then")
  func unliftedFinger() throws {
    let result = try script("panel mt-a x=0..1000 y=0..1000\nend 50ms\nat 0ms down 1 0.5 0.5")
    let reports = result.events.filter { $0.type == EventType.syn && $0.code == SynCode.report }
    #expect(reports.map { $0.time.microseconds / 1000 } == [0, 10, 20, 30, 40, 50])
    #expect(
      !result.events.contains { $0.type == EventType.key && $0.value == 0 }, "no lift is reported")
  }
}
