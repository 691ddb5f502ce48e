import GestureCore
import Testing

private func axis(_ minimum: Int32, _ maximum: Int32, resolution: Int32 = 0) -> AxisInfo {
  AxisInfo(minimum: minimum, maximum: maximum, resolution: resolution)
}

private func isClose(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
private func isClose(_ a: Point, _ b: Point) -> Bool { isClose(a.x, b.x) && isClose(a.y, b.y) }

/// A 0...1000 square panel, so raw 200 is 0.2 of the axis.
private func squarePanel(
  rotation: Rotation = .none, calibration: [Double]? = nil
) -> PanelGeometry {
  PanelGeometry(
    xAxis: axis(0, 1000), yAxis: axis(0, 1000), rotation: rotation, calibration: calibration)
}

@Suite("PanelGeometry")
struct PanelGeometryTests {

  // MARK: Size

  @Test("The axis resolution turns device units into millimetres")
  func sizeFromResolution() {
    let geometry = PanelGeometry(
      xAxis: axis(0, 3440, resolution: 10), yAxis: axis(0, 1940, resolution: 10))
    #expect(geometry.sizeSource == .resolution)
    #expect(isClose(geometry.width, 344))
    #expect(isClose(geometry.height, 194))
    #expect(isClose(geometry.diagonal, (344.0 * 344 + 194 * 194).squareRoot()))
  }

  @Test("Resolution uses the axis range, not its maximum, when the minimum is not 0")
  func sizeFromResolutionWithOffsetRange() {
    let geometry = PanelGeometry(
      xAxis: axis(1000, 4000, resolution: 10), yAxis: axis(-500, 1500, resolution: 20))
    #expect(isClose(geometry.width, 300))
    #expect(isClose(geometry.height, 100))
  }

  @Test("A configured size overrides the resolution")
  func configuredSizeWins() {
    let geometry = PanelGeometry(
      xAxis: axis(0, 3440, resolution: 10), yAxis: axis(0, 1940, resolution: 10),
      size: PanelSize(width: 500, height: 250))
    #expect(geometry.sizeSource == .configured)
    #expect(geometry.width == 500)
    #expect(geometry.height == 250)
  }

  @Test("Without resolution or size the longer axis counts as 300 mm, the other in proportion")
  func guessedSize() {
    let landscape = PanelGeometry(xAxis: axis(0, 4000), yAxis: axis(0, 3000))
    #expect(landscape.sizeSource == .guessed)
    #expect(isClose(landscape.width, 300))
    #expect(isClose(landscape.height, 225))

    let portrait = PanelGeometry(xAxis: axis(0, 1000), yAxis: axis(0, 2000))
    #expect(isClose(portrait.width, 150))
    #expect(isClose(portrait.height, 300))
    #expect(PanelGeometry.guessedLongerSideMillimetres == 300)
  }

  @Test("A resolution on only one axis is not enough: the size is guessed")
  func resolutionOnOneAxisOnly() {
    let geometry = PanelGeometry(xAxis: axis(0, 4000, resolution: 10), yAxis: axis(0, 3000))
    #expect(geometry.sizeSource == .guessed)
    #expect(isClose(geometry.width, 300))
  }

  @Test("Rotation by 90 or 270 swaps width and height as the user sees them")
  func rotationSwapsSize() {
    for rotation in Rotation.allCases {
      let geometry = PanelGeometry(
        xAxis: axis(0, 3000, resolution: 10), yAxis: axis(0, 2000, resolution: 10),
        rotation: rotation)
      let quarterTurn = rotation == .quarter || rotation == .threeQuarters
      #expect(isClose(geometry.width, quarterTurn ? 200 : 300), "\(rotation)")
      #expect(isClose(geometry.height, quarterTurn ? 300 : 200), "\(rotation)")
      // The device's own size does not turn.
      #expect(isClose(geometry.deviceWidth, 300), "\(rotation)")
    }
  }

  // MARK: Positions

  @Test("Device units normalize to 0...1 over the axis range")
  func normalization() {
    let geometry = PanelGeometry(xAxis: axis(-100, 100), yAxis: axis(1000, 5000))
    #expect(isClose(geometry.userPoint(x: -100, y: 1000), Point(x: 0, y: 0)))
    #expect(isClose(geometry.userPoint(x: 0, y: 3000), Point(x: 0.5, y: 0.5)))
    #expect(isClose(geometry.userPoint(x: 100, y: 5000), Point(x: 1, y: 1)))
  }

  @Test(
    "Rotation turns device (x, y) clockwise into what the user sees",
    arguments: [
      (Rotation.none, Point(x: 0.2, y: 0.1)),
      (Rotation.quarter, Point(x: 0.9, y: 0.2)),  // (1 - y, x)
      (Rotation.half, Point(x: 0.8, y: 0.9)),  // (1 - x, 1 - y)
      (Rotation.threeQuarters, Point(x: 0.1, y: 0.8)),  // (y, 1 - x)
    ])
  func rotationMapsPoints(rotation: Rotation, expected: Point) {
    let point = squarePanel(rotation: rotation).userPoint(x: 200, y: 100)
    #expect(isClose(point, expected), "\(point)")
  }

  @Test("A touch at the device's top right corner, turned 90°, is at the user's bottom right")
  func rotationCorner() {
    // Device top right (1, 0); turned clockwise a quarter, that corner ends at the bottom right.
    let point = squarePanel(rotation: .quarter).userPoint(x: 1000, y: 0)
    #expect(isClose(point, Point(x: 1, y: 1)))
  }

  @Test("The calibration matrix applies to normalized coordinates")
  func calibration() {
    // Swap the axes and shift: x' = y + 0.1, y' = 0.5 x.
    let geometry = squarePanel(calibration: [0, 1, 0.1, 0.5, 0, 0])
    #expect(isClose(geometry.userPoint(x: 200, y: 400), Point(x: 0.5, y: 0.1)))
  }

  @Test("Calibration applies first, then rotation")
  func calibrationThenRotation() {
    // Shift x by 0.1, then turn 90°: device (0.2, 0.1) → calibrated (0.3, 0.1) → (0.9, 0.3).
    // The other order would give (0.9, 0.2) shifted to (1.0, 0.2).
    let geometry = squarePanel(rotation: .quarter, calibration: [1, 0, 0.1, 0, 1, 0])
    #expect(isClose(geometry.userPoint(x: 200, y: 100), Point(x: 0.9, y: 0.3)))
  }

  @Test("A calibration that is not six numbers is ignored")
  func malformedCalibrationIgnored() {
    let geometry = squarePanel(calibration: [2, 0, 0])
    #expect(isClose(geometry.userPoint(x: 200, y: 100), Point(x: 0.2, y: 0.1)))
  }

  @Test("Degenerate and extreme axes never trap and give finite points")
  func degenerateAxes() {
    let flat = PanelGeometry(xAxis: axis(5, 5), yAxis: axis(10, 0))
    let point = flat.userPoint(x: Int32.max, y: Int32.min)
    #expect(point.x.isFinite && point.y.isFinite)
    #expect(flat.width > 0 && flat.height > 0)

    let huge = PanelGeometry(xAxis: axis(Int32.min, Int32.max), yAxis: axis(Int32.min, Int32.max))
    #expect(isClose(huge.userPoint(x: Int32.min, y: Int32.max), Point(x: 0, y: 1)))
    #expect(isClose(huge.width, 300))
  }

  // MARK: Distances

  @Test("Distances are in millimetres of the panel as the user sees it")
  func distances() {
    let geometry = PanelGeometry(
      xAxis: axis(0, 3000, resolution: 10), yAxis: axis(0, 2000, resolution: 10),
      rotation: .quarter)
    // Turned, the user's panel is 200 mm wide and 300 mm high.
    #expect(isClose(geometry.distance(Point(x: 0, y: 0), Point(x: 1, y: 0)), 200))
    #expect(isClose(geometry.distance(Point(x: 0, y: 0), Point(x: 0, y: 1)), 300))
    let move = geometry.millimetres(from: Point(x: 0.5, y: 0.5), to: Point(x: 0.25, y: 0.6))
    #expect(isClose(move.dx, -50))
    #expect(isClose(move.dy, 30))
  }

  // MARK: From a device and a profile

  @Test("From a device and profile: MT axes, the profile's size, rotation and calibration")
  func fromDeviceAndProfile() throws {
    let device = DeviceDescription(
      name: "panel",
      axes: [
        AbsCode.mtPositionX: axis(0, 1000, resolution: 5),
        AbsCode.mtPositionY: axis(0, 500, resolution: 5),
        AbsCode.mtSlot: axis(0, 9),
      ])
    var profile = Profile()
    profile.rotation = .half
    profile.calibration = [1, 0, 0.1, 0, 1, 0]
    let geometry = try #require(PanelGeometry(device: device, profile: profile))
    #expect(geometry.sizeSource == .resolution)
    #expect(isClose(geometry.width, 200))
    #expect(isClose(geometry.height, 100))
    #expect(isClose(geometry.userPoint(x: 200, y: 100), Point(x: 0.7, y: 0.8)))

    profile.size = PanelSize(width: 400, height: 300)
    let sized = try #require(PanelGeometry(device: device, profile: profile))
    #expect(sized.sizeSource == .configured)
    #expect(sized.width == 400)
  }

  @Test("From a device: MT axes without resolution borrow ABS_X/ABS_Y's")
  func borrowsSingleTouchResolution() throws {
    let device = DeviceDescription(
      name: "panel",
      axes: [
        AbsCode.x: axis(0, 1000, resolution: 4), AbsCode.y: axis(0, 800, resolution: 4),
        AbsCode.mtPositionX: axis(0, 1000), AbsCode.mtPositionY: axis(0, 800),
      ])
    let geometry = try #require(PanelGeometry(device: device, profile: Profile()))
    #expect(geometry.sizeSource == .resolution)
    #expect(isClose(geometry.width, 250))
    #expect(isClose(geometry.height, 200))
  }

  @Test("From a device: single-touch panels use ABS_X/ABS_Y")
  func singleTouchAxes() throws {
    let device = DeviceDescription(
      name: "elo", keys: [KeyCode.btnLeft],
      axes: [AbsCode.x: axis(0, 4095), AbsCode.y: axis(0, 4095)])
    let geometry = try #require(PanelGeometry(device: device, profile: Profile()))
    #expect(geometry.xAxis.maximum == 4095)
    #expect(isClose(geometry.userPoint(x: 4095, y: 0), Point(x: 1, y: 0)))
  }

  @Test("From a device that reports no position: no geometry")
  func noPositionNoGeometry() {
    let keyboard = DeviceDescription(name: "keyboard", keys: [30])
    #expect(PanelGeometry(device: keyboard, profile: Profile()) == nil)
    // ABS_X/ABS_Y without a contact button cannot say when a touch happens.
    let noButton = DeviceDescription(
      name: "joystick", axes: [AbsCode.x: axis(0, 255), AbsCode.y: axis(0, 255)])
    #expect(PanelGeometry(device: noButton, profile: Profile()) == nil)
  }
}

/// Values a device (or udev) may send that would otherwise make coordinates of 1e18 mm.
@Suite("PanelGeometry bounds")
struct PanelGeometryBoundsTests {
  /// X spans all of Int32 at 1 unit/mm (4.3e9 mm); Y is one unit wide, yet sends Int32.max.
  static let extremeDevice = DeviceDescription(
    name: "extreme", properties: [InputProperty.direct],
    axes: [
      AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9),
      AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
      AbsCode.mtPositionX: AxisInfo(minimum: .min, maximum: .max, resolution: 1),
      AbsCode.mtPositionY: AxisInfo(minimum: .min, maximum: .min, resolution: 1),
    ])

  @Test func positionsFarOutsideTheirAxisAreHeldNearThePanel() {
    let geometry = PanelGeometry(
      xAxis: AxisInfo(minimum: 0, maximum: 1), yAxis: AxisInfo(minimum: 0, maximum: 1000))
    let point = geometry.userPoint(x: .max, y: .min)
    #expect(point.x == 2 && point.y == -1)
    // Slightly outside stays as it is.
    #expect(geometry.userPoint(x: 0, y: 1010).y == 1.01)
  }

  @Test func aCalibrationOutsideTheConfigsLimitsIsNone() {
    for calibration in [[1e200, 1e200, 0, 1e200, 1e200, 0], [1, 2, 0, 2, 4, 0], [.nan, 0, 0, 0, 1, 0]] {
      let geometry = PanelGeometry(
        xAxis: AxisInfo(minimum: 0, maximum: 100), yAxis: AxisInfo(minimum: 0, maximum: 100),
        calibration: calibration)
      #expect(geometry.userPoint(x: 25, y: 50) == Point(x: 0.25, y: 0.5), "\(calibration)")
    }
  }

  /// Tests/Fuzz/Crashers/engine/verbose-trace-distance-beyond-int: with tracing on, the tap
  /// recognizer formatted a move of 1.8e19 mm as an Int and trapped.
  @Test func aSwappedExtremeDeviceTracesWithoutTrapping() throws {
    var tapProfile = profile([bind(.tap)])
    tapProfile.calibration = [0, 1, 0, 1, 0, 0]
    var engine = try #require(DeviceEngine(device: Self.extremeDevice, profile: tapProfile))
    engine.tracing = true
    var out: [GestureEvent] = []
    func send(_ ms: Int64, _ type: UInt16, _ code: UInt16, _ value: Int32) {
      engine.handle(
        RawEvent(time: Timestamp(microseconds: 1_000_000 + ms * 1000), type: type, code: code, value: value),
        into: &out)
    }
    send(0, EventType.abs, AbsCode.mtSlot, 0)
    send(0, EventType.abs, AbsCode.mtTrackingID, 1)
    send(0, EventType.abs, AbsCode.mtPositionX, 0)
    send(0, EventType.abs, AbsCode.mtPositionY, .max)
    send(0, EventType.syn, SynCode.report, 0)
    send(10, EventType.abs, AbsCode.mtPositionY, .min)
    send(10, EventType.syn, SynCode.report, 0)
    send(50, EventType.abs, AbsCode.mtTrackingID, -1)
    send(50, EventType.syn, SynCode.report, 0)
    engine.finish(at: Timestamp(microseconds: 2_000_000), into: &out)
    #expect(out.isEmpty)
    #expect(engine.takeTrace().contains { $0.contains("tap: possible → finger moved → failed (moved") })
  }
}
