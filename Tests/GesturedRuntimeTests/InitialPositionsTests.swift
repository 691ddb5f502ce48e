import CEvdev
import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// The kernel does not resend an unchanged value, so a touch at the previous touch's place
/// arrives as a tracking id alone. The daemon seeds each engine with the positions libevdev
/// read at open; these tests build such a device in memory (no node needed).
@Suite("Initial positions")
struct InitialPositionsTests {
  /// A 200 × 100 mm protocol-B panel whose slot 0 last reported the centre.
  private func panel(slotZeroAt x: Int32, _ y: Int32) throws -> OpaquePointer {
    let handle = try #require(libevdev_new())
    libevdev_set_name(handle, "seeded panel")
    libevdev_enable_event_type(handle, UInt32(EV_ABS))
    libevdev_enable_event_type(handle, UInt32(EV_KEY))
    libevdev_enable_event_code(handle, UInt32(EV_KEY), UInt32(BTN_TOUCH), nil)
    func axis(_ code: Int32, _ maximum: Int32, resolution: Int32 = 20) {
      var info = input_absinfo(value: 0, minimum: 0, maximum: maximum, fuzz: 0, flat: 0, resolution: resolution)
      libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &info)
    }
    axis(ABS_X, 4000)
    axis(ABS_Y, 2000)
    axis(ABS_MT_SLOT, 9, resolution: 0)
    axis(ABS_MT_POSITION_X, 4000)
    axis(ABS_MT_POSITION_Y, 2000)
    axis(ABS_MT_TRACKING_ID, 65535, resolution: 0)
    #expect(libevdev_set_slot_value(handle, 0, UInt32(ABS_MT_POSITION_X), x) == 0)
    #expect(libevdev_set_slot_value(handle, 0, UInt32(ABS_MT_POSITION_Y), y) == 0)
    return handle
  }

  private func profile() -> Profile {
    var profile = Profile()
    profile.regions = [Region(name: "middle", area: Area(x: 0.25, y: 0.25, width: 0.5, height: 0.5))]
    profile.bindings = [
      Binding(name: "middle-tap", gesture: .tap, region: 0),
      Binding(name: "tap", gesture: .tap),
    ]
    return profile
  }

  /// A tap that sends only its tracking id, as the kernel does at an unchanged place.
  private func trackingIDOnlyTap(from start: Int64) -> [RawEvent] {
    func event(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) -> RawEvent {
      RawEvent(time: Timestamp(microseconds: start + ms * 1000), type: type, code: code, value: value)
    }
    return [
      event(0, EventType.abs, AbsCode.mtTrackingID, 7), event(0, EventType.key, KeyCode.btnTouch, 1),
      event(0, EventType.syn, SynCode.report, 0),
      event(80, EventType.abs, AbsCode.mtTrackingID, -1), event(80, EventType.key, KeyCode.btnTouch, 0),
      event(80, EventType.syn, SynCode.report, 0),
    ]
  }

  private func firings(seeded: Bool) throws -> [GestureEvent] {
    let handle = try panel(slotZeroAt: 2000, 1000)
    defer { libevdev_free(handle) }
    let description = DeviceDescription(libevdev: handle)
    var engine = try #require(DeviceEngine(device: description, profile: profile()))
    var fired: [GestureEvent] = []
    let opened = Timestamp(microseconds: 1_000_000)
    if seeded {
      let seed = EvdevDevice.positionEvents(of: handle, description: description, at: opened)
      #expect(seed.last == RawEvent(time: opened, type: EventType.syn, code: SynCode.report, value: 0))
      #expect(!seed.contains { $0.code == AbsCode.mtTrackingID }, "contacts down at open are not started")
      for event in seed { engine.handle(event, into: &fired) }
      #expect(fired.isEmpty)
    }
    for event in trackingIDOnlyTap(from: 2_000_000) { engine.handle(event, into: &fired) }
    engine.finish(at: Timestamp(microseconds: 3_000_000), into: &fired)
    return fired
  }

  @Test func aTouchWithOnlyATrackingIDLandsWhereTheKernelHasTheSlot() throws {
    let fired = try firings(seeded: true)
    #expect(fired.map(\.binding) == [0])
    #expect(fired.first?.position == Point(x: 0.5, y: 0.5))
  }

  @Test func withoutTheSeedTheSameTouchWouldLandAtTheOrigin() throws {
    // What the seed prevents: the engine's own last position (none) is the panel's corner.
    let fired = try firings(seeded: false)
    #expect(fired.map(\.binding) == [1])
    #expect(fired.first?.position == Point(x: 0, y: 0))
  }
}
