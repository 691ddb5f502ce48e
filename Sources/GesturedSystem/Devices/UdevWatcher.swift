import CUdev

#if canImport(Glibc)
  import Glibc
#endif

/// A libudev call that failed: a `SystemError` whose operation names the libudev function
/// (e.g. "udev_monitor_enable_receiving").
public typealias UdevError = SystemError

/// A libudev context for looking input nodes up, without a monitor (`gestured devices`).
package final class UdevContext {
  let udev: OpaquePointer

  package init() throws(UdevError) {
    guard let udev = udev_new() else {
      throw UdevError(operation: "udev_new", errno: Errno.current.rawValue == 0 ? .noMemory : .current)
    }
    self.udev = udev
  }

  deinit { udev_unref(udev) }

  /// Every `event*` node in the input subsystem, in udev's order. Nodes udev has not
  /// initialized are left out unless asked for.
  package func eventNodes(includingUninitialized: Bool = false) throws(UdevError) -> [InputNode] {
    guard let enumerate = udev_enumerate_new(udev) else {
      throw UdevError(operation: "udev_enumerate_new", errno: Errno.current.rawValue == 0 ? .noMemory : .current)
    }
    defer { udev_enumerate_unref(enumerate) }
    var result = udev_enumerate_add_match_subsystem(enumerate, "input")
    if result >= 0 { result = udev_enumerate_add_match_sysname(enumerate, "event*") }
    guard result >= 0 else {
      throw UdevError(operation: "udev_enumerate_add_match", errno: errno(negated: result))
    }
    result = udev_enumerate_scan_devices(enumerate)
    guard result >= 0 else {
      throw UdevError(operation: "udev_enumerate_scan_devices", errno: errno(negated: result))
    }
    var nodes: [InputNode] = []
    var entry = udev_enumerate_get_list_entry(enumerate)
    while let current = entry {
      entry = udev_list_entry_get_next(current)
      // A node can vanish between the scan and this lookup: then it is simply not listed.
      guard let syspath = udev_list_entry_get_name(current),
        let device = udev_device_new_from_syspath(udev, syspath)
      else { continue }
      defer { udev_device_unref(device) }
      guard let node = Self.node(from: device) else { continue }
      if node.isInitialized || includingUninitialized { nodes.append(node) }
    }
    return nodes
  }

  /// An `InputNode` for a udev device that is an `event*` node with a device file; nil for
  /// the `input*` parents and anything else.
  static func node(from device: OpaquePointer) -> InputNode? {
    guard let sysnamePointer = udev_device_get_sysname(device),
      let syspathPointer = udev_device_get_syspath(device),
      let devnodePointer = udev_device_get_devnode(device)
    else { return nil }
    let sysname = String(cString: sysnamePointer)
    guard sysname.hasPrefix("event") else { return nil }
    var properties: [String: String] = [:]
    var entry = udev_device_get_properties_list_entry(device)
    while let current = entry {
      entry = udev_list_entry_get_next(current)
      guard let key = udev_list_entry_get_name(current) else { continue }
      properties[String(cString: key)] =
        udev_list_entry_get_value(current).map { String(cString: $0) } ?? ""
    }
    // The event node's parent is the input device (inputN), which has the name; the parent's
    // parent is the hardware (a HID device, a platform or serio device). For USB the USB
    // device itself is taken, so that a panel with two interfaces is still one device.
    let input = udev_device_get_parent(device)
    let name = input.flatMap { udev_device_get_sysattr_value($0, "name") }.map {
      String(cString: $0)
    }
    let hardware =
      udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device")
      ?? input.flatMap { udev_device_get_parent($0) }
    let physicalDevice = hardware.flatMap { udev_device_get_syspath($0) }.map {
      String(cString: $0)
    }
    return InputNode(
      syspath: String(cString: syspathPointer), devnode: String(cString: devnodePointer),
      sysname: sysname, properties: properties,
      isInitialized: udev_device_get_is_initialized(device) > 0, name: name,
      physicalDevice: physicalDevice)
  }
}

