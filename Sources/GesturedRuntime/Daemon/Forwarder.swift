import GestureCore
import GesturedSystem

/// The runtime half of `forward: true` for one grabbed panel: the frame being read, the
/// gate (GestureCore's `ForwardGate`, which decides what goes out) and the uinput clone it
/// goes out to. Frames that pass go out in one write(2) per frame as soon as their
/// SYN_REPORT is read; nothing waits for a timer.
final class Forwarder {
  let clone: UinputClone
  private var gate: ForwardGate
  /// The panel's events since the last SYN_REPORT.
  private var frame: [RawEvent] = []
  private var out: [RawEvent] = []
  private let devnode: String
  private let logger: Logger
  private var writeFailureLogged = false
  /// From a frame's kernel time to the end of the write that put it on the clone, for the
  /// frames that went out when they were read (the last `latencyWindow`): the latency
  /// forwarding adds, logged when the device closes.
  private var latencies: [Int64] = []
  private var latencyNext = 0
  private(set) var framesWrittenLive = 0
  static let latencyWindow = 4096
  /// A frame that never ends (a broken device) is cut here rather than grown without bound.
  static let maximumFrameEvents = 4096

  /// Called when a touch sequence wakes the panel (`wake`), with the time it began.
  var onWake: ((Timestamp) -> Void)?

  init(
    clone: UinputClone, engine: DeviceEngine, devnode: String, logger: Logger, positions: [RawEvent],
    openedAt: Timestamp
  ) {
    self.clone = clone
    self.devnode = devnode
    self.logger = logger
    gate = ForwardGate(device: engine.device, policy: ForwardPolicy(engine: engine), openedAt: openedAt)
    gate.assume(positions)
    frame.reserveCapacity(256)
    out.reserveCapacity(256)
  }

  /// After the engine handled `event`: its decisions go to the gate first (they may release
  /// held frames), then, at the end of a frame, the frame itself.
  func handled(_ event: RawEvent, engine: inout DeviceEngine) {
    frame.append(event)
    takeDecisions(&engine)
    if event.type == EventType.syn && event.code == SynCode.report || frame.count >= Self.maximumFrameEvents {
      gate.frame(
        frame[...], sequence: engine.frameSequence, sequenceOfSlot: { engine.sequence(ofSlot: $0) },
        contactOfReport: { engine.contact(atReport: $0) }, into: &out)
      frame.removeAll(keepingCapacity: true)
      if let woke = gate.takeWake() { onWake?(woke) }
      guard !out.isEmpty else { return }
      write()
      note(latency: MonotonicClock.now() - event.time)
    }
  }

  /// After a reload that kept the clone: the new profile's policy (the engine is the new
  /// one), from the next contact that lands on.
  func adopt(_ engine: DeviceEngine) {
    gate.adopt(ForwardPolicy(engine: engine))
  }

  /// After a deadline ran: what it decided goes out now.
  func advanced(_ engine: inout DeviceEngine) {
    takeDecisions(&engine)
    write()
  }

  /// SYN_DROPPED on the panel: every contact on the clone is released cleanly; the panel's
  /// contacts reach the clone again only once they all lifted.
  func resynchronizing() {
    frame.removeAll(keepingCapacity: true)
    releaseAll()
  }

  /// Releases every contact the clone has down and drops what is held (the engine was
  /// cancelled, the config reloaded, the device is closing).
  func releaseAll() {
    gate.releaseAll(into: &out)
    write()
  }

  /// Releases every contact, then removes the clone.
  func close() {
    releaseAll()
    clone.destroy()
    guard framesWrittenLive > 0 else { return }
    let sorted = latencies.sorted()
    logger.info(
      "\(devnode): \(framesWrittenLive) frame(s) went to the clone as they were read; added latency over the last \(sorted.count): median \(sorted[sorted.count / 2]) µs, worst \(sorted[sorted.count - 1]) µs"
    )
  }

  private func note(latency: Int64) {
    framesWrittenLive += 1
    if latencies.count < Self.latencyWindow {
      latencies.append(latency)
    } else {
      latencies[latencyNext] = latency
      latencyNext = (latencyNext + 1) % Self.latencyWindow
    }
  }

  private func takeDecisions(_ engine: inout DeviceEngine) {
    guard !engine.dispositions.isEmpty else { return }
    for disposition in engine.dispositions { gate.decide(disposition, into: &out) }
    engine.clearDispositions()
  }

  private func write() {
    guard !out.isEmpty else { return }
    if let error = clone.write(out) {
      if !writeFailureLogged {
        writeFailureLogged = true
        logger.warning("\(devnode): cannot write to its clone \(clone.devnode ?? "?"): \(error)")
      }
    } else if writeFailureLogged {
      writeFailureLogged = false
      logger.info("\(devnode): writing to its clone works again")
    }
    out.removeAll(keepingCapacity: true)
  }
}
