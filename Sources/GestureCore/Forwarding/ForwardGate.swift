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
/// On a multitouch panel each contact is also judged on its own, at its landing
/// (`ForwardPolicy`): a palm, a contact beyond `forward-fingers` and every contact of the
/// touch that wakes the panel never go out, and a contact of a claimed sequence does not
/// either while one of a sequence that passes (another independent region's) does. Such a
/// frame goes out without them: their slots' events (protocol A: their reports) are left
/// out, BTN_TOUCH and the BTN_TOOL_* count follow the contacts the clone has, ABS_X/ABS_Y
/// its first one. A contact that becomes a palm once on the clone is ended there with
/// MT_TOOL_PALM (protocol A has no way to say so: it is left out, a lift to the app). Frames
/// go out in the order they were read: a frame held for one sequence holds those behind it,
/// at most `ForwardPolicy.heldDurationLimit` or `heldFrameLimit` frames, after which that
/// sequence passes through.
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

    /// Becomes `other` (of the same device) in the storage it has (a held run that
    /// shares that storage keeps its own values: the first write copies them).
    mutating func overwrite(with other: DeviceState) {
      for i in axes.indices { axes[i] = other.axes[i] }
      for i in slotValues.indices { slotValues[i] = other.slotValues[i] }
      for i in keys.indices { keys[i] = other.keys[i] }
      slot = other.slot
    }

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

  /// Frames held back to back, oldest first, that involve the same sequences.
  private struct HeldRun {
    /// The sequences of the contacts down in these frames (for a panel without slots, the
    /// frame's sequence).
    var sequences: [Int]
    /// Some contact in these frames is never forwarded (or the whole run is not, `dropAll`):
    /// they go out filtered, contact by contact.
    var filtered: Bool
    /// A panel without slots, in the touch that wakes it: nothing of it goes out.
    var dropAll: Bool
    /// The panel's state before the run's first frame.
    var before: DeviceState
    var events: [RawEvent]
    var frames: Int
    var start: Timestamp
    /// Protocol A: what each report of these frames may do, in order, and how many reports
    /// the last frame has (what the clone has down once the run went out whole).
    var reportFates: [ReportFate]
    var reportsAtEnd: Int
  }

  /// A report of a protocol A frame (one that carries a position, as the engine counts them).
  private struct Report {
    var palm: Bool
  }

  /// What a protocol A report may do on the clone, judged when its frame was read.
  private struct ReportFate {
    /// The touch sequence it goes with (nil: none; it goes as decided for itself).
    var sequence: Int?
    var dropped: Bool
  }

  /// A contact that landed on a multitouch panel: what the clone may get of it.
  private struct Fate {
    /// Protocol A: -1, and `trackingID` is the engine's contact id (the panel sends none).
    var slot: Int32
    var trackingID: Int32
    /// Its touch sequence (nil: none; it goes as decided for itself).
    var sequence: Int?
    /// Never forwarded: a palm, beyond `forward-fingers`, or part of the waking touch.
    var dropped: Bool
    var down: Bool
    /// The frame it lifted in (for the sequences a frame involves).
    var liftedInFrame: Int
    /// Protocol A: the last frame that reported it (one that stops reporting it has lifted).
    var reportedInFrame = 0
  }

  private let hasSlots: Bool
  private let protocolA: Bool
  /// Protocol B with slots: contacts are judged one by one.
  private let slotted: Bool
  /// Contacts are judged one by one (protocol B with slots, or A through the engine's
  /// following of its anonymous reports).
  private let perContact: Bool
  private var policy: ForwardPolicy
  /// The axes the device has, below ABS_MT_SLOT: only these are ever written.
  private let singleAxes: [UInt16]
  private let slotAxes: [UInt16]
  /// The panel reports no ABS_MT_TOOL_TYPE: the clone has it for palms all the same.
  private let cloneAddsToolType: Bool
  /// BTN_TOUCH and the BTN_TOOL_* counts the panel has, written for the clone's contacts
  /// when frames go out filtered.
  private let countKeys: [UInt16]
  private let hasTouchKey: Bool
  private var panel: DeviceState
  /// `panel` before the frame being read.
  private var before: DeviceState
  private var clone: DeviceState
  /// Whether the clone holds exactly what the panel does (nothing dropped or held since the
  /// last check): then a frame goes out with no comparison at all.
  private var cloneMatchesPanel = false
  private var held: [HeldRun] = []
  private var heldFrames = 0
  /// The latest decisions (a sequence's first decision stands), for frames of a sequence
  /// decided before they arrive and for held runs.
  private var recent: [(sequence: Int, outcome: SequenceDisposition.Outcome)] = []
  private static let recentLimit = 64
  private var fates: [Fate] = []
  /// Protocol A: the reports of the frame being read, and what each may do.
  private var reports: [Report] = []
  private var reportFates: [ReportFate] = []
  /// Protocol A: how many contacts the panel and the clone have down (their last frames'
  /// reports).
  private var panelReports = 0
  private var cloneReports = 0
  private var frameNumber = 0
  /// (slot, tracking id) of the contacts landing in the frame being read.
  private var landings: [(slot: Int32, trackingID: Int32)] = []
  private var involved: [Int] = []
  /// After SYN_DROPPED or a release: nothing goes out until every panel contact lifted.
  private var suppressing = false
  /// In the touch that wakes the panel (`wake`): nothing of it goes out.
  private var waking = false
  /// Since when nothing is on the panel (nil: something is, or it is not known).
  private var idleSince: Timestamp?
  /// When the touch that woke the panel began, until `takeWake()`.
  private var pendingWake: Timestamp?
  private var timeNow = Timestamp(microseconds: 0)

  /// `openedAt`: when the panel was opened, which `wake` counts from before the first lift.
  public init(device: DeviceDescription, policy: ForwardPolicy = ForwardPolicy(), openedAt: Timestamp? = nil) {
    let slotAxis = device.axes[AbsCode.mtSlot]
    let slots = slotAxis.map { Int(max(0, $0.maximum)) + 1 } ?? (device.axes[AbsCode.mtTrackingID] != nil ? 1 : 0)
    hasSlots = slots > 0
    protocolA = device.touchProtocol == .multitouchA
    slotted = hasSlots && !protocolA
    perContact = slotted || protocolA
    self.policy = policy
    singleAxes = device.axes.keys.filter { $0 < AbsCode.mtSlot }.sorted()
    slotAxes = device.axes.keys.filter { $0 > AbsCode.mtSlot && $0 != AbsCode.mtTrackingID }.sorted()
    cloneAddsToolType = Self.cloneAddsToolType(device)
    countKeys = KeyCode.fingerCounts.filter { device.keys.contains($0) }
    hasTouchKey = device.keys.contains(KeyCode.btnTouch)
    panel = DeviceState(slots: protocolA ? 0 : slots)
    before = panel
    // A new uinput device starts with every value 0 and no contact; the first frame that
    // goes out brings it to the panel's values.
    clone = panel
    idleSince = openedAt
    held.reserveCapacity(4)
    recent.reserveCapacity(Self.recentLimit)
    fates.reserveCapacity(2 * slots + 8)
    landings.reserveCapacity(max(slots, 1))
    if protocolA {
      reports.reserveCapacity(16)
      reportFates.reserveCapacity(16)
    }
    involved.reserveCapacity(8)
  }

  /// Whether the clone of `device` gets an ABS_MT_TOOL_TYPE axis the panel lacks: a protocol
  /// B panel that reports touch-major, whose contacts can become palms there.
  public static func cloneAddsToolType(_ device: DeviceDescription) -> Bool {
    device.axes[AbsCode.mtToolType] == nil && device.axes[AbsCode.mtTouchMajor] != nil
      && device.axes[AbsCode.mtSlot] != nil
  }

  /// The policy of a reloaded profile, from the next contact that lands on.
  public mutating func adopt(_ policy: ForwardPolicy) {
    self.policy = policy
  }

  /// Starts from the kernel's current values (the events `EvdevDevice.currentPositions`
  /// gives): they are the panel's state, not frames to pass on.
  public mutating func assume(_ events: [RawEvent]) {
    for event in events { panel.apply(event) }
    cloneMatchesPanel = false
    if !panel.isIdle { idleSince = nil }
  }

  /// When a touch sequence that woke the panel (`wake`) began, once: the runtime then runs
  /// the wake action.
  public mutating func takeWake() -> Timestamp? {
    defer { pendingWake = nil }
    return pendingWake
  }

  /// Applies one decision; frames it releases are appended to `out`. A sequence's first
  /// decision stands (one that passed through after a long hold stays passed).
  public mutating func decide(_ disposition: SequenceDisposition, into out: inout [RawEvent]) {
    guard decided(disposition.sequence) == nil else { return }
    remember(disposition.sequence, disposition.outcome)
    flush(into: &out)
  }

  /// One whole frame read from the panel (ending in SYN_REPORT), in the engine's sequence
  /// `sequence` (nil: no sequence was active). What goes out now is appended to `out`.
  /// `sequenceOfSlot` gives the sequence of the contact in a slot, for contacts of
  /// independent regions (nil: `sequence`); on a protocol A panel `contactOfReport` gives
  /// the contact the engine made of each report (`DeviceEngine.contact(atReport:)`).
  public mutating func frame(
    _ events: ArraySlice<RawEvent>, sequence: Int?, sequenceOfSlot: (Int) -> Int? = { _ in nil },
    contactOfReport: (Int) -> (id: UInt32, sequence: Int?)? = { _ in nil }, into out: inout [RawEvent]
  ) {
    if let last = events.last { timeNow = last.time }
    frameNumber &+= 1
    if suppressing {
      for event in events { panel.apply(event) }
      if protocolA { noteReports(events) }
      if panelIsIdle {
        suppressing = false
        idleSince = timeNow
      }
      return
    }
    // The state before the frame, kept in a buffer of its own rather than a copy (which
    // would allocate at the first write to `panel`).
    before.overwrite(with: panel)
    let wasIdle = panelIsIdle
    if slotted {
      applyNotingContacts(events)
    } else {
      for event in events { panel.apply(event) }
      if protocolA { noteReports(events) }
    }
    if let after = policy.wakeAfter, wasIdle, !panelIsIdle || !landings.isEmpty {
      if let idle = idleSince, timeNow.microseconds - idle.microseconds >= after {
        waking = true
        pendingWake = timeNow
      }
    }
    var filtered = waking
    if slotted { filtered = judgeContacts(frameSequence: sequence, sequenceOfSlot: sequenceOfSlot, into: &out) }
    if protocolA { filtered = judgeReports(frameSequence: sequence, contactOfReport: contactOfReport) }
    if panelIsIdle {
      if !wasIdle || idleSince == nil { idleSince = timeNow }
      waking = false
    } else {
      idleSince = nil
    }
    involved.removeAll(keepingCapacity: true)
    if perContact {
      for fate in fates where !fate.dropped && (fate.down || fate.liftedInFrame == frameNumber) {
        if let s = fate.sequence, !involved.contains(s) { involved.append(s) }
      }
      for fate in reportFates where !fate.dropped {
        if let s = fate.sequence, !involved.contains(s) { involved.append(s) }
      }
    } else if let sequence {
      involved.append(sequence)
    }
    if held.isEmpty, !dropAll(filtered), involved.allSatisfy({ decided($0) != nil }) {
      let passes = involved.count { decided($0) == .passThrough }
      if !filtered && passes == involved.count {
        if !cloneMatchesPanel { catchUp(to: before, into: &out) }
        for event in events {
          clone.apply(event)
          out.append(event)
        }
        cloneReports = panelReports
        cloneMatchesPanel = true
      } else {
        if filtered || passes > 0 {
          if protocolA {
            writeReports(events, fates: reportFates[...], into: &out)
          } else {
            writeFiltered(events, from: before, into: &out)
          }
        }
        cloneMatchesPanel = false
      }
      return
    }
    let dropAll = dropAll(filtered)
    if let last = held.indices.last, held[last].sequences == involved, held[last].dropAll == dropAll {
      held[last].events.append(contentsOf: events)
      held[last].frames += 1
      held[last].filtered = held[last].filtered || filtered
      held[last].reportFates.append(contentsOf: reportFates)
      held[last].reportsAtEnd = panelReports
    } else {
      held.append(
        HeldRun(
          sequences: involved, filtered: filtered, dropAll: dropAll, before: before, events: Array(events),
          frames: 1, start: timeNow, reportFates: reportFates, reportsAtEnd: panelReports))
    }
    heldFrames += 1
    cloneMatchesPanel = false
    boundHolding()
    flush(into: &out)
  }

  /// Every contact the clone has down is released (one frame appended to `out`) and what is
  /// held is dropped; the panel's contacts still down are not passed on (the clone never
  /// saw them start again). For SYN_DROPPED on the panel, a reload, errors and closing.
  public mutating func releaseAll(into out: inout [RawEvent]) {
    held.removeAll(keepingCapacity: true)
    heldFrames = 0
    recent.removeAll(keepingCapacity: true)
    fates.removeAll(keepingCapacity: true)
    waking = false
    let start = out.count
    for s in 0..<clone.slots where clone.value(slot: s, AbsCode.mtTrackingID) != -1 {
      if clone.slot != Int32(s) { emit(EventType.abs, AbsCode.mtSlot, Int32(s), into: &out) }
      emit(EventType.abs, AbsCode.mtTrackingID, -1, into: &out)
    }
    for k in 0..<DeviceState.keyCount where clone.keys[k] != 0 {
      emit(EventType.key, UInt16(DeviceState.firstKey + k), 0, into: &out)
    }
    if protocolA { emit(EventType.syn, SynCode.mtReport, 0, into: &out) }
    if out.count > start { emit(EventType.syn, SynCode.report, 0, into: &out) }
    cloneReports = 0
    cloneMatchesPanel = false
    suppressing = !panelIsIdle
    if !suppressing { idleSince = timeNow }
  }

  // MARK: Inside

  /// A panel without slots in the touch that wakes it: none of its frames go out.
  private func dropAll(_ filtered: Bool) -> Bool { !perContact && filtered }

  /// Whether no contact is down on the panel: by its reports on protocol A (which may send
  /// no BTN_TOUCH), else by its slots and BTN_TOUCH.
  private var panelIsIdle: Bool { protocolA ? panelReports == 0 : panel.isIdle }

  private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32, into out: inout [RawEvent]) {
    let event = RawEvent(time: timeNow, type: type, code: code, value: value)
    clone.apply(event)
    out.append(event)
  }

  private func decided(_ sequence: Int) -> SequenceDisposition.Outcome? {
    for decision in recent.reversed() where decision.sequence == sequence { return decision.outcome }
    return nil
  }

  private mutating func remember(_ sequence: Int, _ outcome: SequenceDisposition.Outcome) {
    if recent.count >= Self.recentLimit { recent.removeFirst() }
    recent.append((sequence, outcome))
  }

  /// Applies a protocol B frame to `panel`, noting the contacts that land (`landings`) and
  /// lift in it.
  private mutating func applyNotingContacts(_ events: ArraySlice<RawEvent>) {
    landings.removeAll(keepingCapacity: true)
    for event in events {
      if event.type == EventType.abs, event.code == AbsCode.mtTrackingID, panel.slot >= 0,
        Int(panel.slot) < panel.slots
      {
        let current = panel.value(slot: Int(panel.slot), AbsCode.mtTrackingID)
        if current != -1, current != event.value, let f = fateIndex(slot: panel.slot, trackingID: current) {
          fates[f].down = false
          fates[f].liftedInFrame = frameNumber
        }
        if event.value >= 0, event.value != current { landings.append((panel.slot, event.value)) }
      }
      panel.apply(event)
    }
  }

  private func fateIndex(slot: Int32, trackingID: Int32) -> Int? {
    fates.lastIndex { $0.slot == slot && $0.trackingID == trackingID }
  }

  private func isPalm(slot s: Int) -> Bool {
    isPalm(toolType: panel.value(slot: s, AbsCode.mtToolType), touchMajor: panel.value(slot: s, AbsCode.mtTouchMajor))
  }

  private func isPalm(toolType: Int32, touchMajor: Int32) -> Bool {
    policy.palm?.isPalm(toolType: toolType, touchMajor: touchMajor) ?? (toolType == ToolType.palm)
  }

  /// Protocol A: the frame's reports, each judged palm or not. A report is what carries a
  /// position, up to its SYN_MT_REPORT (or the frame's end), as the engine counts them.
  private mutating func noteReports(_ events: ArraySlice<RawEvent>) {
    reports.removeAll(keepingCapacity: true)
    var hasPosition = false
    var toolType = ToolType.finger
    var major: Int32 = 0
    for event in events {
      if event.type == EventType.abs {
        switch event.code {
        case AbsCode.mtPositionX, AbsCode.mtPositionY: hasPosition = true
        case AbsCode.mtToolType: toolType = event.value
        case AbsCode.mtTouchMajor: major = event.value
        default: break
        }
      } else if event.type == EventType.syn, event.code == SynCode.mtReport || event.code == SynCode.report {
        if hasPosition { reports.append(Report(palm: isPalm(toolType: toolType, touchMajor: major))) }
        hasPosition = false
        toolType = ToolType.finger
        major = 0
      }
    }
    panelReports = reports.count
  }

  /// A protocol A frame's reports judged, once `reports` has them: a contact's first report
  /// is its landing, where its fate is decided as a protocol B contact's is; a contact no
  /// longer reported has lifted; a report the engine does not follow (a palm, a pen) goes as
  /// the frame does, a palm never. Returns whether the frame has a report not forwarded.
  private mutating func judgeReports(
    frameSequence: Int?, contactOfReport: (Int) -> (id: UInt32, sequence: Int?)?
  ) -> Bool {
    if fates.count > 4 * reports.count + 64, held.isEmpty {
      fates.removeAll { !$0.down && $0.liftedInFrame != frameNumber }
    }
    // Lifts first, so that a contact landing as another lifts is counted against the ones
    // that stay (`forward-fingers`).
    for index in reports.indices {
      guard let contact = contactOfReport(index),
        let f = fateIndex(slot: -1, trackingID: Int32(truncatingIfNeeded: contact.id)), fates[f].down
      else { continue }
      fates[f].reportedInFrame = frameNumber
    }
    for f in fates.indices where fates[f].down && fates[f].reportedInFrame != frameNumber {
      fates[f].down = false
      fates[f].liftedInFrame = frameNumber
    }
    reportFates.removeAll(keepingCapacity: true)
    var filtered = false
    for (index, report) in reports.enumerated() {
      var fate = ReportFate(sequence: frameSequence, dropped: waking || report.palm)
      if let contact = contactOfReport(index) {
        let id = Int32(truncatingIfNeeded: contact.id)
        let f: Int
        if let known = fateIndex(slot: -1, trackingID: id), fates[known].down {
          f = known
        } else {
          let forwardedDown = fates.count { $0.down && !$0.dropped }
          let beyond = policy.maximumContacts.map { forwardedDown >= $0 } ?? false
          fates.append(
            Fate(
              slot: -1, trackingID: id, sequence: contact.sequence ?? frameSequence,
              dropped: fate.dropped || beyond, down: true, liftedInFrame: 0, reportedInFrame: frameNumber))
          f = fates.count - 1
        }
        fate = ReportFate(sequence: fates[f].sequence, dropped: fates[f].dropped)
      }
      if fate.dropped { filtered = true }
      reportFates.append(fate)
    }
    // A frame of nothing, for a clone that has nothing (a palm's lift): nothing to write.
    return filtered || (reports.isEmpty && cloneReports == 0)
  }

  private func reportPasses(_ fate: ReportFate) -> Bool {
    guard !fate.dropped else { return false }
    guard let sequence = fate.sequence else { return true }
    return decided(sequence) != .claimed
  }

  /// Protocol A frames with only the reports that go to the clone (`fates`: one per report,
  /// in order); BTN_TOUCH, the finger counts and ABS_X/ABS_Y follow the reports written. A
  /// frame with no report for the clone is written only to lift the contacts it has.
  private mutating func writeReports(
    _ events: ArraySlice<RawEvent>, fates: ArraySlice<ReportFate>, into out: inout [RawEvent]
  ) {
    var next = fates.startIndex
    var reportStart = events.startIndex
    var hasPosition = false
    var written = 0
    // The first written report's position and pressure: the clone's pointer, as the
    // kernel emulates one (ABS_X, ABS_Y, ABS_PRESSURE, when the report has them).
    var pointer: (Int32, Int32, Int32) = (-1, -1, -1)
    var pointerSet: (Bool, Bool, Bool) = (false, false, false)
    for index in events.indices {
      let event = events[index]
      if event.type == EventType.abs, event.code == AbsCode.mtPositionX || event.code == AbsCode.mtPositionY {
        hasPosition = true
      }
      let endsReport = event.type == EventType.syn && (event.code == SynCode.mtReport || event.code == SynCode.report)
      guard endsReport else { continue }
      if hasPosition {
        let fate = next < fates.endIndex ? fates[next] : ReportFate(sequence: nil, dropped: true)
        next += 1
        if reportPasses(fate) {
          for e in events[reportStart..<index]
          where e.type == EventType.abs && e.code > AbsCode.mtSlot && e.code <= AbsCode.max {
            if written == 0 {
              switch e.code {
              case AbsCode.mtPositionX: (pointer.0, pointerSet.0) = (e.value, true)
              case AbsCode.mtPositionY: (pointer.1, pointerSet.1) = (e.value, true)
              case AbsCode.mtPressure: (pointer.2, pointerSet.2) = (e.value, true)
              default: break
              }
            }
            out.append(e)
          }
          emit(EventType.syn, SynCode.mtReport, 0, into: &out)
          written += 1
        }
      }
      hasPosition = false
      reportStart = index + 1
      guard event.code == SynCode.report else { continue }
      if written > 0 || cloneReports > 0 {
        if written == 0 { emit(EventType.syn, SynCode.mtReport, 0, into: &out) }
        writePointerAxis(AbsCode.x, pointer.0, pointerSet.0, into: &out)
        writePointerAxis(AbsCode.y, pointer.1, pointerSet.1, into: &out)
        writePointerAxis(AbsCode.pressure, pointer.2, pointerSet.2, into: &out)
        writeCounts(contacts: written, into: &out)
        emit(EventType.syn, SynCode.report, 0, into: &out)
      }
      cloneReports = written
      written = 0
      pointerSet = (false, false, false)
    }
  }

  private mutating func writePointerAxis(_ single: UInt16, _ value: Int32, _ isSet: Bool, into out: inout [RawEvent]) {
    guard isSet, singleAxes.contains(single), clone.axes[Int(single)] != value else { return }
    emit(EventType.abs, single, value, into: &out)
  }

  /// A protocol B frame's contacts judged, once `panel` has it: those that landed get their
  /// fate, those that became palms are dropped (and ended on the clone if it has them).
  /// Returns whether the frame involves a contact that is not forwarded.
  private mutating func judgeContacts(
    frameSequence: Int?, sequenceOfSlot: (Int) -> Int?, into out: inout [RawEvent]
  ) -> Bool {
    if fates.count > 4 * panel.slots + 64, held.isEmpty {
      fates.removeAll { !$0.down && $0.liftedInFrame != frameNumber }
    }
    for landing in landings {
      let s = Int(landing.slot)
      let down = panel.value(slot: s, AbsCode.mtTrackingID) == landing.trackingID
      let forwardedDown = fates.count { $0.down && !$0.dropped }
      let dropped =
        waking || isPalm(slot: s) || (policy.maximumContacts.map { forwardedDown >= $0 } ?? false)
      fates.append(
        Fate(
          slot: landing.slot, trackingID: landing.trackingID, sequence: sequenceOfSlot(s) ?? frameSequence,
          dropped: dropped, down: down, liftedInFrame: down ? 0 : frameNumber))
    }
    var filtered = false
    for f in fates.indices where fates[f].down || fates[f].liftedInFrame == frameNumber {
      if !fates[f].dropped, fates[f].down, isPalm(slot: Int(fates[f].slot)) {
        fates[f].dropped = true
        for r in held.indices { held[r].filtered = true }
        endAsPalm(fates[f], into: &out)
      }
      if fates[f].dropped { filtered = true }
    }
    return filtered
  }

  /// A contact the clone has that became a palm: MT_TOOL_PALM (which libinput turns into a
  /// touch cancel), then the end of its tracking id.
  private mutating func endAsPalm(_ fate: Fate, into out: inout [RawEvent]) {
    let s = Int(fate.slot)
    guard clone.value(slot: s, AbsCode.mtTrackingID) == fate.trackingID else { return }
    if clone.slot != fate.slot { emit(EventType.abs, AbsCode.mtSlot, fate.slot, into: &out) }
    emit(EventType.abs, AbsCode.mtToolType, ToolType.palm, into: &out)
    emit(EventType.syn, SynCode.report, 0, into: &out)
    emit(EventType.abs, AbsCode.mtTrackingID, -1, into: &out)
    if cloneAddsToolType { emit(EventType.abs, AbsCode.mtToolType, ToolType.finger, into: &out) }
    writeCounts(into: &out)
    emit(EventType.syn, SynCode.report, 0, into: &out)
    cloneMatchesPanel = false
  }

  /// A held sequence past `heldDurationLimit` or `heldFrameLimit` passes through.
  private mutating func boundHolding() {
    guard let front = held.first else { return }
    guard
      heldFrames >= ForwardPolicy.heldFrameLimit
        || timeNow.microseconds - front.start.microseconds >= ForwardPolicy.heldDurationLimit
    else { return }
    for sequence in front.sequences where decided(sequence) == nil { remember(sequence, .passThrough) }
  }

  /// Writes out the decided runs at the front, in order, until one is undecided.
  private mutating func flush(into out: inout [RawEvent]) {
    var done = 0
    var partly = false
    while done < held.count, held[done].sequences.allSatisfy({ decided($0) != nil }) {
      let run = held[done]
      let passes = run.sequences.count { decided($0) == .passThrough }
      if run.dropAll {
        partly = true
      } else if !run.filtered && passes == run.sequences.count {
        catchUp(to: run.before, into: &out)
        for event in run.events {
          clone.apply(event)
          out.append(event)
        }
        if protocolA { cloneReports = run.reportsAtEnd }
      } else if !run.filtered && passes == 0 {
        partly = true
      } else if protocolA {
        partly = true
        writeReports(run.events[...], fates: run.reportFates[...], into: &out)
      } else {
        partly = true
        writeFiltered(run.events[...], from: run.before, into: &out)
      }
      heldFrames -= run.frames
      done += 1
    }
    guard done > 0 else { return }
    held.removeFirst(done)
    // Everything read went out: the clone holds what the panel does.
    if held.isEmpty && !partly { cloneMatchesPanel = true }
  }

  /// Whether the contact `trackingID` in slot `s` goes to the clone: not dropped, and of a
  /// sequence that passes through. One the gate never saw land (down when the panel was
  /// opened) only if the clone has it.
  private func passes(slot s: Int, trackingID: Int32) -> Bool {
    guard let f = fateIndex(slot: Int32(s), trackingID: trackingID) else {
      return clone.value(slot: s, AbsCode.mtTrackingID) == trackingID
    }
    let fate = fates[f]
    if fate.dropped { return false }
    guard let sequence = fate.sequence else { return true }
    return decided(sequence) != .claimed
  }

  /// Frames starting from the panel state `start`, each without the events of contacts that
  /// do not go to the clone; BTN_TOUCH, the finger counts and ABS_X/ABS_Y then follow the
  /// clone's own contacts. A frame with nothing left for the clone is not written.
  private mutating func writeFiltered(
    _ events: ArraySlice<RawEvent>, from start: DeviceState, into out: inout [RawEvent]
  ) {
    var shadow = start
    var frameStart = out.count
    var skipped: UInt64 = 0
    for s in 0..<min(start.slots, 64) {
      let id = start.value(slot: s, AbsCode.mtTrackingID)
      // A slot without a contact that goes out is left as it is: one that starts there
      // gets its values at its frame's end.
      if id == -1 || !passes(slot: s, trackingID: id) { skipped |= 1 << UInt64(s) }
    }
    catchUp(to: start, into: &out, skipping: skipped, selectingSlot: false)
    for event in events {
      switch event.type {
      case EventType.abs where event.code > AbsCode.mtSlot && event.code <= AbsCode.max:
        let s = Int(shadow.slot)
        guard s >= 0, s < shadow.slots else { continue }
        let current = shadow.value(slot: s, AbsCode.mtTrackingID)
        shadow.apply(event)
        let goes: Bool
        if event.code == AbsCode.mtTrackingID {
          goes =
            event.value < 0
            ? clone.value(slot: s, AbsCode.mtTrackingID) == current && current != -1
            : passes(slot: s, trackingID: event.value)
        } else {
          goes = current != -1 && passes(slot: s, trackingID: current)
        }
        guard goes else { continue }
        if clone.slot != Int32(s) { emit(EventType.abs, AbsCode.mtSlot, Int32(s), into: &out) }
        clone.apply(event)
        out.append(event)
      case EventType.syn where event.code == SynCode.report:
        shadow.apply(event)
        guard out.count > frameStart else { continue }
        // The kernel does not repeat a value a slot already had, even for a new contact:
        // one that starts where a contact the clone never got was, gets its values here.
        for s in 0..<clone.slots {
          let id = clone.value(slot: s, AbsCode.mtTrackingID)
          guard id != -1, shadow.value(slot: s, AbsCode.mtTrackingID) == id else { continue }
          for code in slotAxes where clone.value(slot: s, code) != shadow.value(slot: s, code) {
            if clone.slot != Int32(s) { emit(EventType.abs, AbsCode.mtSlot, Int32(s), into: &out) }
            emit(EventType.abs, code, shadow.value(slot: s, code), into: &out)
          }
        }
        writePointer(into: &out)
        writeCounts(into: &out)
        emit(EventType.syn, SynCode.report, 0, into: &out)
        frameStart = out.count
      default:
        // Single-touch axes and buttons are written for the clone's contacts at the frame's
        // end; the rest (MSC) belongs to contacts that may not go out.
        shadow.apply(event)
      }
    }
  }

  /// ABS_X/ABS_Y (and ABS_PRESSURE) of the clone's first contact, as the kernel emulates a
  /// pointer.
  private mutating func writePointer(into out: inout [RawEvent]) {
    guard let s = (0..<clone.slots).first(where: { clone.value(slot: $0, AbsCode.mtTrackingID) != -1 }) else {
      return
    }
    for (single, multi) in [
      (AbsCode.x, AbsCode.mtPositionX), (AbsCode.y, AbsCode.mtPositionY), (AbsCode.pressure, AbsCode.mtPressure),
    ]
    where singleAxes.contains(single) && slotAxes.contains(multi) {
      let value = clone.value(slot: s, multi)
      if clone.axes[Int(single)] != value { emit(EventType.abs, single, value, into: &out) }
    }
  }

  /// BTN_TOUCH and the BTN_TOOL_* finger count for the contacts the clone has (`contacts`
  /// when its slots do not tell: protocol A).
  private mutating func writeCounts(contacts: Int? = nil, into out: inout [RawEvent]) {
    let count = contacts ?? (0..<clone.slots).count { clone.value(slot: $0, AbsCode.mtTrackingID) != -1 }
    func set(_ code: UInt16, _ down: Bool) {
      let value: Int32 = down ? 1 : 0
      if clone.keys[Int(code) - DeviceState.firstKey] != value { emit(EventType.key, code, value, into: &out) }
    }
    if hasTouchKey { set(KeyCode.btnTouch, count > 0) }
    let shown = min(count, countKeys.count)
    for (i, code) in countKeys.enumerated() { set(code, i + 1 == shown) }
  }

  /// Writes the values `target` has and the clone lacks (no tracking ids, no buttons), and
  /// leaves the clone on `target`'s current slot. `skipping` (a bit per slot) leaves out the
  /// slots of contacts that do not go to the clone; without `selectingSlot` the clone stays
  /// on whichever slot it was written last (filtered frames select slots as they write).
  private mutating func catchUp(
    to target: DeviceState, into out: inout [RawEvent], skipping: UInt64 = 0, selectingSlot: Bool = true
  ) {
    for code in singleAxes where clone.axes[Int(code)] != target.axes[Int(code)] {
      emit(EventType.abs, code, target.axes[Int(code)], into: &out)
    }
    guard hasSlots, !protocolA else { return }
    for s in 0..<clone.slots where s >= 64 || skipping & (1 << UInt64(s)) == 0 {
      for code in slotAxes where clone.value(slot: s, code) != target.value(slot: s, code) {
        if clone.slot != Int32(s) { emit(EventType.abs, AbsCode.mtSlot, Int32(s), into: &out) }
        emit(EventType.abs, code, target.value(slot: s, code), into: &out)
      }
    }
    if selectingSlot, clone.slot != target.slot { emit(EventType.abs, AbsCode.mtSlot, target.slot, into: &out) }
  }
}

extension RawEvent {
  var isReport: Bool { type == EventType.syn && code == SynCode.report }
}
