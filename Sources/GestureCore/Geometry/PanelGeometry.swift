/// A point in fractions of the panel as the user sees it: (0, 0) top left, (1, 1) bottom
/// right. Calibration can put a point slightly outside 0...1.
public struct Point: Hashable, Sendable {
  public var x: Double
  public var y: Double

  public init(x: Double, y: Double) {
    self.x = x
    self.y = y
  }

  /// The point pulled into 0...1, for reporting and region tests.
  public var clamped: Point { Point(x: min(max(x, 0), 1), y: min(max(y, 0), 1)) }
}

/// Where the panel's millimetres came from.
public enum SizeSource: String, Hashable, Sendable {
  /// The axis resolution the device reports.
  case resolution
  /// The profile's `size:`.
  case configured
  /// Neither: the longer axis is taken as 300 mm and the other in proportion.
  case guessed
}

/// Device units → what the user sees, and how big it is.
///
/// Order: normalize each axis to 0...1 by its range, apply the calibration matrix
/// (LIBINPUT_CALIBRATION_MATRIX semantics), then rotate clockwise by `rotation`.
public struct PanelGeometry: Hashable, Sendable {
  /// The longer axis of a panel that reports no resolution and has no configured size.
  public static let guessedLongerSideMillimetres = 300.0

  public let xAxis: AxisInfo
  public let yAxis: AxisInfo
  /// Size along the device's own axes, before rotation.
  public let deviceWidth: Double
  public let deviceHeight: Double
  public let sizeSource: SizeSource
  public let rotation: Rotation
  /// Row-major first two rows of the 3×3 calibration matrix.
  public let calibration: (Double, Double, Double, Double, Double, Double)

  /// Size as the user sees it, after rotation, in millimetres (stored: every distance the
  /// recognizers measure reads them).
  public let width: Double
  public let height: Double
  /// `userPoint`'s constants, worked out once: each axis's minimum and range as Doubles,
  /// and whether the calibration is the identity (then its products and sums, which give
  /// back their input bit for bit, are skipped).
  private let xMinimum: Double
  private let xRange: Double
  private let yMinimum: Double
  private let yRange: Double
  private let isUncalibrated: Bool
  public var diagonal: Double { (width * width + height * height).squareRoot() }

  public init(
    xAxis: AxisInfo, yAxis: AxisInfo, size: PanelSize? = nil, rotation: Rotation = .none,
    calibration: [Double]? = nil
  ) {
    self.xAxis = xAxis
    self.yAxis = yAxis
    self.rotation = rotation
    if let c = calibration, Self.isUsable(calibration: c) {
      self.calibration = (c[0], c[1], c[2], c[3], c[4], c[5])
    } else {
      self.calibration = (1, 0, 0, 0, 1, 0)
    }
    let unitsX = Double(max(1, Int64(xAxis.maximum) - Int64(xAxis.minimum)))
    let unitsY = Double(max(1, Int64(yAxis.maximum) - Int64(yAxis.minimum)))
    if let size {
      deviceWidth = size.width
      deviceHeight = size.height
      sizeSource = .configured
    } else if xAxis.resolution > 0, yAxis.resolution > 0 {
      deviceWidth = unitsX / Double(xAxis.resolution)
      deviceHeight = unitsY / Double(yAxis.resolution)
      sizeSource = .resolution
    } else {
      let longer = max(unitsX, unitsY)
      deviceWidth = Self.guessedLongerSideMillimetres * unitsX / longer
      deviceHeight = Self.guessedLongerSideMillimetres * unitsY / longer
      sizeSource = .guessed
    }
    let sideways = rotation == .quarter || rotation == .threeQuarters
    width = sideways ? deviceHeight : deviceWidth
    height = sideways ? deviceWidth : deviceHeight
    xMinimum = Double(xAxis.minimum)
    xRange = unitsX
    yMinimum = Double(yAxis.minimum)
    yRange = unitsY
    isUncalibrated = self.calibration == (1, 0, 0, 0, 1, 0)
  }

