/// A panel edge, as the user sees the panel (after rotation).
public enum Edge: String, Hashable, Sendable, CaseIterable {
  case left, right, top, bottom
}

/// Clockwise turn from the device's coordinates to what the user sees.
public enum Rotation: Int, Hashable, Sendable, CaseIterable {
  case none = 0
  case quarter = 90
  case half = 180
  case threeQuarters = 270
}

/// A rectangle in fractions 0...1 of the panel as the user sees it.
public struct Area: Hashable, Sendable {
  public var x: Double
  public var y: Double
  public var width: Double
  public var height: Double

  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  public static let whole = Area(x: 0, y: 0, width: 1, height: 1)

  /// Half-open on the far sides so that neighbouring regions never both contain a point,
  /// except at the panel's own far edge, which belongs to the region that touches it.
  public func contains(x px: Double, y py: Double) -> Bool {
    let right = x + width
    let bottom = y + height
    let insideX = px >= x && (px < right || (right >= 1 && px <= right))
    let insideY = py >= y && (py < bottom || (bottom >= 1 && py <= bottom))
    return insideX && insideY
  }
}

/// A named part of the panel; bindings may be limited to one.
public struct Region: Hashable, Sendable {
  public var name: String
  public var area: Area
  /// `independent: true`: contacts that land here form their own touch sequences, which
  /// run beside the panel's other sequences (docs/configuration.md, "Independent regions").
  public var independent: Bool
  /// The continuous gestures that may all step in one touch sequence of this region, in
  /// place of the profile's group; nil: the profile's. The config has no key for it (the
  /// library's views each have their own).
  public var simultaneous: GestureKindSet?

  public init(name: String, area: Area = .whole, independent: Bool = false, simultaneous: GestureKindSet? = nil) {
    self.name = name
    self.area = area
    self.independent = independent
    self.simultaneous = simultaneous
  }
}

/// Where something came from in a config file, for messages.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
  public var file: String
  public var line: Int
  public var column: Int

  public init(file: String, line: Int, column: Int) {
    self.file = file
    self.line = line
    self.column = column
  }

  public var description: String { "\(file):\(line):\(column)" }
}

/// A gesture and where it may happen. What it runs is the config layer's business (keyed
/// by the binding's index in its profile): the core only recognizes.
public struct Binding: Hashable, Sendable {
  public var name: String?
  public var gesture: GestureKind
  /// Taps in the sequence (taps only; 1 for everything else).
  public var taps: Int
  public var fingers: Int
  /// Required for swipe, pan, pinch and rotate; nil for tap and long-press.
  public var direction: Direction?
  /// Swipes only: the swipe must start within `edge-width` of this edge.
  public var edge: Edge?
  /// Index into the profile's regions; nil = any region (and outside every region).
  public var region: Int?
  /// Continuous kinds: fire one step per this much further movement, in the kind's
  /// `StepUnit` (a pinch's 10 % is 10). nil: a one-shot binding.
  public var step: Double?
  public var location: SourceLocation?
  /// A single tap (taps 1) that fires at its release even when more taps are bound in its
  /// place: the longer chain still fires at its own last release (both fire). The library
  /// sets it per view; the config has no key for it.
  public var firesAtOnce = false

  public init(
    name: String? = nil, gesture: GestureKind, taps: Int = 1, fingers: Int? = nil,
    direction: Direction? = nil, edge: Edge? = nil, region: Int? = nil, step: Double? = nil
  ) {
    self.name = name
    self.gesture = gesture
    self.taps = taps
    self.fingers = fingers ?? gesture.traits.defaultFingers
    self.direction = direction
    self.edge = edge
    self.region = region
    self.step = step
  }
}

/// How a profile selects devices. Every given criterion must hold.
public struct DeviceMatch: Hashable, Sendable {
  /// Case-sensitive glob on the evdev name (`*`, `?`, `[...]`).
  public var name: String?
  public var vendor: UInt16?
  public var product: UInt16?
  /// Exact udev property values; only the daemon can check these.
  public var udev: [String: String] = [:]
  /// `virtual:` false takes only devices with hardware behind them, true only virtual ones
  /// (uinput's, under /devices/virtual in sysfs); nil takes both. Only the daemon can tell.
  public var virtual: Bool?

