import CEvdev
import CGesturedShim
import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// gestured's own virtual keyboard or wheel pointer, made through uinput for `key:`,
/// `wheel:` and `hwheel:` bindings: what they write reaches X11, any Wayland compositor and
/// the console through the kernel, as a real keyboard's or mouse's would. Its `phys` starts
/// with `markerPrefix`, which is how gestured knows never to take it.
///
/// Closing it (destroy, or the process ending) removes the device; a key it left down is
/// released by the kernel then.
public final class VirtualInputDevice {
  public enum Kind: String, Sendable {
    /// Every `KEY_` code: udev calls it a keyboard (ID_INPUT_KEYBOARD), libinput too.
    case keyboard
    /// Vertical and horizontal wheels, low and high resolution. udev calls a device a mouse
    /// only with a mouse button, so it has BTN_LEFT, BTN_RIGHT and BTN_MIDDLE too, never
    /// pressed; it has no motion axes, so it never moves a cursor.
    case pointer
  }

  /// `phys` of both: "gestured-input:" then the kind.
  public static let markerPrefix = "gestured-input:"
  /// What udev, libinput and `libinput list-devices` show.
  public static func name(of kind: Kind) -> String { "gestured virtual \(kind == .keyboard ? "keyboard" : "wheel")" }
  /// Clicks of the high-resolution wheel axes per detent, as the kernel defines them.
  public static let highResolutionUnitsPerClick: Int32 = 120

  public let kind: Kind
  /// `struct libevdev_uinput *`.
  private var device: OpaquePointer?
  private let fileDescriptor: Int32
  /// /dev/input/eventN, when sysfs named it in time.
  public let devnode: String?
  /// Reused for every write: one write(2) of a whole action.
  private var buffer: [input_event] = []

  public struct CreateError: Error, CustomStringConvertible {
    public var kind: Kind
    /// The call that failed: uinput's open, libevdev's creation or the phys marker.
    public var failure: SystemError
    public var errno: Errno { failure.errno }

    init(kind: Kind, errno: Errno) {
      self.kind = kind
      failure = SystemError(operation: "create the virtual \(kind.rawValue)", errno: errno)
    }

    public var description: String {
      "cannot create the virtual \(kind.rawValue) for key and wheel bindings: \(errno)"
        + (errno == .noSuchFileOrDirectory || errno == .permissionDenied
          ? " (is the uinput module loaded, and may gestured open /dev/uinput read-write?)" : "")
    }
  }

  /// Whether a device's phys marks it as one of these.
  public static func isVirtualInput(phys: String?) -> Bool { phys?.hasPrefix(markerPrefix) ?? false }

