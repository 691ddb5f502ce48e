import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// The whole environment of an action: nothing is inherited from the daemon but `PATH`, and
/// that only when it does not run as root.
///
/// Precedence, lowest first: `PATH` (`startingPath`: fixed as root, else the daemon's, else
/// `defaultPath`), the profile's `environment:`, the binding's `environment:`, then the
/// `GESTURED_*` variables, which the config cannot override. A `GESTURED_*` variable that does not apply to the gesture (e.g.
/// `GESTURED_TAPS` for a swipe, `GESTURED_REGION` outside every region, `GESTURED_PHASE` for
/// a one-shot firing) is absent, not empty.
///
/// Gesture data travels only here, never in the command string, so nothing a device reports
/// (its name, for one) can be interpreted by the shell.
///
/// Two layers: `Shared`, what every firing of one binding on one device has in common (made
/// once, with its entries already in execve's form), and the few values a firing sets on top
/// of it, so that a firing neither rebuilds nor sorts the rest.
public struct ActionEnvironment: Sendable, Equatable {
  /// systemd's default for services.
  public static let defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

  /// Variables sorted by name, each also as execve takes it: `NAME=value` and a NUL.
  public final class Shared: Sendable {
    let names: [String]
    let values: [String]
    /// Every entry's bytes, one after the other, in `names` order.
    let bytes: [UInt8]
    /// Where entry i starts in `bytes`; `starts[names.count]` is `bytes.count`.
    let starts: [Int]

    /// Entries that cannot pass to execve intact are left out (see `set`).
    public init(variables: [String: String]) {
      let valid = variables.filter { ActionEnvironment.isValidName($0.key) && !ActionEnvironment.holdsNUL($0.value) }
      let sorted = valid.sorted { $0.key < $1.key }
      names = sorted.map(\.key)
      values = sorted.map(\.value)
      var bytes: [UInt8] = []
      var starts: [Int] = []
      starts.reserveCapacity(sorted.count + 1)
      for (name, value) in sorted {
        starts.append(bytes.count)
        ActionEnvironment.appendEntry(name: name, value: value, to: &bytes)
      }
      starts.append(bytes.count)
      self.bytes = bytes
      self.starts = starts
    }

    /// What every firing of one binding on one device shares: `PATH`, the profile's and the
    /// binding's `environment:`, and `GESTURED_PROFILE`, `GESTURED_BINDING`,
    /// `GESTURED_DEVICE`, `GESTURED_DEVNODE`.
    /// - Parameters:
    ///   - bindingName: as replay's `binding` (`Profile.displayName(ofBinding:)`).
    ///   - deviceName: the evdev name.
    ///   - devnode: `/dev/input/eventN`; in replay, the recording's path.
    ///   - path: the daemon's own `PATH`; nil or empty means `defaultPath`.
    public convenience init(
      profileName: String, profileEnvironment: [String: String], bindingName: String,
      bindingEnvironment: [String: String], deviceName: String, devnode: String, path: String?
    ) {
      var variables = ["PATH": path.flatMap { $0.isEmpty ? nil : $0 } ?? ActionEnvironment.defaultPath]
      // Each layer only where valid, as `set` does: an invalid binding entry leaves the
      // profile's of the same name in place.
      let layers: [[String: String]] = [
        profileEnvironment, bindingEnvironment,
        [
          "GESTURED_PROFILE": profileName, "GESTURED_BINDING": bindingName, "GESTURED_DEVICE": deviceName,
          "GESTURED_DEVNODE": devnode,
        ],
      ]
      for layer in layers {
        for (name, value) in layer where ActionEnvironment.isValidName(name) && !ActionEnvironment.holdsNUL(value) {
          variables[name] = value
        }
      }
      self.init(variables: variables)
    }

    /// The index of `name`, if it has one.
    func index(of name: String) -> Int? { names.firstIndex(of: name) }
  }

  private var shared: Shared
  /// Set on top of `shared`, sorted by name: a firing's own values and later `set` calls. A
  /// name here hides the same name in `shared`.
  private var overrides: [(name: String, value: String)] = []

  public init(variables: [String: String] = [:]) {
    shared = Shared(variables: variables)
  }

