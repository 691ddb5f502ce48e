import CEvdev
import CGesturedShim
import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// Why an evdev node could not be opened or used: the node (`path`), the step and its errno.
public typealias DeviceError = SystemError

extension SystemError {
  public init(devnode: String, operation: Operation, errno: Errno) {
    self.init(path: devnode, operation: operation, errno: errno)
  }
}

/// The steps of opening and using an evdev node.
extension SystemError.Operation {
  /// open(2) of the node.
  public static let open: Self = "open"
  /// libevdev_set_fd: reading the node's capabilities (fails with ENOTTY on a file that is
  /// not an evdev node).
  public static let readCapabilities: Self = "read its capabilities"
  /// libevdev_set_clock_id(CLOCK_MONOTONIC).
  public static let setClock: Self = "switch its clock to CLOCK_MONOTONIC"
  /// libevdev_grab.
  public static let grab: Self = "grab it (EVIOCGRAB)"
  public static let ungrab: Self = "release its grab"
  /// The second open for contact changes (`openDoorbell`): open(2), then EVIOCSMASK (EINVAL
  /// or ENOTTY before Linux 4.4), or the node changed between the two opens.
  public static let doorbell: Self = "open it again for contact changes"
  /// EVIOCSMASK on the descriptor read (`readOnly(axes:)`): EINVAL or ENOTTY before
  /// Linux 4.4.
  public static let mask: Self = "keep back the events it does not use (EVIOCSMASK)"
  /// The handle was closed before the call.
  public static let closed: Self = "use it after close"
}

/// The failure in a libevdev/libudev result (they return -errno); EIO for a result that is
/// not negative.
func errno(negated result: Int32) -> Errno {
  if case .failure(let error) = valueOrErrno(negated: result) { return error }
  return .ioError
}

/// One open evdev node: its events read from the fd, its capabilities and resyncs libevdev's.
///
/// The daemon owns it on its serial queue: it watches `fileDescriptor` in its event loop
/// (EventMultiplexer), calls `drain` when it is readable, and calls `close()` only after
/// unwatching it (else the fd number could be reused under the watch).
public final class EvdevDevice {
  public let devnode: String
  public let description: DeviceDescription
  public let fileDescriptor: Int32
  private var handle: OpaquePointer?
  /// libevdev keeps a pointer into this until the handle is freed.
  private var logTarget: LibevdevLogTarget?
  /// The state the events passed on left, which libevdev's view is set to before libevdev
  /// reads it (see `pass(_:into:_:)`).
  private let mirror: EvdevStateMirror
  /// What one read(2) takes: `readCapacity` events, allocated once.
  private let buffer: UnsafeMutablePointer<input_event>
  /// Between a SYN_DROPPED and the end of libevdev's replay of the kernel's state; the
  /// replayed events carry the SYN_DROPPED's time.
  private var syncingSince: Timestamp?
  /// SYN_DROPPEDs read since the device was opened, and the kernel's time of the last.
  public private(set) var resyncs = 0
  public private(set) var lastResync: Timestamp?

  /// Events per read(2): a frame of ten contacts with several axes each fits, and the
  /// buffer (3 KiB) is small next to the kernel's own (64 events or more per client).
  static let readCapacity = 128

  public enum DrainResult: Equatable, Sendable {
    /// Nothing is left to read.
    case drained
    /// `limit` events were read; more may be pending.
    case more
    /// The device is gone (ENODEV, unplugged) or reading failed for good: close it.
    case gone(errno: Errno)
  }

  /// Opens `devnode` (O_RDONLY|O_NONBLOCK|O_CLOEXEC), hands it to libevdev and switches its
  /// timestamps to CLOCK_MONOTONIC, the clock deadlines run on. libevdev's own messages about
  /// the device go to `logger`, prefixed with the devnode; without one, to libevdev's default
  /// handler (stderr).
  public init(devnode: String, logger: Logger? = nil) throws(DeviceError) {
    let descriptor: Int32
    switch Self.openNode(devnode) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw DeviceError(devnode: devnode, operation: .open, errno: error)
    }
    guard let handle = libevdev_new() else {
      Glibc.close(descriptor)
      throw DeviceError(devnode: devnode, operation: .readCapabilities, errno: .noMemory)
    }
    // Before set_fd, so that what libevdev says while reading the capabilities (kernel bugs
    // such as min == max on an axis) reaches our log.
    let logTarget = logger.map { LibevdevLogTarget(devnode: devnode, logger: $0) }
    logTarget?.install(on: handle)

