import GestureCore

/// SplitMix64: small, fast, and the same numbers on every machine, so a seed gives the same
/// jitter everywhere.
struct SplitMix64 {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// Uniform in -1...1.
  mutating func signedUnit() -> Double {
    Double(next() >> 11) * 0x1p-53 * 2 - 1
  }
}

/// Samples the tracks the way a panel scans and writes the events the kernel would deliver
/// for the panel's kind.
///
/// Kernel behaviour reproduced (drivers/input/input.c and input-mt.c):
/// - A frame is sampled at every track keyframe, landing and lift, and every `samplePeriod`
///   tick while a finger is down; every finger down is sampled in every frame.
/// - Values that did not change are not delivered: per slot for protocol B, per axis for
///   ABS_X/ABS_Y, per key for buttons. ABS_MT_SLOT is delivered only before an event of
///   another slot than the last one delivered. A frame with nothing in it has no SYN_REPORT.
/// - Protocol A has no state: every frame lists every contact, and the frame after the last
///   lift is an empty SYN_MT_REPORT.
/// - Pointer emulation reports the oldest contact on ABS_X/ABS_Y, and BTN_TOUCH while any is
///   down.
struct KernelEmitter {
  let panel: Panel
  let samplePeriod: Microseconds
  /// Millimetres.
  let jitter: Double
  var random: SplitMix64

  /// Jitter amplitude in axis units.
  let jitterX: Double
  let jitterY: Double

  // What the kernel last delivered.
  struct SlotState {
    var trackingID: Int32 = -1
    var x: Int32 = 0
    var y: Int32 = 0
  }
  var slotStates: [SlotState]
  var deliveredSlot = 0
  var button: Int32 = 0
  var pointerX: Int32 = 0
  var pointerY: Int32 = 0
  var nextTrackingID: Int32 = 0

  init(panel: Panel, samplePeriod: Microseconds, jitter: Double, random: SplitMix64) {
    self.panel = panel
    self.samplePeriod = samplePeriod
    self.jitter = jitter
    self.random = random
    let size = panel.millimetres
    jitterX = jitter * Double(Int64(panel.xAxis.maximum) - Int64(panel.xAxis.minimum)) / size.width
    jitterY = jitter * Double(Int64(panel.yAxis.maximum) - Int64(panel.yAxis.minimum)) / size.height
    slotStates = Array(repeating: SlotState(), count: panel.kind == .multitouchB ? panel.slots : 1)
  }

  /// A contact in the current frame.
  struct Contact {
    var track: Int
    var slot: Int
    var trackingID: Int32
    var x: Int32 = 0
    var y: Int32 = 0
  }

  mutating func events(for unsorted: [Track], end: Microseconds?) throws(TouchScriptError)
    -> [RawEvent]
  {
    let tracks = stableSorted(unsorted) { $0.down < $1.down }
    var lastTime: Microseconds = 0
    for track in tracks {
      lastTime = max(lastTime, track.up ?? track.keyframes.last?.time ?? 0)
      for keyframe in track.keyframes { lastTime = max(lastTime, keyframe.time) }
    }
    let endTime = max(end ?? lastTime, lastTime)

    var times = Set<Microseconds>()
    for track in tracks {
      for keyframe in track.keyframes { times.insert(keyframe.time) }
      let until = track.up ?? endTime
      if let up = track.up { times.insert(up) }
      var tick = (track.down / samplePeriod + 1) * samplePeriod
      while tick < until || (track.up == nil && tick == until) {
        times.insert(tick)
        tick += samplePeriod
      }
    }

    var output: [RawEvent] = []
    var active: [Contact] = []  // in landing order: the first is the oldest
    var cursors = [Int](repeating: 0, count: tracks.count)
    var nextLanding = 0
    for time in times.sorted() {
      let stamp = Timestamp(microseconds: time)
      // Lifts first, so their slots are known; landings then prefer slots that were free
      // before this frame, so a slot is not handed over inside one frame unless it must be.
      let heldBefore = Set(active.map(\.slot))
      let lifted = active.filter { tracks[$0.track].up == time }
      active.removeAll { tracks[$0.track].up == time }
      while nextLanding < tracks.count, tracks[nextLanding].down == time {
        let track = tracks[nextLanding]
        let slot = try freeSlot(active: active, heldBefore: heldBefore, track: track, time: time)
        active.append(Contact(track: nextLanding, slot: slot, trackingID: nextTrackingID))
        nextTrackingID = (nextTrackingID &+ 1) & 0xFFFF
        nextLanding += 1
      }
      for index in active.indices {
        let (fx, fy) = position(
          of: tracks[active[index].track], at: time, cursor: &cursors[active[index].track])
        active[index].x = sample(fx, jitterX, panel.xAxis)
        active[index].y = sample(fy, jitterY, panel.yAxis)
      }
      switch panel.kind {
      case .multitouchB, .multitouchBSlotZero:
        emitSlots(active: active, at: stamp, into: &output)
      case .multitouchA:
        emitProtocolA(active: active, anyLifted: !lifted.isEmpty, at: stamp, into: &output)
      case .singleTouch, .singleTouchLeft:
        emitSingle(active: active, at: stamp, into: &output)
      }
    }
    return output
  }

