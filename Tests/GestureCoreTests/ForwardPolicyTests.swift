import Testing

@testable import GestureCore

/// The clone's side of a run: the tracking ids that started on it, the slots they were in,
/// and the moves of its contacts (values written to a slot without a contact, which the
/// clone keeps for the next one, are not moves).
private struct CloneView {
  var trackingIDs: [Int32] = []
  var ends = 0
  var palmEnds = 0
  var slots: Set<Int32> = []
  var moves = 0

  init(_ events: [RawEvent]) {
    var slot: Int32 = 0
    var live: Set<Int32> = []
    for event in events where event.type == EventType.abs {
      switch event.code {
      case AbsCode.mtSlot: slot = event.value
      case AbsCode.mtTrackingID:
        if event.value >= 0 {
          trackingIDs.append(event.value)
          live.insert(slot)
        } else {
          ends += 1
          live.remove(slot)
        }
        slots.insert(slot)
      case AbsCode.mtToolType where event.value == ToolType.palm: palmEnds += 1
      case AbsCode.mtPositionX where live.contains(slot): moves += 1
      default: break
      }
    }
  }
}

private enum PalmPanel {
  /// TestPanel with ABS_MT_TOUCH_MAJOR (no resolution of its own: the X axis's, 20 units per
  /// mm), and ABS_MT_TOOL_TYPE when `toolType`.
  static func device(toolType: Bool = false) -> DeviceDescription {
    var device = TestPanel.device
    device.axes[AbsCode.mtTouchMajor] = AxisInfo(minimum: 0, maximum: 2000)
    if toolType { device.axes[AbsCode.mtToolType] = AxisInfo(minimum: 0, maximum: 2) }
    return device
  }

  /// 25 mm on that panel.
  static let palmMajor: Int32 = 500
  static let fingerMajor: Int32 = 160
}

private func land(_ t: inout Touches, _ finger: Int, _ x: Double, _ y: Double, at ms: Double, major: Int32) {
  t.downWithoutSync(finger, x, y, at: ms)
  t.axisWithoutSync(finger, AbsCode.mtTouchMajor, major, at: ms)
  t.sync(at: ms)
}

/// The same touches on a protocol A panel: at each frame, every contact down with its
/// position, then its touch-major and tool type when it has them, each closed by
/// SYN_MT_REPORT (one empty report when none is down).
private func protocolA(_ events: [RawEvent]) -> [RawEvent] {
  var down: [Int32: [UInt16: Int32]] = [:]
  var slot: Int32 = 0
  var result: [RawEvent] = []
  for event in events {
    func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
      result.append(RawEvent(time: event.time, type: type, code: code, value: value))
    }
    switch (event.type, event.code) {
    case (EventType.abs, AbsCode.mtSlot): slot = event.value
    case (EventType.abs, AbsCode.mtTrackingID): down[slot] = event.value < 0 ? nil : [:]
    case (EventType.abs, let code) where code > AbsCode.mtSlot: down[slot]?[code] = event.value
    case (EventType.syn, SynCode.report):
      for key in down.keys.sorted() {
        for code in [AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtTouchMajor, AbsCode.mtToolType] {
          if let value = down[key]![code] { emit(EventType.abs, code, value) }
        }
        emit(EventType.syn, SynCode.mtReport, 0)
      }
      if down.isEmpty { emit(EventType.syn, SynCode.mtReport, 0) }
      emit(EventType.syn, SynCode.report, 0)
    default: break
    }
  }
  return result
}

/// A protocol A panel's clone, frame by frame: how many reports each written frame has and
/// every X position and touch-major written.
private struct CloneFramesA {
  var reports: [Int] = []
  var xs: [Int32] = []
  var majors: [Int32] = []

