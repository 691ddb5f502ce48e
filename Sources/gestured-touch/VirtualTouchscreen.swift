import CEvdev
import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

/// A uinput device as a script's panel describes it. The kernel removes it when this object
/// is destroyed, or when the process exits (libevdev holds /dev/uinput open; closing it
/// destroys the device).
final class VirtualTouchscreen {
  private let template: OpaquePointer
  /// `struct libevdev_uinput *`.
  private let device: OpaquePointer
  /// /dev/input/eventN, as libevdev finds it in sysfs.
  let devnode: String

  init(setup: UinputDeviceSetup) throws(UinputPlanError) {
    guard let template = libevdev_new() else { throw UinputPlanError("libevdev_new failed") }
    libevdev_set_name(template, setup.name)
    libevdev_set_id_bustype(template, Int32(setup.bus))
    libevdev_set_id_vendor(template, Int32(setup.vendor))
    libevdev_set_id_product(template, Int32(setup.product))
    libevdev_set_id_version(template, Int32(setup.version))

    var failure: String?
    for type in setup.eventTypes where libevdev_enable_event_type(template, UInt32(type)) != 0 {
      failure = "cannot enable event type \(type)"
    }
    for key in setup.keys
    where libevdev_enable_event_code(template, UInt32(EV_KEY), UInt32(key), nil) != 0 {
      failure = "cannot enable key \(key)"
    }
    for axis in setup.axes {
      var info = input_absinfo(
        value: axis.info.minimum, minimum: axis.info.minimum, maximum: axis.info.maximum,
        fuzz: axis.info.fuzz, flat: axis.info.flat, resolution: axis.info.resolution)
      if libevdev_enable_event_code(template, UInt32(EV_ABS), UInt32(axis.code), &info) != 0 {
        failure = "cannot enable axis \(axis.code)"
      }
    }
    for property in setup.properties where libevdev_enable_property(template, UInt32(property)) != 0 {
      failure = "cannot enable property \(property)"
    }
    if let failure {
      libevdev_free(template)
      throw UinputPlanError(failure)
    }

    var created: OpaquePointer?
    // LIBEVDEV_UINPUT_OPEN_MANAGED: libevdev opens /dev/uinput itself and closes it on destroy.
    let status = libevdev_uinput_create_from_device(template, LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue, &created)
    guard status == 0, let created else {
      libevdev_free(template)
      throw UinputPlanError(
        "cannot create a uinput device: \(String(cString: strerror(-status))) "
          + "(is the uinput module loaded, and is /dev/uinput writable?)")
    }
    self.template = template
    self.device = created
    if let node = libevdev_uinput_get_devnode(created) {
      devnode = String(cString: node)
    } else {
      devnode = ""
    }
  }

  /// Writes one event; the kernel stamps it with the current time. Returns 0 or -errno.
  func write(type: UInt16, code: UInt16, value: Int32) -> Int32 {
    libevdev_uinput_write_event(device, UInt32(type), UInt32(code), value)
  }

  deinit {
    libevdev_uinput_destroy(device)
    libevdev_free(template)
  }
}