/// Watches udev for input event nodes coming and going: the monitor's socket is one more
/// descriptor in the daemon's event loop (EventMultiplexer), read on its serial queue.
///
/// The monitor listens to udev's netlink messages (sent after udev's rules ran, so
/// properties and permissions are final) for the `input` subsystem. It starts before the
/// first enumeration so that nothing plugged in between is missed; a node seen both ways is
/// reported once.
public final class UdevWatcher {
  public enum Change: Sendable {
    case added(InputNode)
    case removed(syspath: String, devnode: String?)
    case changed(InputNode)
  }

  private let context: UdevContext
  private let logger: Logger
  private let onChange: (Change) -> Void
  private let multiplexer: EventMultiplexer
  private var monitor: OpaquePointer?
  private var token: EventMultiplexer.Token?
  /// syspath → devnode of every node reported as present (by `enumerate()` or `.added`), so
  /// that a node is never added twice and a lost message can be made up for.
  private var known: [String: String] = [:]

  /// Largest netlink receive buffer asked for: a hub with many devices plugged in at once
  /// (or a resume) sends bursts.
  private static let receiveBufferBytes: Int32 = 4 << 20

  /// Starts the monitor (netlink "udev", subsystem "input") and watches it in `multiplexer`.
  /// Call on the multiplexer's queue; `onChange` is called there.
  public init(
    multiplexer: EventMultiplexer, logger: Logger, onChange: @escaping (Change) -> Void
  ) throws(UdevError) {
    context = try UdevContext()
    self.multiplexer = multiplexer
    self.logger = logger
    self.onChange = onChange
    guard let monitor = udev_monitor_new_from_netlink(context.udev, "udev") else {
      throw UdevError(
        operation: "udev_monitor_new_from_netlink", errno: Errno.current.rawValue == 0 ? .noMemory : .current)
    }
    var result = udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
    guard result >= 0 else {
      udev_monitor_unref(monitor)
      throw UdevError(
        operation: "udev_monitor_filter_add_match_subsystem_devtype", errno: errno(negated: result))
    }
    // Best effort: without privileges the kernel's default size stays, which is fine for
    // ordinary plugging; an overflow is made up for by re-enumerating (see `receive`).
    _ = udev_monitor_set_receive_buffer_size(monitor, Self.receiveBufferBytes)
    result = udev_monitor_enable_receiving(monitor)
    guard result >= 0 else {
      udev_monitor_unref(monitor)
      throw UdevError(operation: "udev_monitor_enable_receiving", errno: errno(negated: result))
    }
    let descriptor = udev_monitor_get_fd(monitor)
    guard descriptor >= 0 else {
      udev_monitor_unref(monitor)
      throw UdevError(operation: "udev_monitor_get_fd", errno: errno(negated: descriptor))
    }
    do {
      token = try multiplexer.watch(descriptor) { [weak self] in self?.receive() }
    } catch {
      udev_monitor_unref(monitor)
      throw UdevError(operation: "watch the udev monitor", errno: error.errno)
    }
    self.monitor = monitor
  }

  deinit { cancel() }

  /// The initialized `event*` nodes in the input subsystem now (nodes udev has not
  /// initialized yet come later as `.added`). Also remembered, so that the monitor does not
  /// report them again. [] when udev cannot be read (logged).
  ///
  /// Call it on the queue right after `init`, in the same block (or before the queue runs),
  /// so that no monitor message is handled in between: then every node is reported exactly
  /// once, here or later as `.added`.
  public func enumerate() -> [InputNode] {
    let nodes: [InputNode]
    do {
      nodes = try context.eventNodes()
    } catch {
      logger.error("udev: cannot list input devices: \(error)")
      return []
    }
    for node in nodes { known[node.syspath] = node.devnode }
    return nodes
  }

