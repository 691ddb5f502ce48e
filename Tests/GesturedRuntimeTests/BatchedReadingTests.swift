import GestureCore
import Testing

@testable import GesturedRuntime

@Suite("Batched reading")
struct BatchedReadingTests {
  /// The VM's virtual panel (Tests/VM): 10 slots; ABS_X, ABS_Y; slot, x, y and tracking id.
  static let virtualPanel = DeviceDescription(
    name: "panel", properties: [InputProperty.direct], keys: [KeyCode.btnTouch],
    axes: [
      AbsCode.x: AxisInfo(minimum: 0, maximum: 4095), AbsCode.y: AxisInfo(minimum: 0, maximum: 4095),
      AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9),
      AbsCode.mtPositionX: AxisInfo(minimum: 0, maximum: 4095),
      AbsCode.mtPositionY: AxisInfo(minimum: 0, maximum: 4095),
      AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
    ])

  static func ms(_ value: Double) -> Timestamp { Timestamp(microseconds: Int64(value * 1000)) }

  @Test func theBufferIsTheKernelsEightFramesOfEverySlot() throws {
    // input_estimate_events_per_packet: 10 slots + 1, 4 multitouch axes × 10, 2 others, 7:
    // 60 events; evdev: 8 × 60 = 480, rounded up to 512.
    let reading = try #require(BatchedReading(device: Self.virtualPanel))
    #expect(reading.bufferEvents == 512)
    #expect(reading.largestFrame(contacts: 10) == 60)
    #expect(reading.largestFrame(contacts: 1) == 15)
  }

  @Test func aSingleTouchPanelsBufferHasRoomForItsFewAxes() throws {
    let single = DeviceDescription(
      name: "st", keys: [KeyCode.btnTouch],
      axes: [AbsCode.x: AxisInfo(minimum: 0, maximum: 100), AbsCode.y: AxisInfo(minimum: 0, maximum: 100)])
    let reading = try #require(BatchedReading(device: single))
    // 1 + 2 axes + 7 = 10 events; 8 × 10 = 80, rounded up to 128.
    #expect(reading.bufferEvents == 128)
  }

  @Test func protocolACannotBeReadAtContactChanges() {
    let anonymous = DeviceDescription(
      name: "a", properties: [InputProperty.direct],
      axes: [
        AbsCode.mtPositionX: AxisInfo(minimum: 0, maximum: 100),
        AbsCode.mtPositionY: AxisInfo(minimum: 0, maximum: 100),
      ])
    #expect(BatchedReading(device: anonymous) == nil)
  }

  @Test func batchesFollowTheScanRateAndTheContactsDown() throws {
    var reading = try #require(BatchedReading(device: Self.virtualPanel))
    // Until two frames are seen: 500 Hz. 384 / 15 = 25 frames.
    #expect(reading.interval(contacts: 1) == 50_000)
    for frame in 0..<5 { reading.sawFrame(at: Self.ms(100 + Double(frame) * 10)) }
    #expect(reading.scanPeriod == 10_000)
    #expect(reading.interval(contacts: 1) == 250_000)
    reading.sawFrame(at: Self.ms(144))
    #expect(reading.scanPeriod == 4_000)
    #expect(reading.interval(contacts: 1) == 100_000)
    // Ten fingers: 384 / 60 = 6 frames, 24 ms.
    #expect(reading.interval(contacts: 10) == 24_000)
    #expect(reading.nextBatch(after: Self.ms(1000), contacts: 2) == Self.ms(1000) + reading.interval(contacts: 2))
    #expect(reading.nextBatch(after: Self.ms(1000), contacts: 0) == nil)
  }

  @Test func aBurstIsNotTheScanRateButAFasterPanelIs() throws {
    var reading = try #require(BatchedReading(device: Self.virtualPanel))
    reading.sawFrame(at: Self.ms(100))
    reading.sawFrame(at: Self.ms(100.2))  // two reports in one USB frame
    #expect(reading.measuredPeriod == nil)
    reading.sawFrame(at: Self.ms(108.2))
    reading.sawFrame(at: Self.ms(112.4))
    #expect(reading.scanPeriod == 4_200)
    reading.sawFrame(at: Self.ms(500))  // a pause does not slow it down
    #expect(reading.scanPeriod == 4_200)
  }

  @Test func batchesStayWithinTheirBounds() throws {
    var fast = try #require(BatchedReading(device: Self.virtualPanel))
    fast.sawFrame(at: Self.ms(0))
    fast.sawFrame(at: Self.ms(1))
    #expect(fast.interval(contacts: 10) == BatchedReading.shortestInterval)
    var slow = try #require(BatchedReading(device: Self.virtualPanel))
    slow.sawFrame(at: Self.ms(0))
    slow.sawFrame(at: Self.ms(50))
    #expect(slow.interval(contacts: 1) == BatchedReading.longestInterval)
  }
}
