/// Holds, passes or drops a forwarding device's raw frames (`forward: true`) as the
/// engine decides each touch sequence (`SequenceDisposition`), and keeps the clone's state
/// right while doing so.
///
/// Pure: the runtime feeds it every frame it read from the panel (with the sequence the
/// engine put it in) and every decision, and writes what comes out to the clone, as it is.
///
/// - A frame of a sequence that passes through, with nothing held before it, goes out at
///   once, unchanged: slots, tracking ids, pressure and touch-major as the panel sent them.
/// - A frame of an undecided sequence is held; when the sequence passes through, every
///   held frame goes out, in order (the runtime writes them in one go).
/// - A frame of a claimed sequence is dropped.
///
/// The panel only reports values that changed. After dropped frames the clone would keep
/// stale positions, so before the next frame that goes out the values the clone missed are
/// written first (positions, pressure and the like; never tracking ids or buttons, which
/// only whole sequences change: a dropped sequence is dropped from its first contact down
/// to its last lift). The kernel drops values equal to the ones it has, so this is exact.
public struct ForwardGate {
  /// What a panel (or the clone) holds: per-slot multitouch values, the other axes, the
  /// buttons, the current slot.
  struct DeviceState: Equatable {
    static let mtCodes = Int(AbsCode.max - AbsCode.mtSlot + 1)
    static let firstKey = 0x100
    static let keyCount = 0x60

    var axes: [Int32]
    var slotValues: [Int32]
    var slot: Int32 = 0
    var keys: [Int32]

    init(slots: Int) {
      axes = Array(repeating: 0, count: Int(AbsCode.mtSlot))
      slotValues = Array(repeating: 0, count: slots * Self.mtCodes)
      keys = Array(repeating: 0, count: Self.keyCount)
      for s in 0..<slots { slotValues[s * Self.mtCodes + Int(AbsCode.mtTrackingID - AbsCode.mtSlot)] = -1 }
    }

    var slots: Int { slotValues.count / Self.mtCodes }

    func value(slot s: Int, _ code: UInt16) -> Int32 { slotValues[s * Self.mtCodes + Int(code - AbsCode.mtSlot)] }

    /// Whether no contact is down: every slot's tracking id ended and BTN_TOUCH up.
    var isIdle: Bool {
      keys[Int(KeyCode.btnTouch) - Self.firstKey] == 0
        && (0..<slots).allSatisfy { value(slot: $0, AbsCode.mtTrackingID) == -1 }
    }

    @inline(__always)
    mutating func apply(_ event: RawEvent) {
      switch event.type {
      case EventType.abs:
        if event.code == AbsCode.mtSlot {
          slot = event.value
        } else if event.code > AbsCode.mtSlot, event.code <= AbsCode.max {
          guard slot >= 0, Int(slot) < slots else { return }
          slotValues[Int(slot) * Self.mtCodes + Int(event.code - AbsCode.mtSlot)] = event.value
        } else if event.code < AbsCode.mtSlot {
          axes[Int(event.code)] = event.value
        }
      case EventType.key:
        let k = Int(event.code) - Self.firstKey
        if k >= 0, k < Self.keyCount { keys[k] = event.value }
      default:
        break
      }
    }
  }

  /// Frames of one sequence held back to back, oldest first.
  private struct HeldRun {
    var sequence: Int?
    var outcome: SequenceDisposition.Outcome?
    /// The panel's state before the run's first frame.
    var before: DeviceState
    var events: [RawEvent]
  }

  private let hasSlots: Bool
  private let protocolA: Bool
  /// The axes the device has, below ABS_MT_SLOT: only these are ever written.
  private let singleAxes: [UInt16]
  private let slotAxes: [UInt16]
  private var panel: DeviceState
  private var clone: DeviceState
  /// Whether the clone holds exactly what the panel does (nothing dropped or held since the
  /// last check): then a frame goes out with no comparison at all.
  private var cloneMatchesPanel = false
  private var held: [HeldRun] = []
  /// The latest decisions, for frames of a sequence decided before they arrive.
  private var recent: [(sequence: Int, outcome: SequenceDisposition.Outcome)] = []
  /// After a SYN_DROPPED or a release: nothing goes out until every panel contact lifted.
  private var suppressing = false
  private var timeNow = Timestamp(microseconds: 0)

  public init(device: DeviceDescription) {
    let slotAxis = device.axes[AbsCode.mtSlot]
    let slots = slotAxis.map { Int(max(0, $0.maximum)) + 1 } ?? (device.axes[AbsCode.mtTrackingID] != nil ? 1 : 0)
    hasSlots = slots > 0
    protocolA = device.touchProtocol == .multitouchA
    singleAxes = device.axes.keys.filter { $0 < AbsCode.mtSlot }.sorted()
    slotAxes = device.axes.keys.filter { $0 > AbsCode.mtSlot && $0 != AbsCode.mtTrackingID }.sorted()
    panel = DeviceState(slots: protocolA ? 0 : slots)
    // A new uinput device starts with every value 0 and no contact; the first frame that
    // goes out brings it to the panel's values.
    clone = panel
    held.reserveCapacity(4)
  }

