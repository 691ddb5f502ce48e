import Dispatch
import GestureCore
import GesturedConfig
import GesturedSystem
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

extension Daemon {
  /// One opened device and its pipeline.
  final class OpenDevice {
    let node: InputNode
    let evdev: EvdevDevice
    // Variables: a reload may keep the device open under a new config.
    var profileIndex: Int
    var profile: Profile
    var actions: ProfileActions
    /// What its bindings run, indexed by binding: where its firings go.
    var bindings: BindingTable
    /// Recognition only: no handler per binding (firings go through `bindings`).
    var recognizer: GestureRecognizer<Void>
    /// The recognizer's engine, in place (no copy per event).
    var engine: DeviceEngine {
      _read { yield recognizer.engine }
      _modify { yield &recognizer.engine }
    }
    /// What reading the device asks of its engine after each read (when the next batch is
    /// due, whether a landing may wait), worked out where the engine is: through the
    /// engine's getters each question would copy the whole engine.
    var reading: DeviceEngine.ReadingState { engine.readingState() }
    /// `forward: true`, with its clone made: what does not become a gesture goes there.
    var forwarder: Forwarder?
    /// Set while the multiplexer watches the device's events (always, unless it is read at
    /// contact changes).
    var token: EventMultiplexer.Token?
    /// Read at contact changes (docs/devices.md): the batches' schedule, the doorbell's
    /// watch, and when the next batch is due (nil while no contact is down). nil when every
    /// frame is read as it comes.
    var batched: BatchedReading?
    var doorbellToken: EventMultiplexer.Token?
    var nextBatch: Timestamp?
    /// A landing was left for the next read (`Daemon.contactChanged`).
    var landingUnread = false
    /// The device's SYN_DROPPEDs already looked at by `scheduleBatches`.
    var resyncsSeen = 0
    /// The kernel's time of the last event read.
    var lastEventTime: Timestamp?
    /// The engine's impossible-input count last logged.
    var impossibleLogged = 0
    var resyncLog = ResyncLog()

    init(
      node: InputNode, evdev: EvdevDevice, profileIndex: Int, profile: Profile, actions: ProfileActions,
      bindings: BindingTable, recognizer: GestureRecognizer<Void>
    ) {
      self.node = node
      self.evdev = evdev
      self.profileIndex = profileIndex
      self.profile = profile
      self.actions = actions
      self.bindings = bindings
      self.recognizer = recognizer
    }

    var name: String { evdev.description.name }
  }
}