  /// Stops watching and frees the monitor (its fd is the monitor's); no `onChange` call
  /// follows. Call on the queue. Safe to call more than once.
  public func cancel() {
    if let token { multiplexer.unwatch(token) }
    token = nil
    if let monitor { udev_monitor_unref(monitor) }
    monitor = nil
  }

  /// Reads every pending message (the monitor's socket is non-blocking).
  private func receive() {
    guard let monitor else { return }
    while true {
      let received = retryOnInterrupt { () -> Result<OpaquePointer, Errno> in
        errno = 0
        // NULL with errno 0: a message udev dropped (not for us, or malformed).
        return udev_monitor_receive_device(monitor).map { .success($0) } ?? .failure(.current)
      }
      let device: OpaquePointer
      switch received {
      case .success(let received):
        device = received
      case .failure(.wouldBlock), .failure(Errno(rawValue: 0)):
        return
      case .failure(.noBufferSpace):
        logger.warning("udev: messages were lost (receive buffer full); listing devices again")
        resynchronize()
        continue
      case .failure(let error):
        logger.warning("udev: cannot receive a message: \(error)")
        return
      }
      defer { udev_device_unref(device) }
      handle(device)
      // onChange may have cancelled the watcher.
      if self.monitor == nil { return }
    }
  }

  private func handle(_ device: OpaquePointer) {
    let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
    switch action {
    case "remove":
      guard let syspath = udev_device_get_syspath(device).map({ String(cString: $0) }) else {
        return
      }
      apply(
        .remove(
          syspath: syspath, devnode: udev_device_get_devnode(device).map { String(cString: $0) }))
    case "add", "change":
      guard let node = UdevContext.node(from: device) else { return }
      apply(action == "add" ? .add(node) : .change(node))
    default:
      // bind, unbind, move, online, offline: nothing an input node needs.
      return
    }
  }

  /// A udev message about an event node, as far as the watcher cares.
  enum Message {
    case add(InputNode)
    case change(InputNode)
    case remove(syspath: String, devnode: String?)
  }

  /// Turns a message into at most one `onChange` call: a node is added once (an "add" for a
  /// node enumeration already reported is dropped; a "change" for a node not reported yet,
  /// one that was not initialized when it came, adds it), removed only when it was added,
  /// and never reported before udev has initialized it.
  func apply(_ message: Message) {
    switch message {
    case .remove(let syspath, let devnode):
      guard let known = known.removeValue(forKey: syspath) else { return }
      onChange(.removed(syspath: syspath, devnode: devnode ?? known))
    case .add(let node), .change(let node):
      guard node.isInitialized else {
        logger.debug("udev: \(node.devnode) is not initialized yet; waiting for udev")
        return
      }
      if known.updateValue(node.devnode, forKey: node.syspath) == nil {
        onChange(.added(node))
      } else if case .change = message {
        onChange(.changed(node))
      }
    }
  }

  /// After lost messages: compares what udev lists now with what was reported and reports
  /// the difference.
  private func resynchronize() {
    let nodes: [InputNode]
    do {
      nodes = try context.eventNodes()
    } catch {
      logger.error("udev: cannot list input devices: \(error)")
      return
    }
    resynchronize(with: nodes)
  }

  /// Syspaths contain the inputN number, which a replugged device never gets twice, so the
  /// syspaths that came and went are exactly the nodes that did.
  func resynchronize(with nodes: [InputNode]) {
    let present = Set(nodes.map(\.syspath))
    for (syspath, devnode) in known.sorted(by: { $0.key < $1.key }) where !present.contains(syspath) {
      known[syspath] = nil
      onChange(.removed(syspath: syspath, devnode: devnode))
      if monitor == nil { return }
    }
    for node in nodes where known[node.syspath] == nil {
      known[node.syspath] = node.devnode
      onChange(.added(node))
      if monitor == nil { return }
    }
  }
}