  public init(_ kind: Kind) throws(CreateError) {
    guard let template = libevdev_new() else { throw CreateError(kind: kind, errno: .noMemory) }
    defer { libevdev_free(template) }
    libevdev_set_name(template, Self.name(of: kind))
    libevdev_set_id_bustype(template, Int32(BUS_VIRTUAL))
    libevdev_enable_event_type(template, UInt32(EV_SYN))
    libevdev_enable_event_type(template, UInt32(EV_KEY))
    switch kind {
    case .keyboard:
      for code in Self.keyboardCodes { libevdev_enable_event_code(template, UInt32(EV_KEY), code, nil) }
    case .pointer:
      for button in [BTN_LEFT, BTN_RIGHT, BTN_MIDDLE] {
        libevdev_enable_event_code(template, UInt32(EV_KEY), UInt32(button), nil)
      }
      libevdev_enable_event_type(template, UInt32(EV_REL))
      for axis in [REL_WHEEL, REL_HWHEEL, REL_WHEEL_HI_RES, REL_HWHEEL_HI_RES] {
        libevdev_enable_event_code(template, UInt32(EV_REL), UInt32(axis), nil)
      }
    }

    let descriptor: Int32
    switch retryOnInterrupt({ valueOrErrno(open("/dev/uinput", O_RDWR | O_CLOEXEC)) }) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw CreateError(kind: kind, errno: error)
    }
    // Set on the fd first: libevdev sets the phys only from a handle, and a virtual device's
    // marker is what keeps gestured from opening it as a panel.
    let marked = gestured_uinput_set_phys(descriptor, Self.markerPrefix + kind.rawValue)
    guard marked == 0 else {
      Glibc.close(descriptor)
      throw CreateError(kind: kind, errno: errno(negated: marked))
    }
    libevdev_set_phys(template, Self.markerPrefix + kind.rawValue)
    var created: OpaquePointer?
    let status = libevdev_uinput_create_from_device(template, descriptor, &created)
    guard status == 0, let created else {
      Glibc.close(descriptor)
      throw CreateError(kind: kind, errno: errno(negated: status))
    }
    self.kind = kind
    device = created
    fileDescriptor = descriptor
    devnode = libevdev_uinput_get_devnode(created).map { String(cString: $0) }
  }

  deinit { destroy() }

  /// Every code libevdev names `KEY_…` (no `BTN_…`, which would make it a mouse or a
  /// joystick to udev).
  static let keyboardCodes: [UInt32] = (1...UInt32(KEY_MAX)).filter { code in
    guard let name = libevdev_event_code_get_name(UInt32(EV_KEY), code) else { return false }
    return String(cString: name).hasPrefix("KEY_")
  }

  /// One event as written: type, code, value.
  public struct Event: Hashable, Sendable {
    public var type: UInt16
    public var code: UInt16
    public var value: Int32

    public init(type: UInt16, code: UInt16, value: Int32) {
      self.type = type
      self.code = code
      self.value = value
    }

    static let report = Event(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0)
  }

  /// Each chord in turn: its keys pressed in order and released in reverse, a SYN_REPORT
  /// after each press and release, as a keyboard reports keys changing one at a time.
  public static func keyEvents(chords: [[UInt16]]) -> [Event] {
    var events: [Event] = []
    for chord in chords {
      for code in chord {
        events.append(Event(type: UInt16(EV_KEY), code: code, value: 1))
        events.append(.report)
      }
      for code in chord.reversed() {
        events.append(Event(type: UInt16(EV_KEY), code: code, value: 0))
        events.append(.report)
      }
    }
    return events
  }

  /// `clicks` detents in one frame: the low- and high-resolution axes together, as a wheel
  /// mouse reports them. Vertical: positive clicks scroll down, which the kernel's REL_WHEEL
  /// counts negative; horizontal: positive scrolls right, as REL_HWHEEL counts.
  public static func wheelEvents(clicks: Int, horizontal: Bool) -> [Event] {
    let detents = Int32(clamping: horizontal ? clicks : -clicks)
    let (low, high) = horizontal ? (REL_HWHEEL, REL_HWHEEL_HI_RES) : (REL_WHEEL, REL_WHEEL_HI_RES)
    return [
      Event(type: UInt16(EV_REL), code: UInt16(low), value: detents),
      Event(type: UInt16(EV_REL), code: UInt16(high), value: detents &* highResolutionUnitsPerClick),
      .report,
    ]
  }

  /// Writes `events` in one write(2); the kernel stamps them with its current time. Returns
  /// the error, if the write failed.
  public func write(_ events: [Event]) -> Errno? {
    guard device != nil else { return .badFileDescriptor }
    guard !events.isEmpty else { return nil }
    buffer.removeAll(keepingCapacity: true)
    for event in events {
      var raw = input_event()
      raw.type = event.type
      raw.code = event.code
      raw.value = event.value
      buffer.append(raw)
    }
    let size = buffer.count * MemoryLayout<input_event>.stride
    let result = buffer.withUnsafeBytes { bytes in
      retryOnInterrupt { valueOrErrno(Glibc.write(fileDescriptor, bytes.baseAddress, size)) }
    }
    switch result {
    case .success(let written) where written == size: return nil
    case .success: return .ioError
    case .failure(let error): return error
    }
  }

  /// Removes the device (UI_DEV_DESTROY, then the fd is closed). Safe to call more than once.
  public func destroy() {
    guard let device else { return }
    libevdev_uinput_destroy(device)
    Glibc.close(fileDescriptor)
    self.device = nil
  }
}
