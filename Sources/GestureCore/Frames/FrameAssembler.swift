/// Raw evdev events → one `TouchFrame` of contact changes per SYN_REPORT.
///
/// Speaks the three ways touch panels report: multitouch protocol B (slots and tracking ids),
/// protocol A (anonymous contacts separated by SYN_MT_REPORT, followed from frame to frame
/// here) and single touch (ABS_X/ABS_Y with BTN_TOUCH or BTN_LEFT). Protocol B and single
/// touch share the slot machinery (a single-touch panel is one slot whose button plays the
/// tracking id); protocol A has its own, in FrameAssembler+ProtocolA.swift.
///
/// All storage is sized at init, so feeding events never allocates.
public struct FrameAssembler: Sendable {
  /// Most contacts followed at once. Panels report at most a few dozen; slots beyond this
  /// are treated as out of range, protocol A reports beyond it are ignored.
  public static let maximumContacts = 64

  /// The last completed frame, valid from a `true` return until the next call; made anew
  /// (an allocation) at each read, for observers and tests: the engine reads
  /// `frameChanges`.
  public var frame: TouchFrame { TouchFrame(time: frameTime, changes: Array(frameChanges)) }
  /// The last completed frame's time (its SYN_REPORT's).
  public private(set) var frameTime = Timestamp(microseconds: 0)
  /// The last completed frame's changes, valid from a `true` return until the next call.
  var frameChanges: UnsafeBufferPointer<ContactChange> {
    UnsafeBufferPointer(start: storage.changes, count: changeCount)
  }

  /// Contacts currently down as of the last frame handed out (not counting ignored pen/palm
  /// or cancelled contacts).
  @inlinable public var activeContacts: Int { activeCount }

  enum Mode: Sendable, Equatable {
    /// Protocol B.
    case slots
    /// ABS_X/ABS_Y, contact while `button` is down; uses slot 0.
    case singleTouch(button: UInt16)
    /// Protocol A.
    case anonymous
    /// The device reports no position; nothing is ever reported.
    case inert
  }

  let mode: Mode
  let geometry: PanelGeometry
  /// `PalmRule.majorLimit`: a contact whose touch-major reaches it is a palm, ignored as
  /// one the panel labels MT_TOOL_PALM.
  let palmMajorLimit: Int32

  var nextContactID: UInt32 = 1
  @usableFromInline var activeCount = 0
  /// Ids from here on were handed out in the frame being assembled and not yet delivered.
  var firstContactIDOfFrame: UInt32 = 1
  /// `frame` was returned to the caller and must be emptied before the next frame starts.
  var frameIsDelivered = false
  /// After SYN_DROPPED: everything up to and including the next SYN_REPORT is dropped.
  var droppingUntilReport = false

  // Protocol B and single touch.
  /// Inline rather than an array: every position event writes a slot, and an array's write
  /// pays a uniqueness check each time. `slotCount` of them are in use.
  var slots: InlineArray<64, Slot>
  let slotCount: Int
  /// One bit per slot whose last ABS_MT_TOUCH_MAJOR is at least `palm-size` (it outlives
  /// contacts, as positions do): its tool type reads MT_TOOL_PALM meanwhile.
  var palmSized: UInt64 = 0
  /// One bit per slot the panel labels a pen or palm, whatever its size.
  var labelledIgnored: UInt64 = 0
  /// -1 after an ABS_MT_SLOT out of range: that slot's events are dropped.
  var currentSlot = 0
  /// One bit per slot touched since the last frame (slots are capped at 64 for this).
  var dirtySlots: UInt64 = 0
  /// Contacts that went down and up inside one frame, so far in this frame.
  var transientsInFrame = 0
  /// Bound on those, so that `frame.changes` never outgrows what init reserved.
  let transientLimit: Int

  /// The frame's changes (`changeCount` of them) and protocol A's contacts.
  var storage: FrameStorage
  var changeCount = 0
  /// Contacts begun less contacts ended or cancelled among those changes, not yet in
  /// `activeCount`: kept as they are recorded (for most changes, moves, it costs nothing)
  /// instead of counted over the changes at every frame.
  var activeChangeOfFrame = 0

  // Protocol A.
  /// In `storage`: the contacts of the last frame and of the one being reported.
  var previousCount = 0
  var reportedCount = 0
  var matcher: ContactMatcher
  var pendingReport = PendingReport()
  /// A lower bound on the distance in device units between any two of the last frame's
  /// contacts (0: none known), for `continuesInOrder`.
  var spacingFloor = 0.0