    func fail(_ operation: SystemError.Operation, _ error: Errno) -> DeviceError {
      libevdev_free(handle)
      // Only now may the log target go: ARC could otherwise free it right after install.
      withExtendedLifetime(logTarget) {}
      Glibc.close(descriptor)
      return DeviceError(devnode: devnode, operation: operation, errno: error)
    }
    let attached = libevdev_set_fd(handle, descriptor)
    guard attached == 0 else { throw fail(.readCapabilities, errno(negated: attached)) }
    let clock = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
    guard clock == 0 else { throw fail(.setClock, errno(negated: clock)) }

    self.devnode = devnode
    self.handle = handle
    self.fileDescriptor = descriptor
    self.logTarget = logTarget
    self.description = DeviceDescription(libevdev: handle)
    mirror = EvdevStateMirror(libevdev: handle, devnode: devnode, logger: logger)
    buffer = .allocate(capacity: Self.readCapacity)
  }

  /// open(2) of an evdev node as both opens of a device need it: read-only, non-blocking (the
  /// event loop reads until a short read), close-on-exec (no action inherits it).
  private static func openNode(_ devnode: String) -> Result<Int32, Errno> {
    retryOnInterrupt { valueOrErrno(open(devnode, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) }
  }

  /// A uinput clone of this device (`forward: true`), marked as gestured's.
  /// `addingToolType`: see `UinputClone.init`.
  public func makeClone(addingToolType: Bool = false) throws(SystemError) -> UinputClone {
    guard let handle else { throw SystemError(operation: UinputClone.createOperation, errno: .badFileDescriptor) }
    mirror.push(to: handle)
    return try UinputClone(panel: handle, devnode: devnode, addingToolType: addingToolType)
  }

  deinit {
    close()
    buffer.deallocate()
  }

  /// The doorbell (`openDoorbell()`), while open.
  public private(set) var doorbellDescriptor: Int32?

  /// Opens the node a second time as a doorbell: the kernel keeps only keys and
  /// ABS_MT_TRACKING_ID for it (EVIOCSMASK), so it becomes readable only for a frame in
  /// which a contact lands or lifts, never for moves alone. Watched instead of
  /// `fileDescriptor`, it lets the daemon take a panel's moves in batches
  /// (`BatchedReading`) and still see every landing and lift at once. Opened after
  /// `fileDescriptor`, it comes after it in the kernel's list of the device's readers:
  /// evdev hands a frame to each reader in that order, so by the time the doorbell wakes
  /// anyone the frame is already in `fileDescriptor`'s buffer. Never for a grabbed device
  /// (a grab keeps every event from every other reader, the doorbell too).
  ///
  /// Watched edge-triggered, it wakes the caller once per such frame; what it holds is read
  /// only when a landing is left for later (`doorbellMayHoldLift`): when its kernel buffer
  /// fills, evdev drops the oldest for a SYN_DROPPED, and goes on waking. A device gone
  /// wakes it too; the read of `fileDescriptor` that follows says so.
  public func openDoorbell() throws(DeviceError) {
    guard !isClosed else { throw DeviceError(devnode: devnode, operation: .closed, errno: .badFileDescriptor) }
    guard doorbellDescriptor == nil else { return }
    let descriptor: Int32
    switch Self.openNode(devnode) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw DeviceError(devnode: devnode, operation: .doorbell, errno: error)
    }
    // The node may have been replaced by another device between the two opens.
    var first = stat()
    var second = stat()
    guard fstat(fileDescriptor, &first) == 0, fstat(descriptor, &second) == 0, first.st_rdev == second.st_rdev else {
      Glibc.close(descriptor)
      throw DeviceError(devnode: devnode, operation: .doorbell, errno: .noSuchDevice)
    }
    let masked = gestured_evdev_mask_to_contact_changes(descriptor)
    guard masked == 0 else {
      Glibc.close(descriptor)
      throw DeviceError(devnode: devnode, operation: .doorbell, errno: errno(negated: masked))
    }
    doorbellDescriptor = descriptor
  }

  /// Asks the kernel to keep every event but EV_SYN, keys and `axes` from
  /// `fileDescriptor`, so that a reader using only those neither reads nor handles the rest
  /// (a panel's legacy single-touch axes, pressure, MSC_TIMESTAMP). A frame left with only
  /// its SYN_REPORT is dropped whole. libevdev's view of the other axes goes stale; only its
  /// resync reads it, and the events it then makes up for them reach a reader that ignores
  /// them.
  public func readOnly(axes: [UInt16]) throws(DeviceError) {
    guard !isClosed else { throw DeviceError(devnode: devnode, operation: .closed, errno: .badFileDescriptor) }
    let masked = axes.withUnsafeBufferPointer { axes in
      gestured_evdev_mask_to(fileDescriptor, axes.baseAddress, axes.count)
    }
    guard masked == 0 else { throw DeviceError(devnode: devnode, operation: .mask, errno: errno(negated: masked)) }
  }

  /// Reads what the doorbell holds and says whether any of it, stamped after `time`, may end
  /// a contact: a tracking id ended, a key released (BTN_TOUCH; BTN_TOOL_* when the count
  /// changes), events dropped. True as well when it cannot be read (the device is gone: the
  /// caller's read of `fileDescriptor` says so). A reader that leaves a landing for later
  /// asks it first: a lift that came in the same wake-up must not wait with it.
  public func doorbellMayHoldLift(after time: Timestamp?) -> Bool {
    guard let doorbellDescriptor else { return true }
    let eventSize = MemoryLayout<input_event>.stride
    var mayHoldLift = false
    while true {
      let bytes: Int
      switch retryOnInterrupt({ valueOrErrno(read(doorbellDescriptor, buffer, Self.readCapacity * eventSize)) }) {
      case .success(let length): bytes = length
      case .failure(.wouldBlock): return mayHoldLift
      case .failure: return true
      }
      guard bytes > 0, bytes % eventSize == 0 else { return true }
      for event in UnsafeBufferPointer(start: buffer, count: bytes / eventSize) {
        let raw = Self.rawEvent(event)
        if let time, raw.time <= time { continue }
        switch raw.type {
        case EventType.abs: mayHoldLift = mayHoldLift || (raw.code == AbsCode.mtTrackingID && raw.value == -1)
        case EventType.key: mayHoldLift = mayHoldLift || raw.value == 0
        case EventType.syn: mayHoldLift = mayHoldLift || raw.code == SynCode.dropped
        default: break
        }
      }
      if bytes < Self.readCapacity * eventSize { return mayHoldLift }
    }
  }

  /// Closes the doorbell (the caller stopped watching it). Idempotent.
  public func closeDoorbell() {
    guard let doorbellDescriptor else { return }
    Glibc.close(doorbellDescriptor)
    self.doorbellDescriptor = nil
  }

  /// Whether `close()` has run.
  public var isClosed: Bool { handle == nil }

  /// Reads what is pending, at most `limit` events, and calls `body` for each, in order.
  ///
  /// The fd is read directly, `readCapacity` events (or what is left of `limit`) per
  /// read(2); a short read means the kernel's buffer is empty, so reading stops there and
  /// the (level-triggered) event loop calls again for anything that comes later (libevdev's
  /// own reading goes on until EAGAIN: a second read every wake-up). Each event read goes
  /// through `pass(_:into:_:)`, which drops what libevdev's own reading drops and keeps the
  /// device's state as it was passed on; libevdev's view is set to that state before its
  /// resync below, so that the resync's delta starts from exactly what was passed on.
  ///
  /// A SYN_DROPPED (the kernel's buffer overflowed) is not passed on, and neither is anything
  /// read after it: libevdev's sync discards those too, since the state it reads covers
  /// them. libevdev is told to sync (LIBEVDEV_READ_FLAG_FORCE_SYNC); the events it makes up
  /// from the kernel's current state (read with LIBEVDEV_READ_FLAG_SYNC until -EAGAIN:
  /// slots' tracking ids ended or started, positions, buttons, ending with a SYN_REPORT) are
  /// passed on as normal events stamped with the SYN_DROPPED's time, so contacts end up
  /// exactly as the kernel has them and none stays stuck down. Then reading goes on. A sync
  /// cut short by `limit` goes on at the next call. `resynchronizing` is called at a
  /// SYN_DROPPED, before the events of the replay.
  ///
  /// Nothing is allocated per call: the read buffer is the device's.
  public func drain(
    atMost limit: Int = .max, resynchronizing: () -> Void = {}, _ body: (RawEvent) -> Void
  ) -> DrainResult {
    guard let handle else { return .gone(errno: .badFileDescriptor) }
    let eventSize = MemoryLayout<input_event>.stride
    var count = 0
    while count < limit {
      if let time = syncingSince {
        var event = input_event()
        let flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
        switch retryOnInterrupt({ valueOrErrno(negated: libevdev_next_event(handle, flags, &event)) }) {
        case .success(let status) where status == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
          body(RawEvent(time: time, type: event.type, code: event.code, value: event.value))
          count += 1
        case .success:
          return .gone(errno: .ioError)
        case .failure(.wouldBlock):
          // The sync is complete; what the kernel queued since is read as usual.
          syncingSince = nil
          mirror.pull(from: handle)
        case .failure(let error):
          return .gone(errno: error)
        }
        continue
      }
      let wanted = min(Self.readCapacity, limit - count)
      let bytes: Int
      switch retryOnInterrupt({ valueOrErrno(read(fileDescriptor, buffer, wanted * eventSize)) }) {
      case .success(let length): bytes = length
      case .failure(.wouldBlock): return .drained
      case .failure(let error): return .gone(errno: error)
      }
      // evdev returns whole events only; libevdev calls anything else EINVAL.
      guard bytes % eventSize == 0 else { return .gone(errno: .invalidArgument) }
      let events = UnsafeBufferPointer(start: buffer, count: bytes / eventSize)
      let dropped = Self.pass(events, into: mirror) { event in
        body(event)
        count += 1
      }
      if let dropped {
        resyncs += 1
        lastResync = dropped
        resynchronizing()
        mirror.push(to: handle)
        var ignored = input_event()
        let flags = LIBEVDEV_READ_FLAG_FORCE_SYNC.rawValue
        switch retryOnInterrupt({ valueOrErrno(negated: libevdev_next_event(handle, flags, &ignored)) }) {
        case .success(let status) where status == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue):
          syncingSince = dropped
        case .success:
          return .gone(errno: .ioError)
        case .failure(let error):
          return .gone(errno: error)
        }
      } else if events.count < wanted {
        return .drained
      }
    }
    return .more
  }

  /// Passes on the events of one read as libevdev's normal reading would, and keeps
  /// `mirror` in step with them (`EvdevStateMirror.admit`): an event of a code the device
  /// does not have is dropped, as is a tracking id that does not go from -1 to a contact or
  /// back (a device bug, logged); a slot beyond the device's is capped to its last. libevdev
  /// itself is not called per event. Stops at a SYN_DROPPED and returns its time; nil when
  /// there was none.
  static func pass(
    _ events: UnsafeBufferPointer<input_event>, into mirror: EvdevStateMirror, _ body: (RawEvent) -> Void
  ) -> Timestamp? {
    for var event in events {
      if Int32(event.type) == EV_SYN && Int32(event.code) == SYN_DROPPED { return rawEvent(event).time }
      guard mirror.admit(&event) else { continue }
      body(rawEvent(event))
    }
    return nil
  }

  /// The positions the kernel holds for the device right now, as events to feed the engine
  /// before anything is read (see `positionEvents(of:description:at:)`).
  public func currentPositions(at time: Timestamp) -> [RawEvent] {
    guard let handle else { return [] }
    mirror.push(to: handle)
    return Self.positionEvents(of: handle, description: description, at: time)
  }

  /// The kernel does not resend a value that did not change: a new contact on a slot whose
  /// last position is unchanged arrives as a tracking id alone, and a single-touch panel's
  /// press at the same place as BTN_TOUCH alone. The engine must therefore start from the
  /// kernel's values, which libevdev read at open, not from zero. Only positions (and the
  /// current slot) are given, never tracking ids or buttons: a contact already down when the
  /// device is opened is not a gesture's start, and its lift is ignored. Protocol A resends
  /// every contact in every frame and needs nothing. Ends with SYN_REPORT.
  static func positionEvents(of handle: OpaquePointer, description: DeviceDescription, at time: Timestamp)
    -> [RawEvent]
  {
    var events: [RawEvent] = []
    func add(_ code: UInt16, _ value: Int32) {
      events.append(RawEvent(time: time, type: EventType.abs, code: code, value: value))
    }
    let abs = UInt32(EventType.abs)
    switch description.touchProtocol {
    case .multitouchB:
      let slots = libevdev_get_num_slots(handle)
      let axes = [AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtToolType].filter {
        libevdev_has_event_code(handle, abs, UInt32($0)) != 0
      }
      if slots > 0 {
        for slot in 0..<slots {
          add(AbsCode.mtSlot, slot)
          for code in axes { add(code, libevdev_get_slot_value(handle, UInt32(slot), UInt32(code))) }
        }
        add(AbsCode.mtSlot, libevdev_get_current_slot(handle))
      } else {
        // Tracking ids without ABS_MT_SLOT: one implicit slot.
        for code in axes { add(code, libevdev_get_event_value(handle, abs, UInt32(code))) }
      }
    case .singleTouch:
      add(AbsCode.x, libevdev_get_event_value(handle, abs, UInt32(AbsCode.x)))
      add(AbsCode.y, libevdev_get_event_value(handle, abs, UInt32(AbsCode.y)))
    case .multitouchA, nil:
      return []
    }
    events.append(RawEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0))
    return events
  }

  /// The kernel's timeval (CLOCK_MONOTONIC after init) as microseconds.
  @inline(__always)
  static func rawEvent(_ event: input_event) -> RawEvent {
    RawEvent(
      time: Timestamp(
        seconds: Int64(truncatingIfNeeded: event.time.tv_sec),
        microseconds: Int64(truncatingIfNeeded: event.time.tv_usec)),
      type: event.type, code: event.code, value: event.value)
  }

  /// Takes the device exclusively (EVIOCGRAB) or lets it go: while grabbed, no other reader
  /// (the desktop, libinput) sees its events.
  public func grab(_ on: Bool) throws(DeviceError) {
    guard let handle else { throw DeviceError(devnode: devnode, operation: .closed, errno: .badFileDescriptor) }
    let result = libevdev_grab(handle, on ? LIBEVDEV_GRAB : LIBEVDEV_UNGRAB)
    guard result == 0 else {
      throw DeviceError(
        devnode: devnode, operation: on ? .grab : .ungrab, errno: errno(negated: result))
    }
  }

  /// Frees the libevdev handle and closes the fd (which also ends a grab). Safe to call more
  /// than once.
  public func close() {
    guard let handle else { return }
    closeDoorbell()
    libevdev_free(handle)
    self.handle = nil
    logTarget = nil
    Glibc.close(fileDescriptor)
  }
}

