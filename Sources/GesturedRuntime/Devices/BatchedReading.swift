import GestureCore

/// Reading a panel at contact changes (docs/devices.md, "Reading at contact changes"): the
/// kernel wakes the daemon only for a frame in which a contact lands or lifts (a second,
/// masked open of the node: `EvdevDevice.openDoorbell()`), and the frames of moves in
/// between are read in batches, before the kernel's buffer for the daemon can fill. This is
/// the batches' schedule: pure, from the device's description and the frames' kernel times.
///
/// The kernel sizes each reader's buffer at 8 frames of its estimate of the largest frame
/// the device can send (every slot with every axis, plus room for keys and MSC events), at
/// least 64 events, rounded up to a power of two (drivers/input/input.c
/// `input_estimate_events_per_packet`, drivers/input/evdev.c `evdev_compute_buffer_size`;
/// a driver may only raise the estimate). With fewer contacts down a frame is smaller, so
/// the buffer holds more of them: a batch is read before three quarters of it can be used
/// by frames of that size, at the panel's scan period (`measuredPeriod`). Real frames are
/// smaller than that size (a moving finger of the VM's panel sends 5 events a frame, where
/// the estimate says 15), so the quarter left and that difference are the margin for a
/// timer that comes late. Should it overflow before a batch was due all the same (a panel
/// that sends frames with no contact down, a driver that sends more than it said), the
/// daemon reads that panel at every frame from then on.
struct BatchedReading {
  /// Events the kernel's buffer holds for one reader of the device, at least.
  let bufferEvents: Int
  /// What one more contact can add to a frame, and a frame's other events.
  let eventsPerContact: Int
  let eventsPerFrame: Int
  /// The panel's scan period: the shortest of the median gaps between frames of each batch
  /// of `gapsForAMedian` frames or more, never under `shortestPeriod`; nil until one such
  /// batch was read. A median, because frames come late and then in a burst (a busy USB
  /// bus, a stalled writer): the shortest gap would take a burst for the scan rate and
  /// read the panel far more often than it needs.
  private(set) var measuredPeriod: Microseconds?
  private var lastFrame: Timestamp?
  /// The gaps between frames since the last batch ended, at most `gapsKept` (allocated once).
  private var gaps: [Microseconds] = []
  static let gapsKept = 64
  static let gapsForAMedian = 5

  /// Until a batch has shown the panel's rate: 500 Hz.
  static let assumedPeriod: Microseconds = 2_000
  static let shortestPeriod: Microseconds = 1_000
  /// A batch is read at least this long after the last (a panel at 1 kHz with ten fingers
  /// down would otherwise be read at every frame) and at most this long.
  static let shortestInterval: Microseconds = 8_000
  static let longestInterval: Microseconds = 250_000

  /// nil for a panel whose contact changes the kernel cannot signal alone: protocol A (its
  /// SYN_MT_REPORTs, never filtered, make every frame a wake-up) and no position at all.
  init?(device: DeviceDescription) {
    switch device.touchProtocol {
    case .multitouchB?, .singleTouch?: break
    case .multitouchA?, nil: return nil
    }
    let mtAxes = device.axes.keys.filter(Self.isMultitouchAxis).count
    let plainAxes = device.axes.count - mtAxes
    // The kernel's estimate with `contacts` in place of the slots: one SYN_MT_REPORT room
    // per contact, every multitouch axis (the slot too) per contact, every other axis, 7
    // keys and MSC events, the SYN_REPORT.
    eventsPerContact = 1 + mtAxes
    eventsPerFrame = plainAxes + 7 + 1
    let estimate = Self.kernelSlots(device) * eventsPerContact + eventsPerFrame
    bufferEvents = Self.roundedUpToPowerOfTwo(max(estimate * 8, 64))
    gaps.reserveCapacity(Self.gapsKept)
  }

  /// ABS_MT_SLOT to ABS_MT_TOOL_Y, as the kernel's `input_is_mt_axis`.
  static func isMultitouchAxis(_ code: UInt16) -> Bool { (AbsCode.mtSlot...0x3d).contains(code) }

  /// The slots the kernel counts in its estimate.
  static func kernelSlots(_ device: DeviceDescription) -> Int {
    if let slot = device.axes[AbsCode.mtSlot] { return max(0, Int(slot.maximum) + 1) }
    if let ids = device.axes[AbsCode.mtTrackingID] {
      return min(max(Int(ids.maximum) - Int(ids.minimum) + 1, 2), 32)
    }
    return device.axes[AbsCode.mtPositionX] != nil ? 2 : 0
  }

  static func roundedUpToPowerOfTwo(_ value: Int) -> Int {
    var power = 1
    while power < value { power <<= 1 }
    return power
  }

  /// The most events a frame with `contacts` contacts down can hold.
  func largestFrame(contacts: Int) -> Int { max(1, contacts) * eventsPerContact + eventsPerFrame }

  /// A frame ended (its SYN_REPORT) at `time`.
  mutating func sawFrame(at time: Timestamp) {
    if let lastFrame, gaps.count < Self.gapsKept { gaps.append(time - lastFrame) }
    lastFrame = time
  }

  /// A batch was read: its frames' median gap may shorten the scan period.
  mutating func batchEnded() {
    defer { gaps.removeAll(keepingCapacity: true) }
    guard gaps.count >= Self.gapsForAMedian else { return }
    // The median is below the period only if more than half the gaps are: at a steady
    // scan rate most batches leave it as it is, and need no sort.
    if let measuredPeriod, gaps.count(where: { $0 < measuredPeriod }) <= gaps.count / 2 { return }
    gaps.sort()
    let median = max(gaps[gaps.count / 2], Self.shortestPeriod)
    measuredPeriod = min(median, measuredPeriod ?? median)
  }

  var scanPeriod: Microseconds { measuredPeriod ?? Self.assumedPeriod }

  /// How long after a batch the next is due while `contacts` are down: the time the panel
  /// needs, at its scan rate, to fill three quarters of the buffer with frames of that
  /// many contacts.
  func interval(contacts: Int) -> Microseconds {
    let frames = (bufferEvents * 3 / 4) / largestFrame(contacts: contacts)
    return min(max(Microseconds(frames) * scanPeriod, Self.shortestInterval), Self.longestInterval)
  }

  /// When to read the next batch after one read at `time`: nil while no contact is down
  /// (no frame of moves can come before a landing, which wakes the daemon).
  func nextBatch(after time: Timestamp, contacts: Int) -> Timestamp? {
    contacts > 0 ? time + interval(contacts: contacts) : nil
  }
}