  /// `palm`: nil judges palms by the panel's MT_TOOL_PALM label alone.
  public init(device: DeviceDescription, geometry: PanelGeometry, palm: PalmRule? = nil) {
    self.geometry = geometry
    palmMajorLimit = palm?.majorLimit ?? .max
    let slotCount: Int
    switch device.touchProtocol {
    case .multitouchB(let slots):
      mode = .slots
      slotCount = min(max(slots, 1), Self.maximumContacts)
    case .singleTouch(let button):
      mode = .singleTouch(button: button)
      slotCount = 1
    case .multitouchA:
      mode = .anonymous
      slotCount = 0
    case nil:
      mode = .inert
      slotCount = 0
    }
    precondition(SlotEventKey.layoutHolds, "RawEvent or Slot no longer lay out what SlotEventKey reads")
    slots = InlineArray(repeating: Slot())
    self.slotCount = slotCount
    let anonymousCount = mode == .anonymous ? Self.maximumContacts : 0
    matcher = ContactMatcher(capacity: anonymousCount)

    // Per slot and frame at most: the end of a contact from an earlier frame, one contact
    // both beginning and ending (counted by transientLimit), and the begin of a new one.
    // Protocol A: every previous contact ends and every reported one begins.
    transientLimit = slotCount
    storage = FrameStorage(changeCapacity: max(4 * slotCount, 2 * anonymousCount, 4), contactCapacity: anonymousCount)
  }

  /// `storage`, copied first if another assembler shares it (a copied engine). Called
  /// once by every entry point that writes it, before it writes.
  @inline(__always)
  mutating func writableStorage() -> FrameStorage {
    if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    return storage
  }

  /// Feeds one raw event. Returns true when a SYN_REPORT completed a frame that has at least
  /// one change; `frame` then holds it (time = the SYN_REPORT's time) until the next call.
  /// Inlined into the engine, with the axis handlers: it runs for every raw event, and the
  /// calls cost more than the work of most events (storing one coordinate).
  @inline(__always)
  public mutating func feed(_ event: RawEvent) -> Bool { feed(event, as: mode) }

  /// `feed` where the caller passes `mode`: the engine's batch loop switches on it once
  /// per batch, so that each event's path holds no test of it.
  @inline(__always)
  mutating func feed(_ event: RawEvent, as mode: Mode) -> Bool {
    startFrameIfDelivered()
    if droppingUntilReport {
      if event.type == EventType.syn, event.code == SynCode.report {
        droppingUntilReport = false
      }
      return false
    }
    // Position events first: they are most of the stream.
    if event.type == EventType.abs {
      switch mode {
      case .slots: handleSlotAxis(code: event.code, value: event.value)
      case .singleTouch: handleSingleTouchAxis(code: event.code, value: event.value)
      case .anonymous: handleAnonymousAxis(code: event.code, value: event.value)
      case .inert: break
      }
      return false
    }
    switch event.type {
    case EventType.syn:
      switch event.code {
      case SynCode.report:
        return completeFrame(at: event.time)
      case SynCode.mtReport:
        if mode == .anonymous { endAnonymousReport() }
      case SynCode.dropped:
        droppingUntilReport = true
        // Protocol A sends the whole state every frame: a partial one is worthless.
        // Slot state is kept: the events before the drop did happen.
        if mode == .anonymous { discardAnonymousReports() }
      default:
        break
      }
    case EventType.key:
      if case .singleTouch(let button) = mode, event.code == button {
        handleSingleTouchButton(down: event.value != 0)
      }
    default:
      break
    }
    return false
  }

  /// Ends every contact still down with phase .cancelled (end of recording, device gone);
  /// returns true when there was any (then `frame` holds them, time = `time`).
  ///
  /// Cancelled contacts stay ignored until the device ends them (their tracking id ends,
  /// the button lifts, protocol A stops reporting them).
  public mutating func cancelAll(at time: Timestamp) -> Bool {
    startFrameIfDelivered()
    _ = writableStorage()
    cancelChangesOfIncompleteFrame()
    switch mode {
    case .slots, .singleTouch: cancelAllSlots()
    case .anonymous: cancelAllAnonymous()
    case .inert: break
    }
    return deliverFrame(at: time)
  }

  // MARK: - Frames

  /// Every event (and a cancel) starts by emptying the frame last handed out.
  @inline(__always)
  mutating func startFrameIfDelivered() {
    if frameIsDelivered {
      changeCount = 0
      frameIsDelivered = false
    }
  }

  mutating func completeFrame(at time: Timestamp) -> Bool {
    _ = writableStorage()
    switch mode {
    case .slots, .singleTouch: commitSlots()
    case .anonymous: commitAnonymousFrame()
    case .inert: break
    }
    return deliverFrame(at: time)
  }

  mutating func deliverFrame(at time: Timestamp) -> Bool {
    firstContactIDOfFrame = nextContactID
    transientsInFrame = 0
    guard changeCount > 0 else { return false }
    // Counted on delivery, so the count always agrees with the frames handed out.
    activeCount += activeChangeOfFrame
    activeChangeOfFrame = 0
    frameTime = time
    frameIsDelivered = true
    return true
  }