  init(_ events: [RawEvent]) {
    var count = 0
    var hasPosition = false
    for event in events {
      switch (event.type, event.code) {
      case (EventType.abs, AbsCode.mtPositionX):
        hasPosition = true
        xs.append(event.value)
      case (EventType.abs, AbsCode.mtPositionY): hasPosition = true
      case (EventType.abs, AbsCode.mtTouchMajor): majors.append(event.value)
      case (EventType.syn, SynCode.mtReport):
        if hasPosition { count += 1 }
        hasPosition = false
      case (EventType.syn, SynCode.report):
        reports.append(count)
        count = 0
      default: break
      }
    }
  }
}

/// A panel without slots or tracking ids: protocol A.
private func protocolADevice(_ device: DeviceDescription) -> DeviceDescription {
  var device = device
  device.axes[AbsCode.mtSlot] = nil
  device.axes[AbsCode.mtTrackingID] = nil
  return device
}

@Suite("Forwarding policies: palms, forward-fingers, wake, independent regions, the hold's bound")
struct ForwardPolicyTests {
  @Test("the palm rule reads touch-major in mm by its own resolution, else the X axis's, else not at all")
  func palmRule() {
    var device = PalmPanel.device()
    #expect(PalmRule(device: device, palmSize: .millimetres(20), diagonal: 100).majorLimit == 400)
    device.axes[AbsCode.mtTouchMajor]?.resolution = 10
    #expect(PalmRule(device: device, palmSize: .millimetres(20), diagonal: 100).majorLimit == 200)
    #expect(!PalmRule(device: device, palmSize: .millimetres(0), diagonal: 100).readsTouchMajor)
    device.axes[AbsCode.mtTouchMajor]?.resolution = 0
    device.axes[AbsCode.mtPositionX]?.resolution = 0
    device.axes[AbsCode.x]?.resolution = 0
    let labelOnly = PalmRule(device: device, palmSize: .millimetres(20), diagonal: 100)
    #expect(!labelOnly.readsTouchMajor)
    #expect(labelOnly.isPalm(toolType: ToolType.palm, touchMajor: 0))
    #expect(!labelOnly.isPalm(toolType: ToolType.finger, touchMajor: 1999))
  }

  @Test("a palm-sized contact neither taps nor reaches the clone; a finger beside it taps, then drags out")
  func palmBesideAFinger() {
    var t = Touches()
    land(&t, 9, 40, 50, at: 0, major: PalmPanel.palmMajor)
    t.tap(150, 50, at: 100, duration: 80)
    t.drag([(3, (150, 50), (180, 50))], from: 600, to: 900)
    t.up(9, at: 1000)
    var palmTap = Touches()
    land(&palmTap, 1, 40, 50, at: 0, major: PalmPanel.palmMajor)
    palmTap.up(1, at: 80)

    let run = ForwardingRun(t, profile([bind(.tap)]), device: PalmPanel.device())
    #expect(run.firings.map(\.gesture) == [.tap])
    let clone = CloneView(run.events)
    // 100 is the palm, 101 the tap (claimed by its binding), 102 the drag.
    #expect(clone.trackingIDs == [102])
    #expect(clone.ends == 1)
    #expect(!clone.slots.contains(0), "the palm's slot")

    let alone = ForwardingRun(palmTap, profile([bind(.tap)]), device: PalmPanel.device())
    #expect(alone.firings.isEmpty)
    #expect(alone.events.isEmpty)

    // 0mm: touch-major is not read, the same contact is a finger that taps.
    var thresholds = Thresholds()
    thresholds.palmSize = .millimetres(0)
    let off = ForwardingRun(palmTap, profile([bind(.tap)], thresholds: thresholds), device: PalmPanel.device())
    #expect(off.firings.map(\.gesture) == [.tap])
  }

  @Test("a contact the panel labels MT_TOOL_PALM is never forwarded (it was before palm rejection)")
  func labelledPalm() {
    var t = Touches()
    t.downWithoutSync(1, 40, 50, at: 0)
    t.axisWithoutSync(1, AbsCode.mtToolType, ToolType.palm, at: 0)
    t.sync(at: 0)
    t.drag([(2, (150, 50), (180, 50))], from: 100, to: 400)
    t.move(1, 45, 50, at: 450)
    t.up(1, at: 500)
    let run = ForwardingRun(t, profile([]), device: PalmPanel.device(toolType: true))
    let clone = CloneView(run.events)
    #expect(clone.trackingIDs == [101])
    #expect(!clone.slots.contains(0))
  }