  /// Starts from the kernel's current values (the events `EvdevDevice.currentPositions`
  /// gives): they are the panel's state, not frames to pass on.
  public mutating func assume(_ events: [RawEvent]) {
    for event in events { panel.apply(event) }
    cloneMatchesPanel = false
  }

  /// Applies one decision; frames it releases are appended to `out`.
  public mutating func decide(_ disposition: SequenceDisposition, into out: inout [RawEvent]) {
    if recent.count >= 8 { recent.removeFirst() }
    recent.append((disposition.sequence, disposition.outcome))
    for i in held.indices where held[i].sequence == disposition.sequence { held[i].outcome = disposition.outcome }
    flush(into: &out)
  }

  /// One whole frame read from the panel (ending in SYN_REPORT), in the engine's sequence
  /// `sequence` (nil: no sequence was active). What goes out now is appended to `out`.
  public mutating func frame(_ events: ArraySlice<RawEvent>, sequence: Int?, into out: inout [RawEvent]) {
    if let last = events.last { timeNow = last.time }
    if suppressing {
      for event in events { panel.apply(event) }
      if panel.isIdle { suppressing = false }
      return
    }
    let outcome: SequenceDisposition.Outcome? = if let sequence { outcome(of: sequence) } else { .passThrough }
    if held.isEmpty {
      switch outcome {
      case .passThrough?:
        if !cloneMatchesPanel { catchUp(to: panel, into: &out) }
        for event in events {
          panel.apply(event)
          clone.apply(event)
          out.append(event)
        }
        cloneMatchesPanel = true
        return
      case .claimed?:
        for event in events { panel.apply(event) }
        cloneMatchesPanel = false
        return
      case nil:
        break
      }
    }
    if let last = held.indices.last, held[last].sequence == sequence, sequence != nil {
      held[last].events.append(contentsOf: events)
    } else {
      held.append(HeldRun(sequence: sequence, outcome: outcome, before: panel, events: Array(events)))
    }
    for event in events { panel.apply(event) }
    cloneMatchesPanel = false
    flush(into: &out)
  }

  /// Every contact the clone has down is released (one frame appended to `out`) and what is
  /// held is dropped; the panel's contacts still down are not passed on (the clone never
  /// saw them start again). For SYN_DROPPED on the panel, a reload, errors and closing.
  public mutating func releaseAll(into out: inout [RawEvent]) {
    held.removeAll(keepingCapacity: true)
    recent.removeAll(keepingCapacity: true)
    let start = out.count
    func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
      let event = RawEvent(time: timeNow, type: type, code: code, value: value)
      clone.apply(event)
      out.append(event)
    }
    for s in 0..<clone.slots where clone.value(slot: s, AbsCode.mtTrackingID) != -1 {
      if clone.slot != Int32(s) { emit(EventType.abs, AbsCode.mtSlot, Int32(s)) }
      emit(EventType.abs, AbsCode.mtTrackingID, -1)
    }
    for k in 0..<DeviceState.keyCount where clone.keys[k] != 0 {
      emit(EventType.key, UInt16(DeviceState.firstKey + k), 0)
    }
    if protocolA { emit(EventType.syn, SynCode.mtReport, 0) }
    if out.count > start { emit(EventType.syn, SynCode.report, 0) }
    cloneMatchesPanel = false
    suppressing = !panel.isIdle
  }

  // MARK: Inside

  private func outcome(of sequence: Int) -> SequenceDisposition.Outcome? {
    for run in held.reversed() where run.sequence == sequence { return run.outcome }
    for decision in recent.reversed() where decision.sequence == sequence { return decision.outcome }
    return nil
  }

  /// Writes out the decided runs at the front, in order, until one is undecided.
  private mutating func flush(into out: inout [RawEvent]) {
    var done = 0
    var dropped = false
    while done < held.count, let outcome = held[done].outcome {
      if outcome == .passThrough {
        catchUp(to: held[done].before, into: &out)
        for event in held[done].events {
          clone.apply(event)
          out.append(event)
        }
      } else {
        dropped = true
      }
      done += 1
    }
    guard done > 0 else { return }
    held.removeFirst(done)
    // Everything read went out: the clone holds what the panel does.
    if held.isEmpty && !dropped { cloneMatchesPanel = true }
  }

  /// Writes the values `target` has and the clone lacks (no tracking ids, no buttons), and
  /// leaves the clone on `target`'s current slot.
  private mutating func catchUp(to target: DeviceState, into out: inout [RawEvent]) {
    func emit(_ code: UInt16, _ value: Int32) {
      let event = RawEvent(time: timeNow, type: EventType.abs, code: code, value: value)
      clone.apply(event)
      out.append(event)
    }
    for code in singleAxes where clone.axes[Int(code)] != target.axes[Int(code)] { emit(code, target.axes[Int(code)]) }
    guard hasSlots, !protocolA else { return }
    for s in 0..<clone.slots {
      for code in slotAxes where clone.value(slot: s, code) != target.value(slot: s, code) {
        if clone.slot != Int32(s) { emit(AbsCode.mtSlot, Int32(s)) }
        emit(code, target.value(slot: s, code))
      }
    }
    if clone.slot != target.slot { emit(AbsCode.mtSlot, target.slot) }
  }
}

extension RawEvent {
  var isReport: Bool { type == EventType.syn && code == SynCode.report }
}