  /// Changes already recorded for a frame whose SYN_REPORT has not come: contacts that began
  /// in it were never seen by anyone and vanish; ends become cancellations, since the lift
  /// was never confirmed.
  mutating func cancelChangesOfIncompleteFrame() {
    let newInFrame = nextContactID &- firstContactIDOfFrame
    let changes = storage.changes
    var kept = 0
    for index in 0..<changeCount {
      var change = changes[index]
      if change.id &- firstContactIDOfFrame < newInFrame {
        // Vanishes, and so does what it counted.
        switch change.phase {
        case .began: activeChangeOfFrame -= 1
        case .moved: break
        case .ended, .cancelled: activeChangeOfFrame += 1
        }
        continue
      }
      if change.phase == .ended { change.phase = .cancelled }
      changes[kept] = change
      kept += 1
    }
    changeCount = kept
  }

  mutating func takeContactID() -> UInt32 {
    let id = nextContactID
    nextContactID &+= 1
    return id
  }

  /// Appends a change to the frame. Only after `writableStorage()` in the same call; the
  /// bounds at init keep a frame within `changeCapacity` (checked all the same: past it
  /// would write outside the buffer).
  mutating func record(_ id: UInt32, _ phase: ContactPhase, x: Int32, y: Int32) {
    precondition(changeCount < storage.changeCapacity, "a frame outgrew its bound")
    storage.changes[changeCount] = ContactChange(id: id, phase: phase, position: geometry.userPoint(x: x, y: y))
    changeCount += 1
    switch phase {
    case .began: activeChangeOfFrame += 1
    case .moved: break
    case .ended, .cancelled: activeChangeOfFrame -= 1
    }
  }

  static func isIgnoredTool(_ toolType: Int32) -> Bool {
    toolType == ToolType.pen || toolType == ToolType.palm
  }

  /// The absolute axes this assembler reads; with EV_SYN and every key, they are all it
  /// needs, so a reader that does nothing else with the device may ask the kernel to keep
  /// the other events back. The kernel then drops a frame left with nothing but its
  /// SYN_REPORT, which changes nothing here for slots (a lift is a tracking id) or single
  /// touch (its button). nil for protocol A: a frame with no contact reported is its lift,
  /// and it may hold nothing else (a pressure falling to 0), so no frame may be dropped; and
  /// for a device with no position.
  public var axesRead: [UInt16]? {
    switch mode {
    case .slots:
      [
        AbsCode.mtSlot, AbsCode.mtTrackingID, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtToolType,
        AbsCode.mtTouchMajor,
      ]
    case .singleTouch: [AbsCode.x, AbsCode.y]
    case .anonymous, .inert: nil
    }
  }
}

/// How `takeSlotPositions` reads an event's type and code: as one 32-bit number where they
/// lie side by side in a `RawEvent`, so that a position or a slot selection is one
/// comparison rather than a test of the type and then of the code.
enum SlotEventKey {
  /// Where the type is in a `RawEvent`, the code right after it (`layoutHolds`).
  static let offset = 8
  /// Where the value is in a `RawEvent`; its time is first.
  static let valueOffset = 12

  /// What is read at `offset` of an event of `type` and `code`.
  static func of(type: UInt16, code: UInt16) -> UInt32 {
    #if _endian(little)
      UInt32(type) | UInt32(code) << 16
    #else
      UInt32(type) << 16 | UInt32(code)
    #endif
  }

  static let positionX = of(type: EventType.abs, code: AbsCode.mtPositionX)
  /// The y position's key less the x position's: one bit, their codes being adjacent.
  static let axisStep = of(type: EventType.abs, code: AbsCode.mtPositionY) &- positionX
  static let slot = of(type: EventType.abs, code: AbsCode.mtSlot)
  /// The single-touch x position's key; y's is `axisStep` more.
  static let singleTouchX = of(type: EventType.abs, code: AbsCode.x)

  /// Whether a `RawEvent` holds its time, type, code and value where `offset` and
  /// `valueOffset` say, as `of` reads them, and a slot its y right after its x.
  static var layoutHolds: Bool {
    guard MemoryLayout<RawEvent>.offset(of: \.type) == offset, MemoryLayout<RawEvent>.offset(of: \.code) == offset + 2,
      MemoryLayout<RawEvent>.offset(of: \.value) == valueOffset,
      MemoryLayout<RawEvent>.offset(of: \.time) == 0, MemoryLayout<Timestamp>.size == MemoryLayout<Int64>.size,
      MemoryLayout<RawEvent>.stride % 4 == 0, axisStep.nonzeroBitCount == 1,
      of(type: EventType.abs, code: AbsCode.y) &- singleTouchX == axisStep,
      MemoryLayout<FrameAssembler.Slot>.offset(of: \.y) == FrameAssembler.Slot.xOffset + MemoryLayout<Int32>.stride
    else { return false }
    let event = RawEvent(time: Timestamp(microseconds: 0), type: EventType.abs, code: AbsCode.mtSlot, value: 0)
    return withUnsafeBytes(of: event) { $0.load(fromByteOffset: offset, as: UInt32.self) } == slot
  }
}
