import CEvdev
import CGesturedShim
import GestureCore
import Testing

@testable import GesturedRuntime

/// libevdev handles built in memory with `libevdev_new()`: no device node needed.
@Suite("libevdev device description")
struct LibevdevDescriptionTests {
  @Test func aProtocolBPanelIsDescribedCompletely() throws {
    let device = try #require(libevdev_new())
    defer { libevdev_free(device) }
    libevdev_set_name(device, "ILITEK ILITEK-TP ✋")
    libevdev_set_id_bustype(device, 0x03)
    libevdev_set_id_vendor(device, 0x222a)
    libevdev_set_id_product(device, 0x0001)
    libevdev_set_id_version(device, 0x0110)
    libevdev_enable_property(device, UInt32(INPUT_PROP_DIRECT))
    libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
    var position = input_absinfo(
      value: 0, minimum: 0, maximum: 16384, fuzz: 4, flat: 2, resolution: 76)
    var slots = input_absinfo(value: 0, minimum: 0, maximum: 9, fuzz: 0, flat: 0, resolution: 0)
    var tracking = input_absinfo(
      value: 0, minimum: 0, maximum: 65535, fuzz: 0, flat: 0, resolution: 0)
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_POSITION_X), &position)
    position.maximum = 9600
    position.minimum = -5
    position.resolution = 71
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_POSITION_Y), &position)
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_SLOT), &slots)
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_MT_TRACKING_ID), &tracking)

    let description = DeviceDescription(libevdev: device)

    #expect(description.name == "ILITEK ILITEK-TP ✋")
    #expect(description.bus == 0x03)
    #expect(description.vendor == 0x222a)
    #expect(description.product == 0x0001)
    #expect(description.version == 0x0110)
    #expect(description.properties == [InputProperty.direct])
    #expect(description.isDirect)
    #expect(description.keys == [KeyCode.btnTouch])
    #expect(
      Set(description.axes.keys) == [
        AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtSlot, AbsCode.mtTrackingID,
      ])
    #expect(
      description.axes[AbsCode.mtPositionX]
        == AxisInfo(minimum: 0, maximum: 16384, fuzz: 4, flat: 2, resolution: 76))
    #expect(
      description.axes[AbsCode.mtPositionY]
        == AxisInfo(minimum: -5, maximum: 9600, fuzz: 4, flat: 2, resolution: 71))
    #expect(description.touchProtocol == .multitouchB(slots: 10))
  }

  @Test func anEloStyleSingleTouchPanelUsesBTNLeft() throws {
    let device = try #require(libevdev_new())
    defer { libevdev_free(device) }
    libevdev_set_name(device, "Elo TouchSystems 2700 IntelliTouch(r) USB Touchmonitor Interface")
    libevdev_enable_event_code(device, UInt32(EV_KEY), UInt32(BTN_LEFT), nil)
    var axis = input_absinfo(value: 0, minimum: 0, maximum: 4095, fuzz: 0, flat: 0, resolution: 0)
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_X), &axis)
    libevdev_enable_event_code(device, UInt32(EV_ABS), UInt32(ABS_Y), &axis)

    let description = DeviceDescription(libevdev: device)

    #expect(description.properties.isEmpty)
    #expect(!description.isDirect)
    #expect(description.keys == [KeyCode.btnLeft])
    #expect(description.touchProtocol == .singleTouch(button: KeyCode.btnLeft))
  }

  @Test func aDeviceWithoutANameHasAnEmptyOne() throws {
    let device = try #require(libevdev_new())
    defer { libevdev_free(device) }
    let description = DeviceDescription(libevdev: device)
    #expect(description.name == "")
    #expect(description.axes.isEmpty)
    #expect(description.touchProtocol == nil)
  }
}

/// Collects what the shim's log trampoline hands over.
final class LogLines {
  var lines: [(priority: Int32, message: String)] = []
}

@Suite("libevdev log trampoline")
struct LogTrampolineTests {
  @Test func libevdevMessagesArriveFormattedWithTheirContext() throws {
    let device = try #require(libevdev_new())
    defer { libevdev_free(device) }
    let log = LogLines()
    let context = Unmanaged.passRetained(log)
    defer { context.release() }
    var target = gestured_log_target(
      handler: { context, priority, message in
        guard let context, let message else { return }
        let log = Unmanaged<LogLines>.fromOpaque(context).takeUnretainedValue()
        log.lines.append((priority, String(cString: message)))
      },
      context: context.toOpaque())
    // libevdev keeps the pointer: `target` must outlive every call that can log.
    try withUnsafeMutablePointer(to: &target) { target in
      gestured_evdev_set_log_target(device, target, Int32(LIBEVDEV_LOG_ERROR.rawValue))
      // Reading from a device that has no fd is a caller bug libevdev logs at error level.
      var event = input_event()
      let result = libevdev_next_event(device, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event)
      #expect(result < 0)
      let line = try #require(log.lines.first)
      #expect(log.lines.count == 1)
      #expect(line.priority == Int32(LIBEVDEV_LOG_ERROR.rawValue))
      #expect(line.message.contains("libevdev_set_fd"))
      #expect(!line.message.hasSuffix("\n"))

      // Removing the target stops the calls (libevdev's global handler, which prints on
      // stderr, gets them again, so nothing is logged here to keep test output clean).
      gestured_evdev_set_log_target(device, nil, Int32(LIBEVDEV_LOG_ERROR.rawValue))
    }
  }
}