  @Test("a forwarded contact that grows into a palm is ended on the clone with MT_TOOL_PALM, then left out")
  func becomesAPalm() {
    var t = Touches()
    land(&t, 1, 40, 50, at: 0, major: PalmPanel.fingerMajor)
    t.move(1, 50, 50, at: 50)
    t.moveWithoutSync(1, 52, 50, at: 100)
    t.axisWithoutSync(1, AbsCode.mtTouchMajor, PalmPanel.palmMajor, at: 100)
    t.sync(at: 100)
    t.move(1, 60, 50, at: 150)
    t.up(1, at: 200)
    let run = ForwardingRun(t, profile([]), device: PalmPanel.device())
    let clone = CloneView(run.events)
    #expect(clone.trackingIDs == [100])
    #expect(clone.palmEnds == 1)
    #expect(clone.ends == 1, "the panel's own lift does not end it twice")
    // MT_TOOL_PALM in a frame of its own, then the end and the tool type back to finger
    // (the panel has no such axis: the clone's is gestured's).
    let tail = run.events.drop { !($0.code == AbsCode.mtToolType && $0.value == ToolType.palm) }
    #expect(
      Array(tail.prefix(5)).map { [Int($0.type), Int($0.code), Int($0.value)] } == [
        [3, 0x37, 2], [0, 0, 0], [3, 0x39, -1], [3, 0x37, 0], [0, 0, 0],
      ])
    #expect(!run.events.contains { $0.code == AbsCode.mtPositionX && $0.value == 60 * 20 })
  }

  @Test("forward-fingers: 1 passes an unbound pinch as its first contact alone, even after it lifts")
  func forwardFingers() {
    var forwarded = profile([bind(.tap)])
    forwarded.forwardFingers = 1
    var t = Touches()
    t.drag([(1, (80, 50), (60, 50)), (2, (120, 50), (140, 50))], from: 0, to: 300, lift: false)
    t.up(1, at: 320)
    t.move(2, 150, 50, at: 340)
    t.down(3, 100, 80, at: 360)
    t.up(2, at: 400)
    t.up(3, at: 420)
    let run = ForwardingRun(t, forwarded)
    let clone = CloneView(run.events)
    // 101 landed while 100 was down, and stays out after 100 lifts; 102 landed with none
    // forwarded down.
    #expect(clone.trackingIDs == [100, 102])
    #expect(clone.ends == 2)

    let unlimited = ForwardingRun(t, profile([bind(.tap)]))
    #expect(CloneView(unlimited.events).trackingIDs == [100, 101, 102])
    #expect(unlimited.events == t.events)
  }

  @Test("wake: the first touch after the panel sat untouched is not forwarded; the next one is")
  func wake() {
    var waking = profile([])
    waking.wakeAfter = 60_000_000
    var t = Touches()
    t.tap(100, 50, at: 1_000, duration: 80)
    t.tap(100, 50, at: 70_000, duration: 80)
    t.tap(100, 50, at: 71_000, duration: 80)
    let run = ForwardingRun(t, waking, finishAt: 80_000)
    #expect(run.wakes == [70_000])
    #expect(CloneView(run.events).trackingIDs == [100, 102])

    // From the panel's opening too: a first touch a minute after it only wakes.
    var late = Touches()
    late.tap(100, 50, at: 65_000, duration: 80)
    let first = ForwardingRun(late, waking, finishAt: 70_000)
    #expect(first.wakes == [65_000])
    #expect(first.events.isEmpty)

    // A bound gesture still fires from the waking touch.
    var bound = profile([bind(.tap)])
    bound.wakeAfter = 60_000_000
    #expect(ForwardingRun(late, bound, finishAt: 70_000).firings.map(\.gesture) == [.tap])
  }

  @Test("independent halves: a drag in one reaches the clone, a bound pinch in the other never does")
  func independentHalves() {
    let halves = [
      Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: true),
      Region(name: "right", area: Area(x: 0.5, y: 0, width: 0.5, height: 1), independent: true),
    ]
    var t = Touches()
    t.down(1, 30, 50, at: 0)
    t.downWithoutSync(2, 120, 50, at: 20)
    t.downWithoutSync(3, 170, 50, at: 20)
    t.sync(at: 20)
    for step in 1...10 {
      let ms = 20 + Double(step) * 30
      t.moveWithoutSync(1, 30 + Double(step) * 4, 50, at: ms)
      t.moveWithoutSync(2, 120 + Double(step) * 1.5, 50, at: ms)
      t.moveWithoutSync(3, 170 - Double(step) * 1.5, 50, at: ms)
      t.sync(at: ms)
    }
    t.upWithoutSync(2, at: 340)
    t.upWithoutSync(3, at: 340)
    t.sync(at: 340)
    t.move(1, 75, 50, at: 360)
    t.up(1, at: 380)
    let run = ForwardingRun(t, profile([bind(.pinch, fingers: 2, .in, region: 1)], regions: halves))
    #expect(run.firings.map(\.gesture) == [.pinch])
    let clone = CloneView(run.events)
    #expect(clone.trackingIDs == [100])
    #expect(clone.slots == [0])
    #expect(clone.ends == 1)
    // Every move of the drag reaches the clone.
    #expect(clone.moves == 12)
  }

  @Test("protocol A: a palm-sized report neither taps nor reaches the clone; a finger beside it taps, then drags out")
  func protocolAPalm() {
    let device = protocolADevice(PalmPanel.device())
    #expect(device.touchProtocol == .multitouchA)
    var t = Touches()
    land(&t, 9, 40, 50, at: 0, major: PalmPanel.palmMajor)
    t.tap(150, 50, at: 100, duration: 80)
    t.drag([(3, (150, 50), (180, 50))], from: 600, to: 900)
    t.up(9, at: 1000)
    let input = protocolA(t.events)
    let run = ForwardingRun(input: input, profile([bind(.tap)]), device: device)
    #expect(run.firings.map(\.gesture) == [.tap])
    let clone = CloneFramesA(run.events)
    #expect(!clone.majors.contains(PalmPanel.palmMajor), "the palm's report")
    #expect(!clone.xs.contains(40 * 20), "the palm's report")
    #expect(clone.reports.max() == 1)
    #expect(clone.xs.contains(180 * 20), "the drag's last move")
    #expect(clone.reports.last == 0, "the drag's lift")

    var palmTap = Touches()
    land(&palmTap, 1, 40, 50, at: 0, major: PalmPanel.palmMajor)
    palmTap.up(1, at: 80)
    let alone = ForwardingRun(input: protocolA(palmTap.events), profile([bind(.tap)]), device: device)
    #expect(alone.firings.isEmpty)
    #expect(alone.events.isEmpty)
  }

  @Test("protocol A: forward-fingers: 1 passes an unbound pinch as its first contact alone, even after it lifts")
  func protocolAForwardFingers() {
    let device = protocolADevice(TestPanel.device)
    var forwarded = profile([bind(.tap)])
    forwarded.forwardFingers = 1
    var t = Touches()
    t.drag([(1, (80, 50), (60, 50)), (2, (120, 50), (140, 50))], from: 0, to: 300, lift: false)
    t.up(1, at: 320)
    t.move(2, 150, 50, at: 340)
    t.down(3, 100, 80, at: 360)
    t.up(2, at: 400)
    t.up(3, at: 420)
    let input = protocolA(t.events)
    let clone = CloneFramesA(ForwardingRun(input: input, forwarded, device: device).events)
    #expect(clone.reports.max() == 1)
    // The second finger (120 to 150 mm) never; the third (100 mm) once the second lifted.
    #expect(clone.xs.allSatisfy { $0 <= 100 * 20 })
    #expect(clone.xs.contains(60 * 20))
    #expect(clone.xs.contains(100 * 20))
    #expect(clone.reports.last == 0)

    let unlimited = ForwardingRun(input: input, profile([bind(.tap)]), device: device)
    #expect(unlimited.events == input)
  }

  @Test("protocol A, independent halves: a drag in one reaches the clone, a bound pinch in the other never does")
  func protocolAIndependentHalves() {
    let halves = [
      Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: true),
      Region(name: "right", area: Area(x: 0.5, y: 0, width: 0.5, height: 1), independent: true),
    ]
    var t = Touches()
    t.down(1, 30, 50, at: 0)
    t.downWithoutSync(2, 120, 50, at: 20)
    t.downWithoutSync(3, 170, 50, at: 20)
    t.sync(at: 20)
    for step in 1...10 {
      let ms = 20 + Double(step) * 30
      t.moveWithoutSync(1, 30 + Double(step) * 4, 50, at: ms)
      t.moveWithoutSync(2, 120 + Double(step) * 1.5, 50, at: ms)
      t.moveWithoutSync(3, 170 - Double(step) * 1.5, 50, at: ms)
      t.sync(at: ms)
    }
    t.upWithoutSync(2, at: 340)
    t.upWithoutSync(3, at: 340)
    t.sync(at: 340)
    t.move(1, 75, 50, at: 360)
    t.up(1, at: 380)
    let run = ForwardingRun(
      input: protocolA(t.events), profile([bind(.pinch, fingers: 2, .in, region: 1)], regions: halves),
      device: protocolADevice(TestPanel.device))
    #expect(run.firings.map(\.gesture) == [.pinch])
    let clone = CloneFramesA(run.events)
    #expect(clone.xs.allSatisfy { $0 < 100 * 20 }, "nothing of the right half")
    // Protocol A lists the drag in every frame while it is down: its landing, the pinch's
    // landing, ten moves, the pinch's lift and its last move; then its lift.
    #expect(clone.reports.filter { $0 == 1 }.count == 14)
    #expect(clone.reports.last == 0)
    #expect(clone.xs.contains(75 * 20))
  }

  @Test("protocol A, wake: the first touch after the panel sat untouched is not forwarded; the next one is")
  func protocolAWake() {
    var waking = profile([])
    waking.wakeAfter = 60_000_000
    var t = Touches()
    t.tap(100, 50, at: 1_000, duration: 80)
    t.tap(110, 50, at: 70_000, duration: 80)
    t.tap(120, 50, at: 71_000, duration: 80)
    let run = ForwardingRun(
      input: protocolA(t.events), waking, finishAt: 80_000, device: protocolADevice(TestPanel.device))
    #expect(run.wakes == [70_000])
    let clone = CloneFramesA(run.events)
    #expect(clone.xs.contains(100 * 20))
    #expect(!clone.xs.contains(110 * 20), "the waking tap")
    #expect(clone.xs.contains(120 * 20))
  }

  @Test("held frames are bounded: a sequence held 2 s, or 512 frames, passes through")
  func heldBound() {
    // A finger wandering within a pan's threshold, with a pan bound: held until the lift
    // without the bound.
    var slow = Touches()
    slow.down(1, 100, 50, at: 0)
    for k in 1...300 { slow.move(1, 100 + Double(k % 2) * 0.5, 50, at: Double(k) * 10) }
    slow.up(1, at: 3010)
    let a = ForwardingRun(slow, profile([bind(.pan, fingers: 1, .right)]))
    #expect(a.written.first?.ms == 2000)
    #expect(a.events == slow.events)

    var fast = Touches()
    fast.down(1, 100, 50, at: 0)
    for k in 1...600 { fast.move(1, 100 + Double(k % 2) * 0.5, 50, at: Double(k)) }
    fast.up(1, at: 601)
    let b = ForwardingRun(fast, profile([bind(.pan, fingers: 1, .right)]))
    #expect(b.written.first == .init(ms: 511, frames: ForwardPolicy.heldFrameLimit))
    #expect(b.events == fast.events)
  }
}
