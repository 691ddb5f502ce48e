import CEvdev
import GestureCore
import Testing

@testable import GesturedSystem

/// `EvdevDevice.drain` reads the fd itself and hands each read to `pass`, which must pass on
/// what libevdev's own reading would and keep libevdev's state in step (a resync's events
/// are libevdev's delta from that state). These tests build the device in memory.
@Suite("Reading evdev events")
struct EvdevReadTests {
  /// A protocol-B panel with 4 slots, BTN_TOUCH, and no EV_REL.
  private func panel() throws -> OpaquePointer {
    let handle = try #require(libevdev_new())
    libevdev_enable_event_type(handle, UInt32(EV_ABS))
    libevdev_enable_event_type(handle, UInt32(EV_KEY))
    libevdev_enable_event_code(handle, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
    func axis(_ code: Int32, _ maximum: Int32) {
      var info = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: 0)
      libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &info)
    }
    axis(ABS_MT_SLOT, 3)
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

  private func pass(_ events: [input_event], _ handle: OpaquePointer) -> (passed: [RawEvent], dropped: Timestamp?) {
    var passed: [RawEvent] = []
    let dropped = events.withUnsafeBufferPointer { EvdevDevice.pass($0, tracking: handle) { passed.append($0) } }
    return (passed, dropped)
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
    let (passed, dropped) = pass(frame, handle)
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
    let (passed, dropped) = pass(before + after, handle)
    #expect(passed == before.map(EvdevDevice.rawEvent))
    #expect(dropped == Timestamp(microseconds: 2_000_500))
    // libevdev's view stops where what was passed on stops: its sync's delta starts there.
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_POSITION_X)) == 100)
    #expect(libevdev_get_slot_value(handle, 1, UInt32(ABS_MT_TRACKING_ID)) == -1)
  }

  @Test func whatLibevdevsReadingDropsIsDropped() throws {
    let handle = try panel()
    let log = CapturedOutput()
    let target = LibevdevLogTarget(devnode: "/dev/input/event4", logger: Logger(sink: log))
    target.install(on: handle)
    defer { withExtendedLifetime(target) { libevdev_free(handle) } }
    let down = touchDown(at: 3_000_000, slot: 0, id: 9, x: 50)
    _ = pass(down, handle)
    let frame = [
      event(3_010_000, EV_REL, REL_X, 5),  // a type the panel does not have
      event(3_010_000, EV_ABS, ABS_PRESSURE, 30),  // a code it does not have
      event(3_010_000, EV_ABS, ABS_MT_TRACKING_ID, 10),  // a contact over a contact
      event(3_010_000, EV_ABS, ABS_MT_POSITION_X, 60),
      event(3_010_000, EV_SYN, SYN_REPORT, 0),
    ]
    let (passed, dropped) = pass(frame, handle)
    #expect(dropped == nil)
    #expect(passed == [frame[3], frame[4]].map(EvdevDevice.rawEvent))
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_TRACKING_ID)) == 9)
    #expect(libevdev_get_slot_value(handle, 0, UInt32(ABS_MT_POSITION_X)) == 60)
    // As when libevdev reads it: a device bug, in the log.
    #expect(log.lines.count == 1)
    #expect(log.lines.first?.contains("double tracking ID 10 in slot 0") == true)
  }

  @Test func aSlotBeyondThePanelsIsCappedToItsLast() throws {
    let handle = try panel()
    let log = CapturedOutput()
    let target = LibevdevLogTarget(devnode: "/dev/input/event4", logger: Logger(sink: log))
    target.install(on: handle)
    defer { withExtendedLifetime(target) { libevdev_free(handle) } }
    let (passed, _) = pass([event(4_000_000, EV_ABS, ABS_MT_SLOT, 9)], handle)
    #expect(passed.map(\.value) == [3])
    #expect(libevdev_get_current_slot(handle) == 3)
    #expect(log.lines.first?.contains("invalid slot index 9") == true)
  }
}
