import CEvdev
import GestureCore

extension DeviceDescription {
  /// What a libevdev handle says about its device: name, ids, properties, keys and absolute
  /// axes with their ranges, so a live device feeds the same pipeline as a recording.
  ///
  /// `device` is a `struct libevdev *`, from `libevdev_new_from_fd` or built by hand with
  /// `libevdev_new` and `libevdev_enable_*` (as tests do). Codes above the core's
  /// INPUT_PROP_MAX, KEY_MAX and ABS_MAX are not looked at.
  public init(libevdev device: OpaquePointer) {
    let name = libevdev_get_name(device).map { String(cString: $0) } ?? ""
    var properties: Set<UInt16> = []
    for property in 0...InputProperty.max where libevdev_has_property(device, UInt32(property)) == 1 {
      properties.insert(property)
    }
    var keys: Set<UInt16> = []
    if libevdev_has_event_type(device, UInt32(EventType.key)) == 1 {
      for key in 0...KeyCode.max
      where libevdev_has_event_code(device, UInt32(EventType.key), UInt32(key)) == 1 {
        keys.insert(key)
      }
    }
    var axes: [UInt16: AxisInfo] = [:]
    if libevdev_has_event_type(device, UInt32(EventType.abs)) == 1 {
      for code in 0...AbsCode.max
      where libevdev_has_event_code(device, UInt32(EventType.abs), UInt32(code)) == 1 {
        guard let info = libevdev_get_abs_info(device, UInt32(code))?.pointee else { continue }
        axes[code] = AxisInfo(
          minimum: info.minimum, maximum: info.maximum, fuzz: info.fuzz, flat: info.flat,
          resolution: info.resolution)
      }
    }
    self.init(
      name: name,
      bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)),
      vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
      product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)),
      version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)),
      properties: properties, keys: keys, axes: axes,
      phys: libevdev_get_phys(device).map { String(cString: $0) })
  }
}
