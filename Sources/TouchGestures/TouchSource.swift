import GestureCore

/// Where a `TouchScreen` reads touches from.
public enum TouchSource: Hashable, Sendable {
  /// One evdev node, e.g. `/dev/input/event5` or a stable `/dev/input/by-path/…` link.
  /// Unplugged, it is waited for and taken again when it comes back (with udev).
  case device(String)
  /// The first touchscreen `match` selects (udev's `ID_INPUT_TOUCHSCREEN`, or any node the
  /// match's criteria select, as a config profile's `match:` does). Unplugged, the next
  /// one present or plugged in is taken.
  case firstTouchscreen(TouchscreenMatch = .any)
  /// An evemu recording (`gestured record`, `evemu-record`, `gestured-touch`), played on its
  /// own clock as fast as it can be read; `SourceEvent.finished` follows its last firing.
  case recording(String)
  /// An evemu recording played in real time: each event when its time has come, counted
  /// from the first, as it happened (for a demo, or an app that moves its views as the
  /// gestures go); `SourceEvent.finished` follows its last firing.
  case realTimeRecording(String)
}

/// Which touchscreens `TouchSource.firstTouchscreen` may take: every given criterion must
/// hold, as in a config profile's `match:`.
public struct TouchscreenMatch: Hashable, Sendable {
  /// A case-sensitive glob on the device's evdev name (`*`, `?`, `[...]`).
  public var name: String?
  /// The USB vendor id.
  public var vendor: UInt16?
  /// The USB product id.
  public var product: UInt16?

  /// A match on the criteria given; none given is `any`.
  public init(name: String? = nil, vendor: UInt16? = nil, product: UInt16? = nil) {
    self.name = name
    self.vendor = vendor
    self.product = product
  }

  /// Every node udev calls a touchscreen.
  public static let any = TouchscreenMatch()

  /// nil for `any`: the config's default profile, which takes only touchscreens.
  var core: DeviceMatch? {
    self == .any ? nil : DeviceMatch(name: name, vendor: vendor, product: product)
  }
}

/// What happens to a `TouchScreen`'s source, told on the screen's queue.
public enum SourceEvent: Hashable, Sendable {
  /// A device (or a recording) is being read: its evdev name and its node (or file).
  case connected(name: String, path: String)
  /// The device went away; gestures in progress were cancelled (steps ended).
  case disconnected(path: String)
  /// The recording was played to its end; every firing of it came before this.
  case finished(path: String)
  /// Something the app may want to log, reading goes on: a device that cannot be opened
  /// (permissions?), a message from libevdev or udev.
  case notice(String)
  /// The source cannot be read at all (a bad recording, no event loop); reading stopped.
  case failed(String)
  /// Nothing is read until the device wanted comes (a path, or "a touchscreen"): after
  /// `start` found none, or after the one read went away. A `connected` follows when it comes.
  case waiting(for: String)
  /// A device wanted cannot be read, and why; the screen goes on waiting for it.
  case unavailable(SourceFailure)
}

/// Why a device cannot be read.
public enum SourceFailure: Hashable, Sendable, CustomStringConvertible {
  /// No such node (yet): unplugged, or a wrong path.
  case absent(path: String)
  /// The node is there but this process may not read it; `remedy` says what to do.
  case permissionDenied(path: String, remedy: String)
  /// Anything else: the node is not an input device, the kernel refused, ….
  case unreadable(path: String, reason: String)

  /// What to do about a node of /dev/input the process may not read.
  public static let inputGroupRemedy =
    "add the user to the 'input' group (sudo usermod -aG input $USER, then log in again), or run as root"

  /// One line for a log.
  public var description: String {
    switch self {
    case .absent(let path): "\(path): no such device"
    case .permissionDenied(let path, let remedy): "\(path): permission denied: \(remedy)"
    case .unreadable(_, let reason): reason
    }
  }
}
