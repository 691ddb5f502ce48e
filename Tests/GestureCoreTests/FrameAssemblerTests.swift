import Testing

@testable import GestureCore

// MARK: - Devices and event helpers

/// Every position axis runs 0...1000, so raw 250 is 0.25 of the panel.
private let positionAxis = AxisInfo(minimum: 0, maximum: 1000)
private let plainGeometry = PanelGeometry(xAxis: positionAxis, yAxis: positionAxis)

private let absMTPressure: UInt16 = 0x3a
private let absMisc: UInt16 = 0x28
private let mscTimestamp: UInt16 = 0x05

/// Protocol B with `slots` slots. Also has ABS_X/ABS_Y and BTN_TOUCH, as real panels do,
/// to show that the MT protocol wins.
private func protocolBDevice(slots: Int32) -> DeviceDescription {
  DeviceDescription(
    name: "B panel", properties: [InputProperty.direct], keys: [KeyCode.btnTouch],
    axes: [
      AbsCode.x: positionAxis, AbsCode.y: positionAxis,
      AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: slots - 1),
      AbsCode.mtPositionX: positionAxis, AbsCode.mtPositionY: positionAxis,
      AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
      AbsCode.mtToolType: AxisInfo(minimum: 0, maximum: 2),
    ])
}

/// Tracking ids but no ABS_MT_SLOT axis: everything happens in slot 0.
private let slotZeroOnlyDevice = DeviceDescription(
  name: "slot 0 only", keys: [KeyCode.btnTouch],
  axes: [
    AbsCode.mtPositionX: positionAxis, AbsCode.mtPositionY: positionAxis,
    AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
  ])

private let protocolADevice = DeviceDescription(
  name: "A panel", keys: [KeyCode.btnTouch],
  axes: [
    AbsCode.x: positionAxis, AbsCode.y: positionAxis,
    AbsCode.mtPositionX: positionAxis, AbsCode.mtPositionY: positionAxis,
  ])

private func singleTouchDevice(button: UInt16) -> DeviceDescription {
  DeviceDescription(
    name: "single touch", keys: [button], axes: [AbsCode.x: positionAxis, AbsCode.y: positionAxis])
}

/// Feeds events one call per event, 10 ms per frame, and keeps what came out.
private final class Panel {
  var assembler: FrameAssembler
  var time = Timestamp(microseconds: 1_000_000)

  init(_ device: DeviceDescription, geometry: PanelGeometry = plainGeometry, palm: PalmRule? = nil) {
    assembler = FrameAssembler(device: device, geometry: geometry, palm: palm)
  }

  /// Feeds a non-SYN_REPORT event, which must never complete a frame.
  func send(_ type: UInt16, _ code: UInt16, _ value: Int32) {
    let completed = assembler.feed(RawEvent(time: time, type: type, code: code, value: value))
    #expect(!completed, "only SYN_REPORT completes a frame")
  }

  func abs(_ code: UInt16, _ value: Int32) { send(EventType.abs, code, value) }
  func key(_ code: UInt16, _ value: Int32) { send(EventType.key, code, value) }
  func slot(_ slot: Int32) { abs(AbsCode.mtSlot, slot) }
  func trackingID(_ id: Int32) { abs(AbsCode.mtTrackingID, id) }
  func toolType(_ type: Int32) { abs(AbsCode.mtToolType, type) }
  func mtPosition(_ x: Int32, _ y: Int32) {
    abs(AbsCode.mtPositionX, x)
    abs(AbsCode.mtPositionY, y)
  }
  func position(_ x: Int32, _ y: Int32) {
    abs(AbsCode.x, x)
    abs(AbsCode.y, y)
  }
  func mtReport() { send(EventType.syn, SynCode.mtReport, 0) }
  func dropped() { send(EventType.syn, SynCode.dropped, 0) }

  /// One protocol A contact: position (and tracking id, tool type when given), SYN_MT_REPORT.
  func report(_ x: Int32, _ y: Int32, trackingID: Int32? = nil, tool: Int32? = nil) {
    mtPosition(x, y)
    if let trackingID { self.trackingID(trackingID) }
    if let tool { toolType(tool) }
    mtReport()
  }

  /// SYN_REPORT. Returns the frame when it has changes, nil otherwise.
  func syn() -> TouchFrame? {
    let completed = assembler.feed(
      RawEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0))
    let stamp = time
    time = time + 10_000
    guard completed else { return nil }
    #expect(assembler.frame.time == stamp)
    #expect(!assembler.frame.changes.isEmpty)
    return assembler.frame
  }

  func cancelAll(at time: Timestamp) -> Bool { assembler.cancelAll(at: time) }

  /// SYN_REPORT that must complete a frame.
  func requireFrame(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> TouchFrame {
    let frame = syn()
    return try #require(frame, "SYN_REPORT completed no frame", sourceLocation: sourceLocation)
  }
}

private func phases(_ frame: TouchFrame?) -> [ContactPhase] {
  frame?.changes.map(\.phase) ?? []
}

private func ids(_ frame: TouchFrame?) -> [UInt32] {
  frame?.changes.map(\.id) ?? []
}

