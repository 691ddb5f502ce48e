import CEvdev
import CGesturedShim
import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// The uinput twin of a forwarded panel (`forward: true`): same name, ids, properties,
/// event codes and absinfo, so libinput, the compositor and udev rules (a calibration
/// matrix) treat it as the panel. Its `phys` starts with `markerPrefix`, which is how
/// gestured knows never to take its own clone.
///
/// Closing it (destroy, or the process ending: the kernel closes /dev/uinput) removes the
/// device, and with it every contact it had down.
public final class UinputClone {
  /// `phys` of every clone: "gestured-forward:" then the panel's own phys (or devnode).
  public static let markerPrefix = "gestured-forward:"

  /// `struct libevdev_uinput *`.
  private var device: OpaquePointer?
  private let fileDescriptor: Int32
  /// /dev/input/eventN of the clone, when sysfs named it in time.
  public let devnode: String?
  public let phys: String
  /// Reused for every write: one write(2) of a whole batch of events.
  private var buffer: [input_event] = []

  /// What `makeClone` failures are called ("cannot create its uinput clone: …").
  public static let createOperation: SystemError.Operation = "cannot create its uinput clone"

  /// The operator's likely fix for a clone that could not be made, after its error.
  public static func hint(for errno: Errno) -> String {
    errno == .noSuchFileOrDirectory || errno == .permissionDenied
      ? " (is the uinput module loaded, and may gestured open /dev/uinput read-write?)" : ""
  }

  /// Whether a device's phys marks it as a clone of gestured's.
  public static func isClone(phys: String?) -> Bool { phys?.hasPrefix(markerPrefix) ?? false }

  /// Clones the device `handle` describes (a libevdev handle of the panel). gestured opens
  /// /dev/uinput itself to set the marker phys (UI_SET_PHYS) before libevdev sets the rest
  /// up; the handle's phys is the marker too while libevdev copies it, then put back.
  /// `addingToolType`: the clone also gets ABS_MT_TOOL_TYPE (finger to palm), for a panel
  /// without it whose contacts gestured ends there as palms; the handle has it only while
  /// libevdev copies it.
  init(panel handle: OpaquePointer, devnode: String, addingToolType: Bool = false) throws(SystemError) {
    let descriptor: Int32
    switch UinputPool.open() {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw SystemError(operation: Self.createOperation, errno: error)
    }
    let original = libevdev_get_phys(handle).map { String(cString: $0) }
    let phys = Self.markerPrefix + (original ?? devnode)
    let marked = gestured_uinput_set_phys(descriptor, phys)
    guard marked == 0 else {
      UinputPool.close(descriptor)
      throw SystemError(operation: Self.createOperation, errno: errno(negated: marked))
    }
    libevdev_set_phys(handle, phys)
    let toolType = UInt32(AbsCode.mtToolType)
    if addingToolType {
      var info = input_absinfo(value: 0, minimum: 0, maximum: ToolType.palm, fuzz: 0, flat: 0, resolution: 0)
      libevdev_enable_event_code(handle, UInt32(EV_ABS), toolType, &info)
    }
    var created: OpaquePointer?
    let status = libevdev_uinput_create_from_device(handle, descriptor, &created)
    libevdev_set_phys(handle, original)
    if addingToolType { libevdev_disable_event_code(handle, UInt32(EV_ABS), toolType) }
    guard status == 0, let created else {
      UinputPool.close(descriptor)
      throw SystemError(operation: Self.createOperation, errno: errno(negated: status))
    }
    device = created
    fileDescriptor = descriptor
    self.phys = phys
    self.devnode = libevdev_uinput_get_devnode(created).map { String(cString: $0) }
    buffer.reserveCapacity(256)
  }

  deinit { destroy() }

  /// Writes `events` in one write(2); the kernel stamps them with its current time. Returns
  /// the error, if the write failed.
  public func write(_ events: [RawEvent]) -> Errno? {
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
    UinputPool.close(fileDescriptor)
    self.device = nil
  }
}

/// Where forwarding clones get their /dev/uinput descriptors. The unprivileged recognizer
/// may not open /dev/uinput: the launcher opens some and hands them over, and the clones
/// take them from here and give them back when destroyed (a uinput descriptor serves a new
/// device after UI_DEV_DESTROY). Without a pool (one process) each clone opens its own.
public enum UinputPool {
  // Only touched on the daemon's queue.
  nonisolated(unsafe) private static var free: [Int32] = []
  nonisolated(unsafe) private static var pooled: Set<Int32> = []
  nonisolated(unsafe) private static var inUse = false

  /// From now on clones use only `descriptors` (inherited from the launcher).
  public static func use(_ descriptors: [Int32]) {
    inUse = true
    free = descriptors
    pooled = Set(descriptors)
  }

  /// Adds `descriptors` (passed by the launcher later) to the pool.
  public static func add(_ descriptors: [Int32]) {
    inUse = true
    free += descriptors
    pooled.formUnion(descriptors)
  }

  /// Tests only: closes the free descriptors and forgets the pool, as before `use`.
  static func reset() {
    for descriptor in free { _ = Glibc.close(descriptor) }
    free = []
    pooled = []
    inUse = false
  }

  /// A descriptor for a new clone: the pool's (ENOSPC when all are taken) or a new one.
  static func open() -> Result<Int32, Errno> {
    guard inUse else { return retryOnInterrupt { valueOrErrno(Glibc.open("/dev/uinput", O_RDWR | O_CLOEXEC)) } }
    guard let descriptor = free.popLast() else { return .failure(Errno(rawValue: ENOSPC)) }
    return .success(descriptor)
  }

  /// Gives a clone's descriptor back (its device destroyed), or closes one of its own.
  static func close(_ descriptor: Int32) {
    if pooled.contains(descriptor) {
      // A device set up halfway (a failed creation) must not carry its settings over;
      // after libevdev's own destroy this finds nothing to undo.
      _ = gestured_uinput_reset(descriptor)
      free.append(descriptor)
    } else {
      _ = Glibc.close(descriptor)
    }
  }
}