  /// The environment for a firing's action, everything built for it alone.
  /// - Parameters:
  ///   - deviceName: the evdev name (`GESTURED_DEVICE`).
  ///   - devnode: `/dev/input/eventN`; in replay, the recording's path (`GESTURED_DEVNODE`).
  ///   - path: the daemon's own `PATH`; nil or empty means `defaultPath`.
  public init(firing: ResolvedFiring, deviceName: String, devnode: String, path: String?) {
    self.init(
      firing: firing,
      shared: Shared(
        profileName: firing.profileName, profileEnvironment: firing.profileEnvironment,
        bindingName: firing.bindingName, bindingEnvironment: firing.action.environment,
        deviceName: deviceName, devnode: devnode, path: path))
  }

  /// An action's environment that is no gesture's (the `wake` action): what it shares alone.
  public init(shared: Shared) {
    self.shared = shared
  }

  /// The environment for a firing's action on top of what its binding shares (`shared`,
  /// made for the same binding, device and `PATH`): only the firing's own values are set.
  public init(firing: ResolvedFiring, shared: Shared) {
    self.shared = shared
    overrides.reserveCapacity(15)
    // Appended in name order: none is compared with the others to find its place.
    let event = firing.event
    if let angle = firing.reportedAngle, let text = DecimalText.fourDecimals(angle) {
      appendGenerated("GESTURED_ANGLE", text)
    }
    if let direction = firing.reportedDirection { appendGenerated("GESTURED_DIRECTION", direction.rawValue) }
    if let offset = firing.reportedOffset {
      if let dx = DecimalText.fourDecimals(offset.dx) { appendGenerated("GESTURED_DX", dx) }
      if let dy = DecimalText.fourDecimals(offset.dy) { appendGenerated("GESTURED_DY", dy) }
    }
    if let reason = firing.reportedEndReason { appendGenerated("GESTURED_END_REASON", reason.rawValue) }
    appendGenerated("GESTURED_FINGERS", String(event.fingers))
    appendGenerated("GESTURED_GESTURE", event.gesture.rawValue)
    // A step's STEP and STEPS sort after its PHASE, REGION and SCALE.
    let step: (number: Int, steps: Int)?
    switch event.phase {
    case .oneShot:
      step = nil
    case .step(let k):
      // One firing; the action runner raises GESTURED_STEPS when it coalesces waiting steps.
      appendGenerated("GESTURED_PHASE", "step")
      step = (k, 1)
    case .end(let n):
      appendGenerated("GESTURED_PHASE", "end")
      step = (n, n)
    }
    // A config's name: checked like any other value.
    if let region = firing.regionName, !Self.holdsNUL(region) { appendGenerated("GESTURED_REGION", region) }
    if let scale = firing.reportedScale, let text = DecimalText.fourDecimals(scale) {
      appendGenerated("GESTURED_SCALE", text)
    }
    if let step {
      appendGenerated("GESTURED_STEP", String(step.number))
      appendGenerated("GESTURED_STEPS", String(step.steps))
    }
    if let taps = firing.reportedTaps { appendGenerated("GESTURED_TAPS", String(taps)) }
    let position = firing.position
    if let x = DecimalText.fourDecimals(position.x) { appendGenerated("GESTURED_X", x) }
    if let y = DecimalText.fourDecimals(position.y) { appendGenerated("GESTURED_Y", y) }
  }

  /// `PATH` for a `user:` action of a daemon running as root: no sbin directories, and never
  /// the daemon's own.
  public static let userPath = "/usr/local/bin:/usr/bin:/bin"

  /// The `PATH` an action starts with, before the config's `environment:`: as root, `userPath`
  /// for a `user:` action and `defaultPath` for one run as root (root's `PATH` is not
  /// inherited from whoever started gestured); otherwise the daemon's own (`daemonPath`).
  public static func startingPath(user: String?, daemonPath: String?, daemonIsRoot: Bool) -> String? {
    guard daemonIsRoot else { return daemonPath }
    return user == nil ? defaultPath : userPath
  }

  /// The calling process's `PATH`, to pass as `path:`.
  public static func currentPath() -> String? {
    guard let value = getenv("PATH") else { return nil }
    return String(cString: value)
  }

  /// Sets a variable. Refused (returns false, nothing changes) when the name is empty or holds
  /// `=` or NUL, or the value holds NUL: such entries cannot be passed to execve intact.
  @discardableResult
  public mutating func set(_ name: String, _ value: String) -> Bool {
    guard Self.isValidName(name), !Self.holdsNUL(value) else { return false }
    setGenerated(name, value)
    return true
  }

  /// `setGenerated` for a name that sorts after every one set so far.
  private mutating func appendGenerated(_ name: String, _ value: String) {
    assert(overrides.last.map { $0.name < name } ?? true, "\(name) is not in name order")
    overrides.append((name, value))
  }