  /// The config's limits for a calibration (entries within ±1000, |a·e − b·d| ≥ 1e-6), checked
  /// again here because udev's LIBINPUT_CALIBRATION_MATRIX reaches the geometry unvalidated;
  /// anything else is taken as no calibration.
  public static func isUsable(calibration c: [Double]) -> Bool {
    guard c.count == 6, c.allSatisfy({ $0.isFinite && abs($0) <= 1000 }) else { return false }
    return abs(c[0] * c[4] - c[1] * c[3]) >= 1e-6
  }

  /// How far outside its axis range a position may lie, in axis ranges. Real panels stray a
  /// few units; a device reporting Int32.max on a 0...1 axis would otherwise make positions
  /// (and the millimetres derived from them) of 1e18 and more. With it, and the bounded
  /// calibration and size, every coordinate stays within ±5000 panel widths.
  static let normalizedRange = -1.0...2.0

  /// The geometry for a device under a profile, or nil when the device reports no position.
  public init?(device: DeviceDescription, profile: Profile) {
    guard let axes = device.positionAxes else { return nil }
    var x = axes.x
    var y = axes.y
    // Some MT devices leave ABS_MT_POSITION_* resolution at 0 but fill ABS_X/ABS_Y's.
    if x.resolution <= 0 || y.resolution <= 0, let sx = device.axes[AbsCode.x], let sy = device.axes[AbsCode.y],
      sx.resolution > 0, sy.resolution > 0
    {
      x.resolution = sx.resolution
      y.resolution = sy.resolution
    }
    self.init(
      xAxis: x, yAxis: y, size: profile.size, rotation: profile.rotation,
      calibration: profile.calibration)
  }

  /// A device position in axis units → the user's normalized coordinates.
  public func userPoint(x rawX: Int32, y rawY: Int32) -> Point {
    let range = Self.normalizedRange
    func normalized(_ raw: Int32, _ minimum: Double, _ units: Double) -> Double {
      min(max((Double(raw) - minimum) / units, range.lowerBound), range.upperBound)
    }
    let (nx, ny) = (normalized(rawX, xMinimum, xRange), normalized(rawY, yMinimum, yRange))
    // 1·n + 0·m + 0 is n exactly (n is finite and never -0, m finite).
    let cx: Double
    let cy: Double
    if isUncalibrated {
      (cx, cy) = (nx, ny)
    } else {
      let (a, b, c, d, e, f) = calibration
      cx = a * nx + b * ny + c
      cy = d * nx + e * ny + f
    }
    switch rotation {
    case .none: return Point(x: cx, y: cy)
    case .quarter: return Point(x: 1 - cy, y: cx)
    case .half: return Point(x: 1 - cx, y: 1 - cy)
    case .threeQuarters: return Point(x: cy, y: 1 - cx)
    }
  }

  /// Distance in millimetres between two user points.
  public func distance(_ a: Point, _ b: Point) -> Double {
    squaredDistance(a, b).squareRoot()
  }

  /// The square of `distance(a, b)`, exactly: for comparisons against a `DistanceLimit`.
  @inline(__always)
  func squaredDistance(_ a: Point, _ b: Point) -> Double {
    let dx = (b.x - a.x) * width
    let dy = (b.y - a.y) * height
    return dx * dx + dy * dy
  }

  /// A user-space displacement in millimetres.
  public func millimetres(from a: Point, to b: Point) -> (dx: Double, dy: Double) {
    ((b.x - a.x) * width, (b.y - a.y) * height)
  }
}

extension PanelGeometry {
  public static func == (l: PanelGeometry, r: PanelGeometry) -> Bool {
    l.xAxis == r.xAxis && l.yAxis == r.yAxis && l.deviceWidth == r.deviceWidth
      && l.deviceHeight == r.deviceHeight && l.sizeSource == r.sizeSource && l.rotation == r.rotation
      && l.calibration == r.calibration
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(xAxis)
    hasher.combine(yAxis)
    hasher.combine(deviceWidth)
    hasher.combine(deviceHeight)
    hasher.combine(rotation)
  }
}