  public init(
    name: String? = nil, vendor: UInt16? = nil, product: UInt16? = nil, udev: [String: String] = [:],
    virtual: Bool? = nil
  ) {
    self.name = name
    self.vendor = vendor
    self.product = product
    self.udev = udev
    self.virtual = virtual
  }

  /// Whether the match names the devices it takes. One that sets only `virtual` names none: it
  /// filters the touchscreens a default profile would take.
  public var namesDevices: Bool { name != nil || vendor != nil || product != nil || !udev.isEmpty }

  /// Whether the device matches; `udevProperties` nil means udev is not available (replay),
  /// and then a profile that needs udev properties does not match. `isVirtual` nil means it
  /// is not known (replay), and then `virtual` is not checked.
  public func matches(
    _ device: DeviceDescription, udevProperties: [String: String]?, isVirtual: Bool? = nil
  ) -> Bool {
    if let virtual, let isVirtual, virtual != isVirtual { return false }
    if let name, !Glob.matches(pattern: name, name: device.name) { return false }
    if let vendor, vendor != device.vendor { return false }
    if let product, product != device.product { return false }
    if !udev.isEmpty {
      guard let udevProperties else { return false }
      for (key, value) in udev where udevProperties[key] != value { return false }
    }
    return true
  }
}

/// Physical size of the panel as the device reports its axes (before rotation).
public struct PanelSize: Hashable, Sendable {
  public var width: Double
  public var height: Double

  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }
}

/// Everything that applies to the devices one config entry selects.
public struct Profile: Hashable, Sendable {
  public var name: String
  /// nil: the default profile, for every touchscreen not matched by an earlier profile.
  public var match: DeviceMatch?
  public var rotation: Rotation = .none
  public var size: PanelSize?
  /// LIBINPUT_CALIBRATION_MATRIX semantics: the first two rows of a 3×3 matrix applied to
  /// normalized device coordinates.
  public var calibration: [Double]?
  /// Global thresholds with this profile's overrides applied.
  public var thresholds = Thresholds()
  /// The continuous gestures that may all step in one touch sequence (`simultaneous:`);
  /// empty: the first gesture recognized wins the sequence.
  public var simultaneous = GestureKindSet()
  public var regions: [Region] = []

  /// The group of a sequence in `region`: the region's own, else the profile's.
  public func simultaneous(in region: Int?) -> GestureKindSet {
    guard let region, regions.indices.contains(region), let own = regions[region].simultaneous else {
      return simultaneous
    }
    return own
  }
  public var bindings: [Binding] = []
  /// Take the device exclusively (EVIOCGRAB).
  public var grab = false
  /// Pass every touch that cannot become a bound gesture on through a uinput clone of the
  /// device (`forward: true`; implies `grab`).
  public var forward = false
  /// `forward-fingers`: the most contacts the clone has down at once (nil: no limit).
  public var forwardFingers: Int?
  /// `wake: { after: }`: the first touch sequence after this long untouched is not forwarded.
  public var wakeAfter: Microseconds?
  public var location: SourceLocation?

  public init(name: String = "default", match: DeviceMatch? = nil) {
    self.name = name
    self.match = match
  }

  /// The first region containing the point, as an index into `regions`.
  public func region(atX x: Double, y: Double) -> Int? {
    regions.firstIndex { $0.area.contains(x: x, y: y) }
  }

  /// How a binding is called in output and logs: its name, else gesture@region.
  public func displayName(ofBinding index: Int) -> String {
    let binding = bindings[index]
    if let name = binding.name { return name }
    if let region = binding.region { return "\(binding.gesture.rawValue)@\(regions[region].name)" }
    return binding.gesture.rawValue
  }
}

/// A whole validated configuration.
public struct Configuration: Hashable, Sendable {
  public var profiles: [Profile]
  /// The most input devices the daemon keeps open (`max-devices`), so that a flood of fake
  /// devices cannot use up its file descriptors.
  public var maximumDevices: Int

  public static let defaultMaximumDevices = 64

  public init(profiles: [Profile] = [Profile()], maximumDevices: Int = defaultMaximumDevices) {
    self.profiles = profiles
    self.maximumDevices = maximumDevices
  }

  /// The first profile that takes the device: profiles with a match in order, the default
  /// (no match) for whatever no earlier entry matched.
  public func profile(for device: DeviceDescription, udevProperties: [String: String]?) -> Int? {
    profiles.firstIndex { profile in
      guard let match = profile.match else { return true }
      return match.matches(device, udevProperties: udevProperties)
    }
  }
}