  /// A slot for a landing contact, or an error when the panel cannot report that many.
  func freeSlot(active: [Contact], heldBefore: Set<Int>, track: Track, time: Microseconds)
    throws(TouchScriptError) -> Int
  {
    let capacity: Int
    switch panel.kind {
    case .multitouchB: capacity = panel.slots
    case .multitouchBSlotZero, .singleTouch, .singleTouchLeft: capacity = 1
    case .multitouchA: return 0
    }
    let held = Set(active.map(\.slot))
    let candidates = (0..<capacity).filter { !held.contains($0) }
    guard let slot = candidates.first(where: { !heldBefore.contains($0) }) ?? candidates.first
    else {
      throw TouchScriptError(
        line: track.line,
        message:
          "\(track.name) lands at \(time / 1000)ms while \(active.count) finger(s) are down; a \(panel.kind.rawValue) panel"
          + (panel.kind == .multitouchB ? " with \(panel.slots) slots" : "")
          + " reports at most \(capacity)")
    }
    return slot
  }

  /// The track's position at `time` by linear interpolation between keyframes. `cursor`
  /// remembers the keyframe reached, since frames come in time order.
  func position(of track: Track, at time: Microseconds, cursor: inout Int) -> (Double, Double) {
    let keyframes = track.keyframes
    while cursor + 1 < keyframes.count, keyframes[cursor + 1].time <= time { cursor += 1 }
    let current = keyframes[cursor]
    guard cursor + 1 < keyframes.count, time > current.time else { return (current.x, current.y) }
    let next = keyframes[cursor + 1]
    let progress = Double(time - current.time) / Double(next.time - current.time)
    return (
      current.x + (next.x - current.x) * progress, current.y + (next.y - current.y) * progress
    )
  }

  /// A fraction of the axis → axis units, with jitter, never outside the axis range.
  mutating func sample(_ fraction: Double, _ amplitude: Double, _ axis: AxisInfo) -> Int32 {
    let span = Double(Int64(axis.maximum) - Int64(axis.minimum))
    var value = Double(axis.minimum) + fraction * span
    if amplitude > 0 { value += random.signedUnit() * amplitude }
    let rounded = value.rounded()
    if !(rounded >= Double(axis.minimum)) { return axis.minimum }
    if rounded > Double(axis.maximum) { return axis.maximum }
    return Int32(rounded)
  }

