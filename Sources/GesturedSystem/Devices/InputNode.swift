/// One `/dev/input/event*` node as udev describes it: where it is, what udev thinks it is,
/// and the properties a profile's `match: { udev: … }` is checked against.
///
/// Built from libudev by `UdevWatcher`; tests build it from a properties dictionary.
public struct InputNode: Sendable, Hashable {
  /// e.g. `/sys/devices/pci0000:00/…/input/input12/event5`; stable while the device stays.
  public var syspath: String
  /// e.g. `/dev/input/event5`.
  public var devnode: String
  /// e.g. `event5`.
  public var sysname: String
  /// Every udev property of the event node (ID_INPUT_*, ID_PATH, LIBINPUT_*, …).
  public var properties: [String: String]
  /// udev has run its rules on the node. Until then properties and permissions are not final.
  public var isInitialized: Bool
  /// The input device's name from sysfs (the node's parent), known even when the node itself
  /// cannot be opened.
  public var name: String?
  /// The sysfs path of the hardware the node belongs to (the USB device, else the input
  /// device's parent): nodes sharing it are one physical panel. nil for virtual devices.
  public var physicalDevice: String?

  public init(
    syspath: String, devnode: String, sysname: String? = nil, properties: [String: String] = [:],
    isInitialized: Bool = true, name: String? = nil, physicalDevice: String? = nil
  ) {
    self.syspath = syspath
    self.devnode = devnode
    self.sysname = sysname ?? String(devnode.split(separator: "/").last ?? "")
    self.properties = properties
    self.isInitialized = isInitialized
    self.name = name
    self.physicalDevice = physicalDevice
  }

  public var isTouchscreen: Bool { properties["ID_INPUT_TOUCHSCREEN"] == "1" }

  /// A device no hardware is behind: the kernel puts uinput's (and other software devices)
  /// under /sys/devices/virtual.
  public var isVirtual: Bool { syspath.hasPrefix("/sys/devices/virtual/") }

  /// udev calls it a mouse or a tablet (many single-touch panels report BTN_LEFT or a pen
  /// bit and get these): only a profile that matches it explicitly takes it.
  public var isMouseOrTablet: Bool {
    properties["ID_INPUT_MOUSE"] == "1" || properties["ID_INPUT_TABLET"] == "1"
  }

  /// The `ID_INPUT_*` types udev's input_id builtin set, in udev's words and a fixed order,
  /// joined by ","; "unknown" when none is set.
  public var classification: String {
    let words = Self.classificationProperties.compactMap { property, word in
      properties[property] == "1" ? word : nil
    }
    return words.isEmpty ? "unknown" : words.joined(separator: ",")
  }

  static let classificationProperties: [(property: String, word: String)] = [
    ("ID_INPUT_TOUCHSCREEN", "touchscreen"),
    ("ID_INPUT_TABLET", "tablet"),
    ("ID_INPUT_TABLET_PAD", "tablet-pad"),
    ("ID_INPUT_MOUSE", "mouse"),
    ("ID_INPUT_TOUCHPAD", "touchpad"),
    ("ID_INPUT_POINTINGSTICK", "pointingstick"),
    ("ID_INPUT_TRACKBALL", "trackball"),
    ("ID_INPUT_JOYSTICK", "joystick"),
    ("ID_INPUT_KEYBOARD", "keyboard"),
    ("ID_INPUT_KEY", "key"),
    ("ID_INPUT_SWITCH", "switch"),
    ("ID_INPUT_ACCELEROMETER", "accelerometer"),
  ]

  /// `ID_PATH`: the port the hardware hangs off, which tells identical panels apart.
  public var idPath: String? { properties["ID_PATH"].flatMap { $0.isEmpty ? nil : $0 } }

  /// The udev property libinput reads its calibration from.
  public static let calibrationProperty = "LIBINPUT_CALIBRATION_MATRIX"

  /// The node's `LIBINPUT_CALIBRATION_MATRIX`, when it is set and valid; see
  /// `calibrationProblem` for why a set one is not used.
  public var calibration: [Double]? {
    guard let text = properties[Self.calibrationProperty] else { return nil }
    return try? Self.parseCalibration(text).get()
  }

  /// Why a set `LIBINPUT_CALIBRATION_MATRIX` cannot be used; nil when it is unset or good.
  public var calibrationProblem: CalibrationParseError? {
    guard let text = properties[Self.calibrationProperty] else { return nil }
    if case .failure(let problem) = Self.parseCalibration(text) { return problem }
    return nil
  }

  /// Parses `LIBINPUT_CALIBRATION_MATRIX`: six decimal numbers separated by whitespace
  /// (libinput wants single spaces; tabs and runs of spaces are let through as harmless).
  /// The numbers are the first two rows of a 3×3 matrix on normalized coordinates. Refused,
  /// as the config refuses them: other counts, non-decimal or non-finite numbers, and a
  /// matrix that squashes the panel onto a line (a·e − b·d = 0).
  public static func parseCalibration(_ text: String) -> Result<[Double], CalibrationParseError> {
    let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
    guard fields.count == 6 else { return .failure(.wrongCount(fields.count)) }
    var numbers: [Double] = []
    numbers.reserveCapacity(6)
    for field in fields {
      // Only plain decimals: Double(String) would also take "nan", "inf" and hex floats.
      let allowed = field.allSatisfy { $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }
      guard allowed, let number = Double(field), number.isFinite else {
        return .failure(.notANumber(String(field)))
      }
      numbers.append(number)
    }
    let determinant = numbers[0] * numbers[4] - numbers[1] * numbers[3]
    guard determinant != 0, determinant.isFinite else { return .failure(.singular) }
    return .success(numbers)
  }
}

/// Why a `LIBINPUT_CALIBRATION_MATRIX` value is not used.
public enum CalibrationParseError: Error, Hashable, Sendable, CustomStringConvertible {
  case wrongCount(Int)
  case notANumber(String)
  case singular

  public var description: String {
    switch self {
    case .wrongCount(let count): "it has \(count) numbers, not 6"
    case .notANumber(let field): "'\(field)' is not a decimal number"
    case .singular: "it squashes the panel onto a line (a·e − b·d = 0)"
    }
  }
}

extension InputNode {
  /// The other nodes in `nodes` that belong to the same panel as this one: same `ID_PATH`,
  /// same physical device, or same `LIBINPUT_DEVICE_GROUP` (libinput's own grouping).
  /// A panel often has a touchscreen node and a mouse or pen node side by side, and a
  /// `match:` on its name or ids selects both.
  public func twins(in nodes: [InputNode]) -> [(node: InputNode, reason: String)] {
    nodes.compactMap { other in
      guard other.syspath != syspath else { return nil }
      if let path = idPath, path == other.idPath { return (other, "same ID_PATH") }
      if let device = physicalDevice, device == other.physicalDevice {
        return (other, "same physical device")
      }
      if let group = properties["LIBINPUT_DEVICE_GROUP"], !group.isEmpty,
        group == other.properties["LIBINPUT_DEVICE_GROUP"]
      {
        return (other, "same LIBINPUT_DEVICE_GROUP")
      }
      return nil
    }
  }
}
