/// One absolute axis as `struct input_absinfo` describes it.
public struct AxisInfo: Hashable, Sendable {
  public var minimum: Int32
  public var maximum: Int32
  public var fuzz: Int32
  public var flat: Int32
  /// Units per millimetre; 0 when the device does not say.
  public var resolution: Int32

  public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
    self.minimum = minimum
    self.maximum = maximum
    self.fuzz = fuzz
    self.flat = flat
    self.resolution = resolution
  }
}

/// What a device is, as far as gesture recognition cares: identity and capabilities.
///
/// Built from an evemu description (`N:`/`I:`/`P:`/`B:`/`A:` lines) or from a live libevdev
/// handle, so both sources feed the same pipeline.
public struct DeviceDescription: Hashable, Sendable {
  public var name: String
  public var bus: UInt16
  public var vendor: UInt16
  public var product: UInt16
  public var version: UInt16
  /// INPUT_PROP_* bits that are set.
  public var properties: Set<UInt16>
  /// Supported key codes (EV_KEY).
  public var keys: Set<UInt16>
  /// Supported absolute axes (EV_ABS) with their ranges.
  public var axes: [UInt16: AxisInfo]
  /// The kernel's `phys` of a live device (nil from a recording): how gestured tells its
  /// own forwarding clones apart.
  public var phys: String?

  public init(
    name: String, bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
    properties: Set<UInt16> = [], keys: Set<UInt16> = [], axes: [UInt16: AxisInfo] = [:],
    phys: String? = nil
  ) {
    self.name = name
    self.bus = bus
    self.vendor = vendor
    self.product = product
    self.version = version
    self.properties = properties
    self.keys = keys
    self.axes = axes
    self.phys = phys
  }

  public var isDirect: Bool { properties.contains(InputProperty.direct) }
}

/// How a device reports contacts.
public enum TouchProtocol: Hashable, Sendable, CustomStringConvertible {
  /// Multitouch protocol B: slots and tracking ids. `slots` is ABS_MT_SLOT's max + 1, or 1
  /// for devices that have tracking ids but no ABS_MT_SLOT axis (slot 0 only).
  case multitouchB(slots: Int)
  /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT.
  case multitouchA
  /// ABS_X/ABS_Y with a button for contact: BTN_TOUCH, or BTN_LEFT as on Elo panels.
  case singleTouch(button: UInt16)

  public var description: String {
    switch self {
    case .multitouchB(let slots): "B (\(slots) slots)"
    case .multitouchA: "A"
    case .singleTouch(let button): button == KeyCode.btnLeft ? "single-touch (BTN_LEFT)" : "single-touch"
    }
  }
}

extension DeviceDescription {
  /// The protocol this device speaks, or nil when it cannot report a position.
  public var touchProtocol: TouchProtocol? {
    if axes[AbsCode.mtPositionX] != nil, axes[AbsCode.mtPositionY] != nil {
      if let slot = axes[AbsCode.mtSlot] {
        return .multitouchB(slots: max(1, Int(slot.maximum) + 1))
      }
      if axes[AbsCode.mtTrackingID] != nil { return .multitouchB(slots: 1) }
      return .multitouchA
    }
    if axes[AbsCode.x] != nil, axes[AbsCode.y] != nil {
      if keys.contains(KeyCode.btnTouch) { return .singleTouch(button: KeyCode.btnTouch) }
      if keys.contains(KeyCode.btnLeft) { return .singleTouch(button: KeyCode.btnLeft) }
    }
    return nil
  }

  /// The X and Y axes positions are read from for this protocol.
  public var positionAxes: (x: AxisInfo, y: AxisInfo)? {
    switch touchProtocol {
    case .multitouchA, .multitouchB:
      guard let x = axes[AbsCode.mtPositionX], let y = axes[AbsCode.mtPositionY] else { return nil }
      return (x, y)
    case .singleTouch:
      guard let x = axes[AbsCode.x], let y = axes[AbsCode.y] else { return nil }
      return (x, y)
    case nil:
      return nil
    }
  }
}