  mutating func emitSlots(active: [Contact], at time: Timestamp, into output: inout [RawEvent]) {
    var frame: [RawEvent] = []
    for slot in slotStates.indices {
      var state = slotStates[slot]
      var changes: [(UInt16, Int32)] = []
      if let contact = active.first(where: { $0.slot == slot }) {
        if state.trackingID != contact.trackingID {
          changes.append((AbsCode.mtTrackingID, contact.trackingID))
        }
        if state.x != contact.x { changes.append((AbsCode.mtPositionX, contact.x)) }
        if state.y != contact.y { changes.append((AbsCode.mtPositionY, contact.y)) }
        state = SlotState(trackingID: contact.trackingID, x: contact.x, y: contact.y)
      } else if state.trackingID != -1 {
        changes.append((AbsCode.mtTrackingID, -1))
        state.trackingID = -1
      }
      guard !changes.isEmpty else { continue }
      if panel.kind == .multitouchB && slot != deliveredSlot {
        frame.append(
          RawEvent(time: time, type: EventType.abs, code: AbsCode.mtSlot, value: Int32(slot)))
        deliveredSlot = slot
      }
      for (code, value) in changes {
        frame.append(RawEvent(time: time, type: EventType.abs, code: code, value: value))
      }
      slotStates[slot] = state
    }
    emitPointer(active: active, at: time, into: &frame)
    finishFrame(frame, at: time, into: &output)
  }

  mutating func emitProtocolA(
    active: [Contact], anyLifted: Bool, at time: Timestamp, into output: inout [RawEvent]
  ) {
    guard !active.isEmpty || anyLifted else { return }
    var frame: [RawEvent] = []
    for contact in active {
      frame.append(
        RawEvent(time: time, type: EventType.abs, code: AbsCode.mtPositionX, value: contact.x))
      frame.append(
        RawEvent(time: time, type: EventType.abs, code: AbsCode.mtPositionY, value: contact.y))
      frame.append(RawEvent(time: time, type: EventType.syn, code: SynCode.mtReport, value: 0))
    }
    if active.isEmpty {
      frame.append(RawEvent(time: time, type: EventType.syn, code: SynCode.mtReport, value: 0))
    }
    emitPointer(active: active, at: time, into: &frame)
    finishFrame(frame, at: time, into: &output)
  }

  mutating func emitSingle(active: [Contact], at time: Timestamp, into output: inout [RawEvent]) {
    var frame: [RawEvent] = []
    if let contact = active.first {
      if pointerX != contact.x {
        frame.append(RawEvent(time: time, type: EventType.abs, code: AbsCode.x, value: contact.x))
      }
      if pointerY != contact.y {
        frame.append(RawEvent(time: time, type: EventType.abs, code: AbsCode.y, value: contact.y))
      }
      pointerX = contact.x
      pointerY = contact.y
    }
    let pressed: Int32 = active.isEmpty ? 0 : 1
    if pressed != button {
      let code = panel.kind == .singleTouch ? KeyCode.btnTouch : KeyCode.btnLeft
      frame.append(RawEvent(time: time, type: EventType.key, code: code, value: pressed))
      button = pressed
    }
    finishFrame(frame, at: time, into: &output)
  }

  /// BTN_TOUCH while anything is down, and with pointer emulation the oldest contact on
  /// ABS_X/ABS_Y, after the contacts themselves as input_mt_sync_frame orders them.
  mutating func emitPointer(active: [Contact], at time: Timestamp, into frame: inout [RawEvent]) {
    let pressed: Int32 = active.isEmpty ? 0 : 1
    if pressed != button {
      frame.append(
        RawEvent(time: time, type: EventType.key, code: KeyCode.btnTouch, value: pressed))
      button = pressed
    }
    guard panel.pointerEmulation, let oldest = active.first else { return }
    if pointerX != oldest.x {
      frame.append(RawEvent(time: time, type: EventType.abs, code: AbsCode.x, value: oldest.x))
    }
    if pointerY != oldest.y {
      frame.append(RawEvent(time: time, type: EventType.abs, code: AbsCode.y, value: oldest.y))
    }
    pointerX = oldest.x
    pointerY = oldest.y
  }

  /// A frame with anything in it ends with SYN_REPORT; an empty one is not delivered.
  func finishFrame(_ frame: [RawEvent], at time: Timestamp, into output: inout [RawEvent]) {
    guard !frame.isEmpty else { return }
    output += frame
    output.append(RawEvent(time: time, type: EventType.syn, code: SynCode.report, value: 0))
  }
}