  /// `set` for a name and value made here, which hold neither `=` in the name nor NUL.
  private mutating func setGenerated(_ name: String, _ value: String) {
    var index = overrides.count
    while index > 0, name < overrides[index - 1].name { index -= 1 }
    if index > 0, overrides[index - 1].name == name {
      overrides[index - 1].value = value
    } else {
      overrides.insert((name, value), at: index)
    }
  }

  /// The value of `name`, nil when it is not set.
  public subscript(name: String) -> String? {
    if let override = overrides.first(where: { $0.name == name }) { return override.value }
    return shared.index(of: name).map { shared.values[$0] }
  }

  public static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && !name.utf8.contains(where: { $0 == UInt8(ascii: "=") || $0 == 0 })
  }

  /// Whether `text` holds a NUL byte, which would cut it short in a C string.
  static func holdsNUL(_ text: String) -> Bool {
    text.utf8.withContiguousStorageIfAvailable { bytes in
      guard let base = bytes.baseAddress else { return false }
      return memchr(base, 0, bytes.count) != nil
    } ?? text.utf8.contains(0)
  }

  /// Every variable.
  public var variables: [String: String] {
    var variables = Dictionary(uniqueKeysWithValues: zip(shared.names, shared.values))
    for (name, value) in overrides { variables[name] = value }
    return variables
  }

  /// `NAME=value` entries sorted by name, as execve gets them.
  public var entries: [String] {
    let (count, byteCount) = execveCapacity
    let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: byteCount)
    defer { bytes.deallocate() }
    let pointers = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: count)
    defer { pointers.deallocate() }
    let written = writeEntries(to: bytes, pointers: pointers)
    return (0..<written).map { String(cString: pointers[$0]!) }
  }

  public static func == (a: ActionEnvironment, b: ActionEnvironment) -> Bool { a.variables == b.variables }

  /// At most how many entries and bytes `writeEntries` writes (hidden shared entries count).
  var execveCapacity: (entries: Int, bytes: Int) {
    var bytes = shared.bytes.count
    for (name, value) in overrides { bytes += name.utf8.count + value.utf8.count + 2 }
    return (shared.names.count + overrides.count, bytes)
  }

  /// Writes every entry in name order as execve takes it, each at `bytes` onwards with its
  /// address in `pointers` onwards (room for `execveCapacity`); returns how many were written.
  /// The shared entries between two set ones are copied in one piece: they are laid out in
  /// order already.
  func writeEntries(
    to bytes: UnsafeMutablePointer<UInt8>, pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
  ) -> Int {
    let names = shared.names
    let starts = shared.starts
    return shared.bytes.withUnsafeBufferPointer { sharedBytes in
      var end = bytes
      var count = 0
      var next = 0
      // Shared entries `next..<upTo`, at `end`.
      func copyShared(upTo stop: Int) {
        guard next < stop, let base = sharedBytes.baseAddress else { return }
        let from = starts[next]
        for index in next..<stop {
          pointers[count] = UnsafeMutableRawPointer(end + (starts[index] - from)).assumingMemoryBound(to: CChar.self)
          count += 1
        }
        let length = starts[stop] - from
        end.update(from: base + from, count: length)
        end += length
      }
      for (name, value) in overrides {
        var stop = next
        while stop < names.count, names[stop] < name { stop += 1 }
        copyShared(upTo: stop)
        next = stop
        if next < names.count, names[next] == name { next += 1 }  // hidden by the set one
        pointers[count] = UnsafeMutableRawPointer(end).assumingMemoryBound(to: CChar.self)
        count += 1
        end = Self.write(name, to: end)
        end.pointee = UInt8(ascii: "=")
        end = Self.write(value, to: end + 1)
        end.pointee = 0
        end += 1
      }
      copyShared(upTo: names.count)
      return count
    }
  }

  /// `text`'s bytes at `destination` (no NUL added); returns the end.
  static func write(_ text: String, to destination: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
    var text = text
    return text.withUTF8 { bytes in
      guard let base = bytes.baseAddress else { return destination }
      destination.update(from: base, count: bytes.count)
      return destination + bytes.count
    }
  }

  private static func appendEntry(name: String, value: String, to bytes: inout [UInt8]) {
    bytes += name.utf8
    bytes.append(UInt8(ascii: "="))
    bytes += value.utf8
    bytes.append(0)
  }
}
