import CEvdev
import GestureCore
import Testing

@testable import GesturedSystem

/// `EvdevDevice.drain` reads the fd itself and hands each read to `pass`, which must pass on
/// what libevdev's own reading would and keep the state that libevdev's view is set to
/// before its resync (a resync's events are libevdev's delta from that state). These tests
/// build the device in memory.
@Suite("Reading evdev events")
struct EvdevReadTests {
  /// A protocol-B panel with 4 slots, BTN_TOUCH, MSC_TIMESTAMP and no EV_REL; without slots, a
  /// protocol-A panel with the same axes.
  private func panel(slots: Bool = true) throws -> OpaquePointer {
    let handle = try #require(libevdev_new())
    libevdev_enable_event_type(handle, UInt32(EV_ABS))
    libevdev_enable_event_type(handle, UInt32(EV_KEY))
    libevdev_enable_event_code(handle, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
    libevdev_enable_event_type(handle, UInt32(EV_MSC))
    libevdev_enable_event_code(handle, UInt32(EV_MSC), UInt32(MSC_TIMESTAMP), nil)
    func axis(_ code: Int32, _ maximum: Int32) {
      var info = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: 0)
      libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &info)
    }
    if slots { axis(ABS_MT_SLOT, 3) }
    axis(ABS_MT_POSITION_X, 4000)
    axis(ABS_MT_POSITION_Y, 2000)
    axis(ABS_MT_TRACKING_ID, 65535)
    return handle
  }

  private func event(_ microseconds: Int, _ type: Int32, _ code: Int32, _ value: Int32) -> input_event {
    var event = input_event()
    event.time.tv_sec = microseconds / 1_000_000
    event.time.tv_usec = microseconds % 1_000_000
    event.type = UInt16(type)
    event.code = UInt16(code)
    event.value = value
    return event
  }

  /// Passes `events` through `mirror`, then sets libevdev's view to it, as a resync does.
  private func pass(_ events: [input_event], _ mirror: EvdevStateMirror, _ handle: OpaquePointer) -> (
    passed: [RawEvent], dropped: Timestamp?
  ) {
    var passed: [RawEvent] = []
    let dropped = events.withUnsafeBufferPointer { EvdevDevice.pass($0, into: mirror) { passed.append($0) } }
    mirror.push(to: handle)
    return (passed, dropped)
  }

  private func mirror(_ handle: OpaquePointer, _ log: CapturedOutput? = nil) -> EvdevStateMirror {
    EvdevStateMirror(libevdev: handle, devnode: "/dev/input/event4", logger: log.map { Logger(sink: $0) })
  }

  private func touchDown(at time: Int, slot: Int32, id: Int32, x: Int32) -> [input_event] {
    [
      event(time, EV_ABS, ABS_MT_SLOT, slot), event(time, EV_ABS, ABS_MT_TRACKING_ID, id),
      event(time, EV_ABS, ABS_MT_POSITION_X, x), event(time, EV_KEY, BTN_TOUCH, 1),
      event(time, EV_SYN, SYN_REPORT, 0),
    ]
  }

  @Test func aFrameIsPassedOnWholeAndLibevdevTracksIt() throws {
    let handle = try panel()
    defer { libevdev_free(handle) }
    let frame = touchDown(at: 1_000_250, slot: 2, id: 40, x: 1234)
    let (passed, dropped) = pass(frame, mirror(handle), handle)
    #expect(dropped == nil)
    #expect(passed == frame.map(EvdevDevice.rawEvent))
    #expect(passed.first?.time == Timestamp(microseconds: 1_000_250))
    #expect(libevdev_get_current_slot(handle) == 2)
    #expect(libevdev_get_slot_value(handle, 2, UInt32(ABS_MT_TRACKING_ID)) == 40)
    #expect(libevdev_get_slot_value(handle, 2, UInt32(ABS_MT_POSITION_X)) == 1234)
    #expect(libevdev_get_event_value(handle, UInt32(EV_KEY), UInt32(BTN_TOUCH)) == 1)
  }

  @Test func nothingFromASynDroppedOnIsPassedOn() throws {
    let handle = try panel()
    defer { libevdev_free(handle) }
    let before = touchDown(at: 2_000_000, slot: 0, id: 7, x: 100)
    let after =
      [
        event(2_000_500, EV_SYN, SYN_DROPPED, 0), event(2_000_600, EV_ABS, ABS_MT_POSITION_X, 900),
        event(2_000_600, EV_SYN, SYN_REPORT, 0),
      ] + touchDown(at: 2_010_000, slot: 1, id: 8, x: 300)
    let (passed, dropped) = pass(before + after, mirror(handle), handle)
    #expect(passed == before.map(EvdevDevice.rawEvent))
    #expect(dropped == Timestamp(microseconds: 2_000_500))
    // libevdev's view stops where what was passed on stops: its sync's delta starts there.
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_POSITION_X)) == 100)
    #expect(libevdev_get_slot_value(handle, 1, UInt32(ABS_MT_TRACKING_ID)) == -1)
  }

  @Test func whatLibevdevsReadingDropsIsDropped() throws {
    let handle = try panel()
    defer { libevdev_free(handle) }
    let log = CapturedOutput()
    let state = mirror(handle, log)
    let down = touchDown(at: 3_000_000, slot: 0, id: 9, x: 50)
    _ = pass(down, state, handle)
    let frame = [
      event(3_010_000, EV_REL, REL_X, 5),  // a type the panel does not have
      event(3_010_000, EV_ABS, ABS_PRESSURE, 30),  // a code it does not have
      event(3_010_000, EV_ABS, ABS_MT_TRACKING_ID, 10),  // a contact over a contact
      event(3_010_000, EV_ABS, ABS_MT_POSITION_X, 60),
      event(3_010_000, EV_SYN, SYN_REPORT, 0),
    ]
    let (passed, dropped) = pass(frame, state, handle)
    #expect(dropped == nil)
    #expect(passed == [frame[3], frame[4]].map(EvdevDevice.rawEvent))
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_TRACKING_ID)) == 9)
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_POSITION_X)) == 60)
    // As libevdev's reading does: a device bug, in the log.
    #expect(log.lines.count == 1)
    #expect(log.lines.first?.contains("double tracking ID 10 in slot 0") == true)
  }

  @Test func aSlotBeyondThePanelsIsCappedToItsLast() throws {
    let handle = try panel()
    defer { libevdev_free(handle) }
    let log = CapturedOutput()
    let (passed, _) = pass([event(4_000_000, EV_ABS, ABS_MT_SLOT, 9)], mirror(handle, log), handle)
    #expect(passed.map(\.value) == [3])
    #expect(libevdev_get_current_slot(handle) == 3)
    #expect(log.lines.first?.contains("invalid slot index 9") == true)
  }

  /// What libevdev's reading itself passes on for `event`, with its state updated: the
  /// reference the mirror is held to.
  private func libevdevPasses(_ event: input_event, _ handle: OpaquePointer) -> input_event? {
    var event = event
    let (type, code) = (UInt32(event.type), UInt32(event.code))
    switch Int32(event.type) {
    case EV_KEY, EV_ABS, EV_LED, EV_SW:
      guard libevdev_set_event_value(handle, type, code, event.value) != 0 else { return event }
      let slots = libevdev_get_num_slots(handle)
      guard Int32(event.type) == EV_ABS, Int32(event.code) == ABS_MT_SLOT, slots > 0,
        event.value < 0 || event.value >= slots
      else { return nil }
      event.value = slots - 1
      _ = libevdev_set_event_value(handle, type, code, event.value)
      return event
    default:
      return libevdev_has_event_code(handle, type, code) != 0 ? event : nil
    }
  }

  @Test(arguments: [true, false])
  func theMirrorPassesAndKeepsWhatLibevdevDoes(slots: Bool) throws {
    let reference = try panel(slots: slots)
    let pushed = try panel(slots: slots)
    let quiet = LibevdevLogTarget(devnode: "/dev/input/event4", logger: Logger(sink: CapturedOutput()))
    quiet.install(on: reference)
    defer { withExtendedLifetime(quiet) { libevdev_free(reference) } }
    defer { libevdev_free(pushed) }
    let state = mirror(pushed, CapturedOutput())
    // Events of every kind the panel has and has not, slots beyond it and double tracking ids
    // among them, from a fixed seed.
    let kinds: [(Int32, Int32, ClosedRange<Int32>)] = [
      (EV_ABS, ABS_MT_SLOT, -1...5), (EV_ABS, ABS_MT_TRACKING_ID, -1...3), (EV_ABS, ABS_MT_POSITION_X, 0...4000),
      (EV_ABS, ABS_MT_POSITION_Y, 0...2000), (EV_ABS, ABS_PRESSURE, 0...255), (EV_KEY, BTN_TOUCH, 0...1),
      (EV_KEY, BTN_TOOL_FINGER, 0...1), (EV_REL, REL_X, -5...5), (EV_MSC, MSC_TIMESTAMP, 0...100),
      (EV_SYN, SYN_REPORT, 0...0),
    ]
    var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next(_ range: ClosedRange<Int32>) -> Int32 {
      seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
      return range.lowerBound + Int32((seed >> 33) % UInt64(range.upperBound - range.lowerBound + 1))
    }
    var expected: [RawEvent] = []
    var events: [input_event] = []
    for n in 0..<4000 {
      let (type, code, values) = kinds[Int(next(0...Int32(kinds.count - 1)))]
      let value = code == ABS_MT_TRACKING_ID && next(0...1) == 0 ? -1 : next(values)
      let made = event(5_000_000 + n, type, code, value)
      events.append(made)
      if let passed = libevdevPasses(made, reference) { expected.append(EvdevDevice.rawEvent(passed)) }
    }
    let (passed, dropped) = pass(events, state, pushed)
    #expect(dropped == nil)
    #expect(passed == expected)
    #expect(libevdev_get_current_slot(pushed) == libevdev_get_current_slot(reference))
    for code in Int32(0)..<Int32(ABS_CNT) where libevdev_has_event_code(pushed, UInt32(EV_ABS), UInt32(code)) != 0 {
      #expect(
        libevdev_get_event_value(pushed, UInt32(EV_ABS), UInt32(code))
          == libevdev_get_event_value(reference, UInt32(EV_ABS), UInt32(code)), "axis \(code)")
      for slot in 0..<max(libevdev_get_num_slots(pushed), 0) {
        #expect(
          libevdev_get_slot_value(pushed, UInt32(slot), UInt32(code))
            == libevdev_get_slot_value(reference, UInt32(slot), UInt32(code)), "slot \(slot), axis \(code)")
      }
    }
    for code in [BTN_TOUCH, BTN_TOOL_FINGER] {
      #expect(
        libevdev_get_event_value(pushed, UInt32(EV_KEY), UInt32(code))
          == libevdev_get_event_value(reference, UInt32(EV_KEY), UInt32(code)))
    }
  }

  @Test func libevdevIsCalledOnlyWhenItsViewIsNeeded() throws {
    let handle = try panel()
    defer { libevdev_free(handle) }
    let state = mirror(handle)
    _ = touchDown(at: 6_000_000, slot: 1, id: 12, x: 700).withUnsafeBufferPointer {
      EvdevDevice.pass($0, into: state) { _ in }
    }
    #expect(libevdev_get_slot_value(handle, 1, UInt32(ABS_MT_TRACKING_ID)) == -1)
    state.push(to: handle)
    #expect(libevdev_get_slot_value(handle, 1, UInt32(ABS_MT_TRACKING_ID)) == 12)
    #expect(libevdev_get_slot_value(handle, 1, UInt32(ABS_MT_POSITION_X)) == 700)
    #expect(libevdev_get_current_slot(handle) == 1)
  }
}
