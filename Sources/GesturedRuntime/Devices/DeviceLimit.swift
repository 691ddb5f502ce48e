import GesturedSystem
/// The cap on open devices (`max-devices`): anyone who can create a uinput device can make
/// thousands, and each one the daemon opened would hold a file descriptor.
///
/// Nodes beyond the cap are not opened at all; each is logged once, until it goes away or
/// the config is reloaded.
struct DeviceLimit {
  var maximum: Int
  /// Syspaths already logged as refused.
  private var refused: Set<String> = []

  init(maximum: Int) { self.maximum = maximum }

  enum Decision: Equatable {
    case open
    /// Not opened; `log` is true the first time for this node.
    case refuse(log: Bool)
  }

  /// Whether a node may be opened while `openCount` devices are open.
  mutating func admit(_ syspath: String, openCount: Int) -> Decision {
    guard openCount >= maximum else {
      refused.remove(syspath)
      return .open
    }
    return .refuse(log: refused.insert(syspath).inserted)
  }

  /// The node is gone: if it comes back and is refused again, that is logged again.
  mutating func forget(_ syspath: String) { refused.remove(syspath) }

  /// A reload may change the cap; every refusal is logged afresh.
  mutating func reset(maximum: Int) {
    self.maximum = maximum
    refused.removeAll()
  }

  /// The log line for a refused node.
  static func message(devnode: String, maximum: Int) -> LogMessage {
    "\(devnode): not opened: \(maximum) devices are open already, the most max-devices allows"
  }
}