/// Where libevdev's messages about one device go: the daemon's log, prefixed with the
/// devnode, at warning (libevdev's errors are device quirks, not ours), info or debug.
///
/// Owns the C struct libevdev keeps a pointer to; it must outlive the libevdev handle
/// (or be uninstalled first).
final class LibevdevLogTarget {
  let devnode: String
  let logger: Logger
  private let target: UnsafeMutablePointer<gestured_log_target>

  init(devnode: String, logger: Logger) {
    self.devnode = devnode
    self.logger = logger
    target = .allocate(capacity: 1)
    // Unretained: the target is owned by whoever owns this object, and dies with it.
    target.initialize(
      to: gestured_log_target(handler: libevdevLogHandler, context: nil))
    target.pointee.context = Unmanaged.passUnretained(self).toOpaque()
  }

  deinit { target.deallocate() }

  func install(on handle: OpaquePointer) {
    gestured_evdev_set_log_target(handle, target, Int32(LIBEVDEV_LOG_INFO.rawValue))
  }

  func log(priority: Int32, message: String) {
    let level: LogLevel =
      priority <= Int32(LIBEVDEV_LOG_ERROR.rawValue)
      ? .warning : priority <= Int32(LIBEVDEV_LOG_INFO.rawValue) ? .info : .debug
    logger.log(level, "\(devnode): libevdev: \(message)")
  }
}

/// libevdev calls this on the thread that called into it (the daemon's queue).
private let libevdevLogHandler: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
  context, priority, message in
  guard let context, let message else { return }
  Unmanaged<LibevdevLogTarget>.fromOpaque(context).takeUnretainedValue()
    .log(priority: priority, message: String(cString: message))
}
