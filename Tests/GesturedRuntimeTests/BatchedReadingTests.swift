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

  /// One batch of frames at `times` (ms).
  static func batch(_ reading: inout BatchedReading, _ times: [Double]) {
    for time in times { reading.sawFrame(at: ms(time)) }
    reading.batchEnded()
  }

  @Test func batchesFollowTheScanRateAndTheContactsDown() throws {
    var reading = try #require(BatchedReading(device: Self.virtualPanel))
    // Until a batch shows the rate: 500 Hz. 384 / 15 = 25 frames.
    #expect(reading.interval(contacts: 1) == 50_000)
    Self.batch(&reading, (0..<8).map { 100 + Double($0) * 10 })
    #expect(reading.scanPeriod == 10_000)
    #expect(reading.interval(contacts: 1) == 250_000)
    Self.batch(&reading, (0..<8).map { 300 + Double($0) * 4 })
    #expect(reading.scanPeriod == 4_000)
    #expect(reading.interval(contacts: 1) == 100_000)
    // Ten fingers: 384 / 60 = 6 frames, 24 ms.
    #expect(reading.interval(contacts: 10) == 24_000)
    #expect(reading.nextBatch(after: Self.ms(1000), contacts: 2) == Self.ms(1000) + reading.interval(contacts: 2))
    #expect(reading.nextBatch(after: Self.ms(1000), contacts: 0) == nil)
  }

  /// Frames that came late and then in a burst (measured in the VM: a 200 Hz panel's
  /// batches taken for 1.2 ms frames, read every 30 ms instead of every 125).
  @Test func aBurstIsNotTheScanRate() throws {
    var reading = try #require(BatchedReading(device: Self.virtualPanel))
    Self.batch(&reading, [100, 105, 110, 115, 128, 129.2, 130.4, 131.6, 135, 140, 145])
    #expect(reading.scanPeriod == 5_000)
    // A batch too short for a median changes nothing, nor does a slower one.
    Self.batch(&reading, [150, 150.5, 151])
    Self.batch(&reading, (0..<8).map { 200 + Double($0) * 20 })
    #expect(reading.scanPeriod == 5_000)
  }

  /// The median gap decides, whether or not the batch is sorted: half the gaps shorter than
  /// the period leave it; one more shortens it. (A batch's first gap is from the previous
  /// batch's last frame.)
  @Test func onlyAMedianBelowThePeriodShortensIt() throws {
    var reading = try #require(BatchedReading(device: Self.virtualPanel))
    Self.batch(&reading, (0..<8).map { 100 + Double($0) * 5 })
    #expect(reading.scanPeriod == 5_000)
    // Gaps 65, 4, 4, 4, 6, 6: three of six shorter, the median 6.
    Self.batch(&reading, [200, 204, 208, 212, 218, 224])
    #expect(reading.scanPeriod == 5_000)
    // Gaps 76, 4, 4, 4, 4, 6, 6: four of seven shorter, the median 4.
    Self.batch(&reading, [300, 304, 308, 312, 316, 322, 328])
    #expect(reading.scanPeriod == 4_000)
  }

  @Test func batchesStayWithinTheirBounds() throws {
    var fast = try #require(BatchedReading(device: Self.virtualPanel))
    Self.batch(&fast, (0..<8).map { Double($0) * 0.1 })
    #expect(fast.scanPeriod == BatchedReading.shortestPeriod)
    #expect(fast.interval(contacts: 10) == BatchedReading.shortestInterval)
    var slow = try #require(BatchedReading(device: Self.virtualPanel))
    Self.batch(&slow, (0..<8).map { Double($0) * 50 })
    #expect(slow.interval(contacts: 1) == BatchedReading.longestInterval)
  }
}