private func positions(_ frame: TouchFrame?) -> [Point] {
  frame?.changes.map(\.position) ?? []
}

/// The user point of raw device units on the plain 0...1000 geometry.
private func at(_ x: Int32, _ y: Int32) -> Point {
  Point(x: Double(x) / 1000, y: Double(y) / 1000)
}

private func isClose(_ a: Point, _ b: Point) -> Bool {
  Swift.abs(a.x - b.x) < 1e-9 && Swift.abs(a.y - b.y) < 1e-9
}

// MARK: - Tests

@Suite("FrameAssembler")
struct FrameAssemblerTests {

  // MARK: Protocol B

  @Test("Protocol B: a tracking id begins a contact at SYN_REPORT, at its position")
  func protocolBBegins() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(7)
    panel.mtPosition(250, 500)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.began])
    #expect(positions(frame) == [at(250, 500)])
    #expect(panel.assembler.activeContacts == 1)
  }

  @Test("Protocol B: the batch loop reads each event's type and code where RawEvent holds them")
  func slotEventKeysAreTheEventsTypeAndCode() {
    #expect(SlotEventKey.layoutHolds)
    let events: [(UInt16, UInt16)] = [
      (EventType.abs, AbsCode.mtPositionX), (EventType.abs, AbsCode.mtPositionY), (EventType.abs, AbsCode.mtSlot),
      (EventType.abs, AbsCode.mtTrackingID), (EventType.msc, 0x05), (EventType.syn, 0), (EventType.key, 0x14a),
    ]
    for (type, code) in events {
      let event = RawEvent(time: Timestamp(microseconds: 1), type: type, code: code, value: -1)
      let read = withUnsafeBytes(of: event) { $0.load(fromByteOffset: SlotEventKey.offset, as: UInt32.self) }
      #expect(read == SlotEventKey.of(type: type, code: code), "type \(type) code \(code)")
    }
  }

  @Test("Protocol B: a position change reports moved at the new position")
  func protocolBMoves() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(7)
    panel.mtPosition(250, 500)
    let began = try panel.requireFrame()
    panel.abs(AbsCode.mtPositionY, 600)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
    #expect(ids(moved) == ids(began))
    #expect(positions(moved) == [at(250, 600)])
  }

  @Test("Protocol B: moved only when the position actually changed")
  func protocolBNoMoveWithoutChange() {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(7)
    panel.mtPosition(250, 500)
    _ = panel.syn()
    // The same value again, and a change undone within the frame.
    panel.mtPosition(250, 500)
    #expect(panel.syn() == nil)
    panel.abs(AbsCode.mtPositionX, 300)
    panel.abs(AbsCode.mtPositionX, 250)
    #expect(panel.syn() == nil)
    #expect(panel.syn() == nil, "an empty frame reports nothing")
  }

  @Test("Protocol B: tracking id -1 ends the contact at its last position")
  func protocolBEnds() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(7)
    panel.mtPosition(250, 500)
    let began = try panel.requireFrame()
    panel.abs(AbsCode.mtPositionX, 260)
    panel.trackingID(-1)
    let ended = try panel.requireFrame()
    #expect(phases(ended) == [.ended])
    #expect(ids(ended) == ids(began))
    #expect(positions(ended) == [at(260, 500)])
    #expect(panel.assembler.activeContacts == 0)
  }

  @Test("Protocol B: two fingers in two slots are two contacts, each changing on its own")
  func protocolBTwoFingers() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    panel.slot(1)
    panel.trackingID(2)
    panel.mtPosition(900, 900)
    let began = try panel.requireFrame()
    #expect(phases(began) == [.began, .began])
    #expect(positions(began) == [at(100, 100), at(900, 900)])
    let first = began.changes[0].id
    let second = began.changes[1].id
    #expect(first != second)
    #expect(panel.assembler.activeContacts == 2)

    // The current slot stays 1 until ABS_MT_SLOT says otherwise.
    panel.abs(AbsCode.mtPositionX, 800)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
    #expect(ids(moved) == [second])
    #expect(positions(moved) == [at(800, 900)])

    panel.slot(0)
    panel.trackingID(-1)
    let ended = try panel.requireFrame()
    #expect(phases(ended) == [.ended])
    #expect(ids(ended) == [first])
    #expect(panel.assembler.activeContacts == 1)
  }

  @Test("Protocol B: a device that only uses slot 0 and never sends ABS_MT_SLOT")
  func protocolBSlotZeroOnly() throws {
    #expect(slotZeroOnlyDevice.touchProtocol == .multitouchB(slots: 1))
    let panel = Panel(slotZeroOnlyDevice)
    panel.trackingID(40)
    panel.mtPosition(300, 700)
    let began = try panel.requireFrame()
    #expect(phases(began) == [.began])
    #expect(positions(began) == [at(300, 700)])
    panel.abs(AbsCode.mtPositionX, 350)
    #expect(phases(panel.syn()) == [.moved])
    panel.trackingID(-1)
    #expect(phases(panel.syn()) == [.ended])
    panel.trackingID(41)
    let again = try panel.requireFrame()
    #expect(phases(again) == [.began])
    #expect(positions(again) == [at(350, 700)])
  }

  @Test(
    "Protocol B: a new tracking id whose position is not re-sent keeps the slot's last position")
  func protocolBNewTrackingIDKeepsPosition() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(300, 400)
    let first = try panel.requireFrame()
    panel.trackingID(-1)
    _ = panel.syn()
    // The kernel filters values that did not change: the second tap sends no position.
    panel.trackingID(2)
    let second = try panel.requireFrame()
    #expect(phases(second) == [.began])
    #expect(positions(second) == [at(300, 400)])
    #expect(ids(second) != ids(first), "a new tracking id is a new contact")
  }

  @Test("Protocol B: positions are kept per slot, not shared between slots")
  func protocolBPositionsPerSlot() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(1)
    panel.mtPosition(100, 200)
    panel.slot(1)
    panel.trackingID(2)
    panel.mtPosition(700, 800)
    _ = panel.syn()
    panel.trackingID(-1)
    _ = panel.syn()
    panel.trackingID(3)
    let again = try panel.requireFrame()
    #expect(positions(again) == [at(700, 800)])
  }

  @Test("Protocol B: a new tracking id on a live slot ends the old contact first")
  func protocolBReplacedTrackingID() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(300, 400)
    let first = try panel.requireFrame()
    panel.trackingID(2)
    panel.mtPosition(600, 400)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.ended, .began])
    #expect(frame.changes[0].id == first.changes[0].id)
    #expect(frame.changes[0].position == at(300, 400))
    #expect(frame.changes[1].id != first.changes[0].id)
    #expect(frame.changes[1].position == at(600, 400))
    #expect(panel.assembler.activeContacts == 1)
  }

  @Test("Protocol B: down and up within one frame reports began then ended for one id")
  func protocolBDownAndUpInOneFrame() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(5)
    panel.mtPosition(500, 500)
    panel.trackingID(-1)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.began, .ended])
    #expect(frame.changes[0].id == frame.changes[1].id)
    #expect(positions(frame) == [at(500, 500), at(500, 500)])
    #expect(panel.assembler.activeContacts == 0)
  }

  @Test("Protocol B: a slot out of range drops its events until a valid ABS_MT_SLOT")
  func protocolBSlotOutOfRange() throws {
    let panel = Panel(protocolBDevice(slots: 2))
    panel.slot(0)
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    let began = try panel.requireFrame()

    for badSlot: Int32 in [2, 5, -1, Int32.max, Int32.min] {
      panel.slot(badSlot)
      panel.trackingID(-1)
      panel.trackingID(9)
      panel.mtPosition(900, 900)
      panel.toolType(ToolType.palm)
      #expect(panel.syn() == nil, "slot \(badSlot)")
    }
    #expect(panel.assembler.activeContacts == 1)

    panel.slot(1)
    panel.trackingID(2)
    panel.mtPosition(400, 400)
    let second = try panel.requireFrame()
    #expect(phases(second) == [.began])
    #expect(positions(second) == [at(400, 400)])
    panel.slot(0)
    panel.abs(AbsCode.mtPositionX, 150)
    let moved = try panel.requireFrame()
    #expect(ids(moved) == ids(began))
    #expect(positions(moved) == [at(150, 100)])
  }

  @Test("Protocol B: more slots than the storage limit are treated as out of range")
  func protocolBSlotCap() throws {
    let panel = Panel(protocolBDevice(slots: 200))
    panel.slot(150)
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    #expect(panel.syn() == nil)
    panel.slot(Int32(FrameAssembler.maximumContacts - 1))
    panel.trackingID(2)
    #expect(phases(panel.syn()) == [.began])
  }

  @Test("Protocol B: pen and palm contacts are never reported, whichever event comes first")
  func protocolBPenAndPalmIgnored() {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(1)
    panel.toolType(ToolType.palm)
    panel.mtPosition(100, 100)
    panel.slot(1)
    panel.toolType(ToolType.pen)
    panel.trackingID(2)
    panel.mtPosition(500, 500)
    #expect(panel.syn() == nil)
    #expect(panel.assembler.activeContacts == 0)
    panel.mtPosition(600, 600)
    #expect(panel.syn() == nil)
    panel.slot(0)
    panel.trackingID(-1)
    panel.slot(1)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)
  }

  @Test("Protocol B: a contact at palm-size is never reported; one that grows to it is cancelled, in every path")
  func protocolBPalmSize() throws {
    var device = protocolBDevice(slots: 10)
    device.axes[AbsCode.mtTouchMajor] = AxisInfo(minimum: 0, maximum: 255, resolution: 10)
    let rule = PalmRule(device: device, palmSize: .millimetres(20), diagonal: 100)
    #expect(rule.majorLimit == 200)
    let panel = Panel(device, palm: rule)
    panel.trackingID(1)
    panel.abs(AbsCode.mtTouchMajor, 200)
    panel.mtPosition(100, 100)
    #expect(panel.syn() == nil)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)
    panel.trackingID(2)
    panel.abs(AbsCode.mtTouchMajor, 60)
    panel.mtPosition(110, 100)
    let began = try panel.requireFrame()
    panel.abs(AbsCode.mtTouchMajor, 240)
    let cancelled = try panel.requireFrame()
    #expect(phases(cancelled) == [.cancelled])
    #expect(ids(cancelled) == ids(began))
    panel.abs(AbsCode.mtTouchMajor, 60)
    panel.mtPosition(300, 300)
    #expect(panel.syn() == nil)

    // The engine's batch path reads touch-major as `feed` does.
    var engine = try #require(DeviceEngine(device: device, profile: profile([bind(.tap)])))
    let time = Timestamp(microseconds: 0)
    let events = [
      RawEvent(time: time, type: EventType.abs, code: AbsCode.mtTrackingID, value: 5),
      RawEvent(time: time, type: EventType.abs, code: AbsCode.mtPositionX, value: 100),
      RawEvent(time: time, type: EventType.abs, code: AbsCode.mtTouchMajor, value: 50),
      RawEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0),
      RawEvent(time: time + 10_000, type: EventType.abs, code: AbsCode.mtTouchMajor, value: 220),
      RawEvent(time: time + 10_000, type: EventType.syn, code: SynCode.report, value: 0),
      RawEvent(time: time + 20_000, type: EventType.abs, code: AbsCode.mtTrackingID, value: -1),
      RawEvent(time: time + 20_000, type: EventType.syn, code: SynCode.report, value: 0),
    ]
    var fired: [GestureEvent] = []
    events.withUnsafeBufferPointer { engine.handle(events: $0, into: &fired) }
    engine.advance(to: time + 1_000_000, into: &fired)
    #expect(fired.isEmpty, "the contact became a palm before it lifted: no tap")
    #expect(engine.contactsDown == 0)
  }

  @Test("Protocol B: a reported contact that turns into a palm is cancelled once, then ignored")
  func protocolBPalmMidContact() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    let began = try panel.requireFrame()
    panel.toolType(ToolType.palm)
    panel.mtPosition(120, 100)
    let cancelled = try panel.requireFrame()
    #expect(phases(cancelled) == [.cancelled])
    #expect(ids(cancelled) == ids(began))
    #expect(panel.assembler.activeContacts == 0)

    panel.mtPosition(200, 200)
    #expect(panel.syn() == nil)
    // Back to finger: still the same (ignored) contact until its tracking id ends.
    panel.toolType(ToolType.finger)
    panel.mtPosition(300, 300)
    #expect(panel.syn() == nil)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)

    panel.trackingID(2)
    let next = try panel.requireFrame()
    #expect(phases(next) == [.began])
    #expect(ids(next) != ids(began))
  }

  @Test("Protocol B: a contact that begins as a palm within its first frame is never reported")
  func protocolBPalmInFirstFrame() {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    panel.toolType(ToolType.palm)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)
  }

  @Test("Protocol B: a palm tool type not re-sent for the slot's next contact still applies")
  func protocolBToolTypeOutlivesContact() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.toolType(ToolType.palm)
    #expect(panel.syn() == nil)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)
    // The kernel does not resend an unchanged ABS_MT_TOOL_TYPE.
    panel.trackingID(2)
    #expect(panel.syn() == nil)
    panel.trackingID(-1)
    _ = panel.syn()
    panel.trackingID(3)
    panel.toolType(ToolType.finger)
    #expect(phases(panel.syn()) == [.began])
  }

  @Test("Protocol B: events after SYN_DROPPED are dropped up to and including the next SYN_REPORT")
  func protocolBSynDropped() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    let began = try panel.requireFrame()
    panel.dropped()
    panel.mtPosition(900, 900)
    panel.trackingID(-1)
    panel.slot(1)
    panel.trackingID(2)
    #expect(panel.syn() == nil, "the SYN_REPORT ending the drop completes no frame")
    #expect(panel.assembler.activeContacts == 1)

    // Slot 0 is still current and its contact still down at its old position.
    panel.abs(AbsCode.mtPositionX, 110)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
    #expect(ids(moved) == ids(began))
    #expect(positions(moved) == [at(110, 100)])
  }

  @Test("Protocol B: unrelated events are ignored, including ABS_X/ABS_Y and BTN_TOUCH")
  func protocolBIgnoresOtherEvents() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    let began = try panel.requireFrame()
    panel.send(EventType.msc, mscTimestamp, 123_456)
    panel.abs(absMTPressure, 40)
    panel.abs(AbsCode.mtTouchMajor, 12)
    panel.abs(absMisc, 1)
    panel.key(KeyCode.btnToolFinger, 1)
    panel.key(KeyCode.btnTouch, 0)
    panel.position(900, 900)
    panel.send(EventType.rel, 0, 5)
    panel.send(EventType.syn, SynCode.config, 0)
    panel.send(0xff, 0xffff, Int32.min)
    #expect(panel.syn() == nil)
    #expect(panel.assembler.activeContacts == 1)
    panel.trackingID(-1)
    #expect(ids(panel.syn()) == ids(began))
  }

  @Test("Contact ids are unique and increase for the assembler's lifetime")
  func contactIDsIncrease() throws {
    let panel = Panel(protocolBDevice(slots: 4))
    var seen: [UInt32] = []
    for round in 0..<5 {
      for slot: Int32 in 0..<4 {
        panel.slot(slot)
        panel.trackingID(Int32(round) * 10 + slot)
        panel.mtPosition(100 * slot + 50, 100)
      }
      let began = try panel.requireFrame()
      seen += ids(began)
      for slot: Int32 in 0..<4 {
        panel.slot(slot)
        panel.trackingID(-1)
      }
      _ = panel.syn()
    }
    // Same slots, same tracking ids again: still new contacts.
    panel.slot(0)
    panel.trackingID(0)
    seen += ids(panel.syn())
    #expect(seen.count == 21)
    #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 < $1 })
  }

  @Test("The frame holds the changes until the next call; the next frame starts empty")
  func frameIsReplacedByTheNext() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    _ = try panel.requireFrame()
    #expect(phases(panel.assembler.frame) == [.began])
    panel.abs(AbsCode.mtPositionX, 200)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
  }

  @Test("Rotation applies to reported positions")
  func rotationApplied() throws {
    let rotated = PanelGeometry(xAxis: positionAxis, yAxis: positionAxis, rotation: .quarter)
    let panel = Panel(protocolBDevice(slots: 10), geometry: rotated)
    panel.trackingID(1)
    panel.mtPosition(100, 200)
    let frame = try panel.requireFrame()
    // 90°: device (x, y) is user (1 - y, x).
    #expect(isClose(frame.changes[0].position, Point(x: 0.8, y: 0.1)))
  }

  // MARK: cancelAll

  @Test("cancelAll cancels every contact down, at the given time")
  func cancelAllCancels() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    panel.slot(1)
    panel.trackingID(2)
    panel.mtPosition(500, 500)
    let began = try panel.requireFrame()

    let end = Timestamp(microseconds: 9_000_000)
    #expect(panel.cancelAll(at: end))
    #expect(phases(panel.assembler.frame) == [.cancelled, .cancelled])
    #expect(ids(panel.assembler.frame) == ids(began))
    #expect(panel.assembler.frame.time == end)
    #expect(panel.assembler.activeContacts == 0)
    #expect(!panel.cancelAll(at: end), "nothing left to cancel")
  }

  @Test("cancelAll: cancelled contacts stay silent until the device ends them")
  func cancelAllThenDeviceContinues() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    _ = panel.syn()
    #expect(panel.cancelAll(at: panel.time))
    panel.mtPosition(300, 300)
    #expect(panel.syn() == nil)
    panel.trackingID(-1)
    #expect(panel.syn() == nil)
    panel.trackingID(2)
    #expect(phases(panel.syn()) == [.began])
  }

  @Test("cancelAll mid-frame: unconfirmed ends become cancellations, unseen contacts vanish")
  func cancelAllMidFrame() throws {
    let panel = Panel(protocolBDevice(slots: 10))
    panel.slot(0)
    panel.trackingID(1)
    panel.mtPosition(100, 100)
    let began = try panel.requireFrame()
    // A frame without its SYN_REPORT: slot 0 lifts, slot 1 taps, slot 2 lands.
    panel.trackingID(-1)
    panel.slot(1)
    panel.trackingID(2)
    panel.trackingID(-1)
    panel.slot(2)
    panel.trackingID(3)
    #expect(panel.cancelAll(at: panel.time))
    #expect(phases(panel.assembler.frame) == [.cancelled])
    #expect(ids(panel.assembler.frame) == ids(began))
    #expect(panel.assembler.activeContacts == 0)
  }

  // MARK: Protocol A

  @Test("Protocol A: each SYN_MT_REPORT is one contact, begun at SYN_REPORT")
  func protocolABegins() throws {
    #expect(protocolADevice.touchProtocol == .multitouchA)
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 800)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.began, .began])
    #expect(positions(frame) == [at(100, 100), at(900, 800)])
    #expect(Set(ids(frame)).count == 2)
    #expect(panel.assembler.activeContacts == 2)
  }

  @Test("Protocol A: an unchanged contact reports nothing, a changed one moved")
  func protocolAMoves() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 800)
    let began = try panel.requireFrame()
    panel.report(100, 100)
    panel.report(900, 800)
    #expect(panel.syn() == nil)
    panel.report(100, 100)
    panel.report(880, 800)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
    #expect(ids(moved) == [began.changes[1].id])
    #expect(positions(moved) == [at(880, 800)])
  }

  @Test("Protocol A: contacts are followed by nearest neighbour whatever order they are listed in")
  func protocolANearestNeighbour() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 900)
    let began = try panel.requireFrame()
    let nearTopLeft = began.changes[0].id
    let nearBottomRight = began.changes[1].id

    // The device now lists them the other way round.
    panel.report(880, 890)
    panel.report(120, 110)
    let swapped = try panel.requireFrame()
    #expect(phases(swapped) == [.moved, .moved])
    #expect(ids(swapped) == [nearBottomRight, nearTopLeft])

    // They keep approaching each other: each still follows its own finger.
    panel.report(300, 300)
    panel.report(700, 700)
    let closer = try panel.requireFrame()
    #expect(ids(closer) == [nearTopLeft, nearBottomRight])
    #expect(positions(closer) == [at(300, 300), at(700, 700)])
  }

  @Test("Protocol A: two fingers moving together by more than half their spacing stay themselves")
  func protocolAFastTwoFingerMove() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 500)
    panel.report(400, 500)
    let began = try panel.requireFrame()
    let left = began.changes[0].id
    let right = began.changes[1].id
    // Both move 160 right. The closest pair (260 and the right contact, 140 apart) is not the
    // right answer: the smallest total of squared distances is.
    panel.report(260, 500)
    panel.report(560, 500)
    let moved = try panel.requireFrame()
    #expect(ids(moved) == [left, right])
  }

  @Test("Protocol A: with fewer contacts than before, the ones that fit best continue")
  func protocolAFewerContacts() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(500, 500)
    panel.report(900, 900)
    let began = try panel.requireFrame()
    panel.report(890, 900)
    panel.report(110, 100)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.ended, .moved, .moved])
    #expect(ids(frame) == [began.changes[1].id, began.changes[2].id, began.changes[0].id])
  }

  @Test("Protocol A: tracking ids, when sent, decide which contact is which")
  func protocolATrackingIDs() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100, trackingID: 5)
    panel.report(900, 900, trackingID: 6)
    let began = try panel.requireFrame()
    // Far jumps that nearest neighbour would pair the other way.
    panel.report(850, 850, trackingID: 5)
    panel.report(150, 150, trackingID: 6)
    let moved = try panel.requireFrame()
    #expect(ids(moved) == ids(began))
    #expect(positions(moved) == [at(850, 850), at(150, 150)])
    // A new tracking id is a new contact; a missing one ended.
    panel.report(850, 850, trackingID: 5)
    panel.report(150, 150, trackingID: 7)
    let replaced = try panel.requireFrame()
    #expect(phases(replaced) == [.ended, .began])
    #expect(replaced.changes[0].id == began.changes[1].id)
  }

  @Test("Protocol A: a contact no longer reported ends, at its last position")
  func protocolAUnmatchedEnds() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 900)
    let began = try panel.requireFrame()
    panel.report(905, 900)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.ended, .moved])
    #expect(ids(frame) == [began.changes[0].id, began.changes[1].id])
    #expect(positions(frame) == [at(100, 100), at(905, 900)])
    #expect(panel.assembler.activeContacts == 1)
  }

  @Test("Protocol A: a new contact among followed ones begins")
  func protocolANewContact() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    let began = try panel.requireFrame()
    panel.report(500, 500)
    panel.report(100, 100)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.began])
    #expect(frame.changes[0].id > began.changes[0].id)
    #expect(panel.assembler.activeContacts == 2)
  }

  @Test("Protocol A: a SYN_REPORT without contacts ends all")
  func protocolANoContactsEndsAll() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 900)
    let began = try panel.requireFrame()
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.ended, .ended])
    #expect(ids(frame) == ids(began))
    #expect(panel.assembler.activeContacts == 0)
  }

  @Test("Protocol A: a frame of only an empty SYN_MT_REPORT ends all")
  func protocolAEmptyReportEndsAll() {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    _ = panel.syn()
    panel.mtReport()
    #expect(phases(panel.syn()) == [.ended])
  }

  @Test("Protocol A: BTN_TOUCH 0 with no contacts ends all (as N-Trig sends it)")
  func protocolABtnTouchUpEndsAll() {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.key(KeyCode.btnTouch, 1)
    panel.position(100, 100)
    _ = panel.syn()
    panel.key(KeyCode.btnTouch, 0)
    #expect(phases(panel.syn()) == [.ended])
    #expect(panel.assembler.activeContacts == 0)
  }

  @Test("Protocol A: a last contact without its SYN_MT_REPORT still counts")
  func protocolAUnclosedReport() {
    let panel = Panel(protocolADevice)
    panel.mtPosition(100, 100)
    #expect(phases(panel.syn()) == [.began])
  }

  @Test("Protocol A: pen and palm reports are ignored; a contact turning into a palm is cancelled")
  func protocolAPalm() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(500, 500, tool: ToolType.palm)
    panel.report(900, 900, tool: ToolType.pen)
    let began = try panel.requireFrame()
    #expect(phases(began) == [.began])
    #expect(panel.assembler.activeContacts == 1)

    panel.report(110, 100, tool: ToolType.palm)
    panel.report(500, 500, tool: ToolType.palm)
    let cancelled = try panel.requireFrame()
    #expect(phases(cancelled) == [.cancelled])
    #expect(ids(cancelled) == ids(began))
    #expect(panel.assembler.activeContacts == 0)

    // Finger again: the same contact, still ignored.
    panel.report(120, 100, tool: ToolType.finger)
    #expect(panel.syn() == nil)
    // Lifted; a new finger there is a new contact.
    _ = panel.syn()
    panel.report(120, 100)
    #expect(phases(panel.syn()) == [.began])
  }

  @Test("Protocol A: contacts beyond the storage limit are ignored")
  func protocolACap() throws {
    let panel = Panel(protocolADevice)
    for index: Int32 in 0..<100 {
      panel.report(index * 10, index * 10)
    }
    let frame = try panel.requireFrame()
    #expect(frame.changes.count == FrameAssembler.maximumContacts)
    #expect(panel.assembler.activeContacts == FrameAssembler.maximumContacts)
  }

  @Test("Protocol A: SYN_DROPPED drops the frame; contacts stay down until a full frame")
  func protocolASynDropped() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    panel.report(900, 900)
    let began = try panel.requireFrame()
    panel.report(150, 100)
    panel.dropped()
    panel.report(200, 100)
    #expect(panel.syn() == nil)
    #expect(panel.assembler.activeContacts == 2)
    panel.report(300, 100)
    panel.report(900, 900)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.moved])
    #expect(ids(frame) == [began.changes[0].id])
  }

  @Test("Protocol A: cancelAll cancels what is down")
  func protocolACancelAll() throws {
    let panel = Panel(protocolADevice)
    panel.report(100, 100)
    let began = try panel.requireFrame()
    #expect(panel.cancelAll(at: panel.time))
    #expect(phases(panel.assembler.frame) == [.cancelled])
    #expect(ids(panel.assembler.frame) == ids(began))
    panel.report(150, 100)
    #expect(panel.syn() == nil, "a cancelled contact stays silent while reported")
  }

  // MARK: Single touch

  @Test("Single touch: BTN_TOUCH down begins at SYN_REPORT, moves while down, up ends")
  func singleTouchBtnTouch() throws {
    let device = singleTouchDevice(button: KeyCode.btnTouch)
    #expect(device.touchProtocol == .singleTouch(button: KeyCode.btnTouch))
    let panel = Panel(device)
    panel.position(400, 300)
    #expect(panel.syn() == nil, "hovering, no contact")
    panel.key(KeyCode.btnTouch, 1)
    let began = try panel.requireFrame()
    #expect(phases(began) == [.began])
    #expect(positions(began) == [at(400, 300)])
    #expect(panel.assembler.activeContacts == 1)

    panel.abs(AbsCode.x, 420)
    let moved = try panel.requireFrame()
    #expect(phases(moved) == [.moved])
    #expect(positions(moved) == [at(420, 300)])
    panel.abs(AbsCode.x, 420)
    #expect(panel.syn() == nil)

    panel.key(KeyCode.btnTouch, 0)
    let ended = try panel.requireFrame()
    #expect(phases(ended) == [.ended])
    #expect(ids(ended) == ids(began))
    #expect(panel.assembler.activeContacts == 0)

    panel.abs(AbsCode.x, 500)
    #expect(panel.syn() == nil, "moving while up is no contact")
    panel.key(KeyCode.btnTouch, 1)
    let again = try panel.requireFrame()
    #expect(positions(again) == [at(500, 300)])
    #expect(ids(again) != ids(began))
  }

  @Test("Single touch: BTN_LEFT is the contact button on Elo panels")
  func singleTouchBtnLeft() throws {
    let device = singleTouchDevice(button: KeyCode.btnLeft)
    #expect(device.touchProtocol == .singleTouch(button: KeyCode.btnLeft))
    let panel = Panel(device)
    panel.key(KeyCode.btnTouch, 1)
    panel.position(100, 100)
    #expect(panel.syn() == nil, "BTN_TOUCH is not this panel's button")
    panel.key(KeyCode.btnLeft, 1)
    #expect(phases(panel.syn()) == [.began])
    panel.key(KeyCode.btnLeft, 0)
    #expect(phases(panel.syn()) == [.ended])
  }

  @Test("Single touch: a repeated press while down is the same contact")
  func singleTouchRepeatedPress() throws {
    let panel = Panel(singleTouchDevice(button: KeyCode.btnTouch))
    panel.key(KeyCode.btnTouch, 1)
    _ = panel.syn()
    panel.key(KeyCode.btnTouch, 2)
    panel.key(KeyCode.btnTouch, 1)
    #expect(panel.syn() == nil)
    #expect(panel.assembler.activeContacts == 1)
  }

  @Test("Single touch: down and up within one frame reports began then ended")
  func singleTouchDownAndUpInOneFrame() throws {
    let panel = Panel(singleTouchDevice(button: KeyCode.btnTouch))
    panel.position(700, 200)
    panel.key(KeyCode.btnTouch, 1)
    panel.key(KeyCode.btnTouch, 0)
    let frame = try panel.requireFrame()
    #expect(phases(frame) == [.began, .ended])
    #expect(frame.changes[0].id == frame.changes[1].id)
    #expect(positions(frame) == [at(700, 200), at(700, 200)])
  }

  @Test("Single touch: cancelAll cancels a held contact, which stays silent until released")
  func singleTouchCancelAll() throws {
    let panel = Panel(singleTouchDevice(button: KeyCode.btnTouch))
    panel.key(KeyCode.btnTouch, 1)
    _ = panel.syn()
    #expect(panel.cancelAll(at: panel.time))
    #expect(phases(panel.assembler.frame) == [.cancelled])
    panel.abs(AbsCode.x, 10)
    panel.key(KeyCode.btnTouch, 0)
    #expect(panel.syn() == nil)
    panel.key(KeyCode.btnTouch, 1)
    #expect(phases(panel.syn()) == [.began])
  }

  // MARK: Robustness

  @Test("A device without a touch protocol reports nothing")
  func inertDevice() {
    let device = DeviceDescription(name: "keyboard", keys: [30])
    #expect(device.touchProtocol == nil)
    let panel = Panel(device)
    panel.trackingID(1)
    panel.mtPosition(1, 1)
    panel.mtReport()
    panel.key(KeyCode.btnTouch, 1)
    #expect(panel.syn() == nil)
    #expect(!panel.cancelAll(at: panel.time))
  }

  @Test(
    "Random events never trap and every contact's phases stay consistent",
    arguments: [
      protocolBDevice(slots: 4), slotZeroOnlyDevice, protocolADevice,
      singleTouchDevice(button: KeyCode.btnTouch),
    ])
  func randomEventsStayConsistent(device: DeviceDescription) {
    var assembler = FrameAssembler(device: device, geometry: plainGeometry)
    let capacity = assembler.storage.changeCapacity
    var largest = 0
    var random = SplitMix64(seed: 0x5eed)
    // What each id last did: nil = unseen; ended/cancelled contacts must stay silent.
    var lastPhase: [UInt32: ContactPhase] = [:]
    var down = 0
    var problems: [String] = []

    func check(_ frame: TouchFrame) {
      largest = max(largest, frame.changes.count)
      for change in frame.changes {
        let previous = lastPhase[change.id]
        switch change.phase {
        case .began:
          if previous != nil { problems.append("\(change.id) began twice") }
          down += 1
        case .moved, .ended, .cancelled:
          if previous != .began && previous != .moved {
            problems.append("\(change.id) \(change.phase) after \(String(describing: previous))")
          }
          if change.phase != .moved { down -= 1 }
        }
        lastPhase[change.id] = change.phase
      }
    }

    let codes: [(UInt16, UInt16)] = [
      (EventType.abs, AbsCode.mtSlot), (EventType.abs, AbsCode.mtTrackingID),
      (EventType.abs, AbsCode.mtPositionX), (EventType.abs, AbsCode.mtPositionY),
      (EventType.abs, AbsCode.mtToolType), (EventType.abs, AbsCode.x), (EventType.abs, AbsCode.y),
      (EventType.key, KeyCode.btnTouch), (EventType.syn, SynCode.mtReport),
      (EventType.syn, SynCode.report), (EventType.syn, SynCode.report),
      (EventType.syn, SynCode.dropped),
    ]
    for step in 0..<20_000 {
      let (type, code) = codes[Int(random.next() % UInt64(codes.count))]
      let roll = random.next()
      let value: Int32 =
        switch roll % 8 {
        case 0: Int32.min
        case 1: Int32.max
        case 2: -1
        default: Int32(truncatingIfNeeded: roll >> 8) % 6
        }
      let event = RawEvent(
        time: Timestamp(microseconds: Int64(step)), type: type, code: code, value: value)
      if assembler.feed(event) { check(assembler.frame) }
      if step % 5_000 == 4_999, assembler.cancelAll(at: event.time) { check(assembler.frame) }
      if down != assembler.activeContacts {
        problems.append("step \(step): \(down) down, assembler says \(assembler.activeContacts)")
        break
      }
    }
    #expect(problems.isEmpty, "\(problems.prefix(5))")
    #expect(lastPhase.count > 10, "the random stream exercised some contacts")
    // The frame's storage is sized at init and cannot grow (a frame beyond it would have
    // trapped above): every frame fitted.
    #expect(largest <= capacity, "frames fitted the storage sized at init")
  }

  @Test("Frame storage sized at init holds every frame, even with every slot busy each frame")
  func storageDoesNotGrow() {
    let panel = Panel(protocolBDevice(slots: 10))
    let capacity = panel.assembler.storage.changeCapacity
    var largest = 0
    var trackingID: Int32 = 0
    for _ in 0..<3 {
      for slot: Int32 in 0..<10 {
        panel.slot(slot)
        // End the old contact, go down and up three times, land again: all in one frame.
        for _ in 0..<3 {
          trackingID += 1
          panel.trackingID(trackingID)
          panel.abs(AbsCode.mtPositionX, trackingID)
        }
        panel.trackingID(-1)
        trackingID += 1
        panel.trackingID(trackingID)
      }
      largest = max(largest, panel.syn()?.changes.count ?? 0)
    }
    #expect(panel.assembler.activeContacts == 10)
    // Every slot ended a contact, made one transient and began one: 3 changes each, the
    // bound the storage was sized for (a frame beyond it would have trapped).
    #expect(largest >= 30)
    #expect(largest <= capacity)
  }
}
