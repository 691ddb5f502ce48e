/// Protocol B and single touch: per-slot state, changed as events arrive.
///
/// Begins and moves are reported at SYN_REPORT, once the frame's positions are known. Ends
/// are recorded when they happen, because a slot can end one contact and start another
/// within one frame.
extension FrameAssembler {
  struct Slot: Sendable {
    enum State: UInt8, Sendable {
      /// No contact.
      case empty
      /// A contact went down in this frame; it is reported at SYN_REPORT.
      case pending
      /// A contact the caller knows about.
      case reported
      /// A pen, palm or cancelled contact: nothing about it is reported until it ends.
      case ignored
    }

    var state = State.empty
    var trackingID: Int32 = -1
    /// Last position the device sent for this slot. It outlives contacts: the kernel does
    /// not resend a value that did not change, even for a new tracking id.
    var x: Int32 = 0
    var y: Int32 = 0
    var reportedX: Int32 = 0
    var reportedY: Int32 = 0
    /// Also outlives contacts, for the same reason.
    var toolType: Int32 = ToolType.finger
    var contactID: UInt32 = 0

    /// Where `x` is in a slot, `y` right after it (`SlotEventKey.layoutHolds`).
    static let xOffset = MemoryLayout<Slot>.offset(of: \.x)!
  }

  @inline(__always)
  mutating func handleSlotAxis(code: UInt16, value: Int32) {
    if code == AbsCode.mtSlot {
      currentSlot = value >= 0 && Int(value) < slotCount ? Int(value) : -1
      return
    }
    let index = currentSlot
    guard index >= 0 else { return }
    switch code {
    case AbsCode.mtTrackingID:
      if value < 0 {
        endSlotContact(index)
      } else {
        startSlotContact(index, trackingID: value)
      }
    case AbsCode.mtPositionX:
      slots[index].x = value
      dirtySlots |= 1 << UInt64(index)
    case AbsCode.mtPositionY:
      slots[index].y = value
      dirtySlots |= 1 << UInt64(index)
    case AbsCode.mtToolType:
      setSlotToolType(index, value)
    case AbsCode.mtTouchMajor:
      setSlotTouchMajor(index, value)
    default:
      break
    }
  }

  /// A touch-major at or above `palm-size` makes the slot's contact a palm, as if the
  /// panel labelled it one (the label it gave comes back when the size goes below).
  mutating func setSlotTouchMajor(_ index: Int, _ value: Int32) {
    let bit: UInt64 = 1 << UInt64(index)
    if value >= palmMajorLimit {
      guard palmSized & bit == 0 else { return }
      palmSized |= bit
      slots[index].toolType = ToolType.palm
      guard slots[index].state == .reported else { return }
      _ = writableStorage()
      record(slots[index].contactID, .cancelled, x: slots[index].x, y: slots[index].y)
      slots[index].state = .ignored
    } else if palmSized & bit != 0 {
      palmSized &= ~bit
      slots[index].toolType = labelledIgnored & bit != 0 ? ToolType.pen : ToolType.finger
    }
  }

  /// The events that make most of a protocol B stream, from `events[start...]`: slot
  /// selections, positions and the axes it ignores, the same as `feed` on each, without
  /// its tests per event (the protocol, a frame to empty, a drop in progress) and with the
  /// slot and the touched slots in registers. Stops at the first other event (a frame's
  /// end, a contact's start or end, a tool type) or the first stamped after `latest`
  /// (something falls due before it); returns its index, for `feed`.
  @inline(__always)  // Into the engine's loop, its one caller.
  mutating func takeSlotPositions(_ events: UnsafeBufferPointer<RawEvent>, from start: Int, latest: Int64) -> Int {
    guard !droppingUntilReport, start < events.count, let first = events.baseAddress else { return start }
    startFrameIfDelivered()
    var slot = currentSlot
    var dirty = dirtySlots
    let slotCount = slotCount
    // Read in place: each event's time, its type and code as one number (`SlotEventKey`),
    // and its value, at their offsets (checked with `SlotEventKey.layoutHolds`).
    var event = UnsafeRawPointer(first + start)
    let end = UnsafeRawPointer(first + events.count)
    scan: while event < end {
      guard event.load(as: Int64.self) <= latest else { break }
      let key = event.load(fromByteOffset: SlotEventKey.offset, as: UInt32.self)
      let value = event.load(fromByteOffset: SlotEventKey.valueOffset, as: Int32.self)
      // A position (x or y, adjacent codes) in one test. The slot is tested as an index of
      // `slots` (-1 fails it), which spares the subscript's own bounds check.
      if (key &- SlotEventKey.positionX) & ~SlotEventKey.axisStep == 0 {
        if slots.indices.contains(slot) {
          if key == SlotEventKey.positionX { slots[slot].x = value } else { slots[slot].y = value }
          dirty |= 1 << UInt64(slot)
        }
      } else if key == SlotEventKey.slot {
        slot = Int(UInt32(bitPattern: value)) < slotCount ? Int(value) : -1
      } else if (key &- SlotEventKey.singleTouchX) & ~SlotEventKey.axisStep == 0 {
        // The single-touch position a multitouch panel sends beside its slots: ignored.
      } else {
        let type = event.load(fromByteOffset: SlotEventKey.offset, as: UInt16.self)
        let code = event.load(fromByteOffset: SlotEventKey.offset + 2, as: UInt16.self)
        if type == EventType.abs {
          switch code {
          case AbsCode.mtTrackingID, AbsCode.mtToolType, AbsCode.mtTouchMajor: break scan
          default: break
          }
        } else if type != EventType.msc {
          break
        }
      }
      event += MemoryLayout<RawEvent>.stride
    }
    currentSlot = slot
    dirtySlots = dirty
    // A whole number of events from `first`: the shift needs no rounding toward zero.
    return Int(bitPattern: UInt(bitPattern: event - UnsafeRawPointer(first)) / UInt(MemoryLayout<RawEvent>.stride))
  }

  @inline(__always)
  mutating func handleSingleTouchAxis(code: UInt16, value: Int32) {
    switch code {
    case AbsCode.x:
      slots[0].x = value
      dirtySlots |= 1
    case AbsCode.y:
      slots[0].y = value
      dirtySlots |= 1
    default:
      break
    }
  }

  mutating func handleSingleTouchButton(down: Bool) {
    if down {
      // A repeated press (or autorepeat, value 2) while down is the same contact.
      guard slots[0].state == .empty else { return }
      slots[0].state = .pending
      slots[0].trackingID = 0
      dirtySlots |= 1
    } else {
      endSlotContact(0)
    }
  }

  mutating func startSlotContact(_ index: Int, trackingID: Int32) {
    if slots[index].state != .empty, slots[index].trackingID == trackingID { return }
    endSlotContact(index)
    slots[index].trackingID = trackingID
    slots[index].state = .pending
    dirtySlots |= 1 << UInt64(index)
  }

  mutating func endSlotContact(_ index: Int) {
    let slot = slots[index]
    switch slot.state {
    case .empty, .ignored:
      break
    case .pending:
      // Down and up within one frame (eGalax does this): still a touch, reported whole.
      if !Self.isIgnoredTool(slot.toolType), transientsInFrame < transientLimit {
        _ = writableStorage()
        transientsInFrame += 1
        let id = takeContactID()
        record(id, .began, x: slot.x, y: slot.y)
        record(id, .ended, x: slot.x, y: slot.y)
      }
    case .reported:
      _ = writableStorage()
      record(slot.contactID, .ended, x: slot.x, y: slot.y)
    }
    slots[index].state = .empty
    slots[index].trackingID = -1
  }

  /// A contact not yet reported is judged by its tool type at SYN_REPORT (drivers send
  /// the tracking id before the tool type). A reported contact that becomes a pen or palm is
  /// cancelled and ignored from then on, even if it turns back into a finger.
  /// While the slot is palm-sized the contact stays a palm; the label is kept for after.
  mutating func setSlotToolType(_ index: Int, _ toolType: Int32) {
    let bit: UInt64 = 1 << UInt64(index)
    if Self.isIgnoredTool(toolType) { labelledIgnored |= bit } else { labelledIgnored &= ~bit }
    guard palmSized & bit == 0 else { return }
    slots[index].toolType = toolType
    guard Self.isIgnoredTool(toolType), slots[index].state == .reported else { return }
    let slot = slots[index]
    _ = writableStorage()
    record(slot.contactID, .cancelled, x: slot.x, y: slot.y)
    slots[index].state = .ignored
  }

  /// The contact id of the contact reported in protocol B slot `index`, if any.
  func reportedContact(inSlot index: Int) -> UInt32? {
    guard mode == .slots, index >= 0, index < slotCount, slots[index].state == .reported else { return nil }
    return slots[index].contactID
  }

  /// SYN_REPORT: report what went down and what moved, in slot order.
  mutating func commitSlots() {
    var dirty = dirtySlots
    dirtySlots = 0
    while dirty != 0 {
      let index = dirty.trailingZeroBitCount
      dirty &= dirty &- 1
      let slot = slots[index]
      switch slot.state {
      case .pending:
        if Self.isIgnoredTool(slot.toolType) {
          slots[index].state = .ignored
          break
        }
        let id = takeContactID()
        record(id, .began, x: slot.x, y: slot.y)
        slots[index].contactID = id
        slots[index].state = .reported
        slots[index].reportedX = slot.x
        slots[index].reportedY = slot.y
      case .reported:
        guard slot.x != slot.reportedX || slot.y != slot.reportedY else { break }
        record(slot.contactID, .moved, x: slot.x, y: slot.y)
        slots[index].reportedX = slot.x
        slots[index].reportedY = slot.y
      case .empty, .ignored:
        break
      }
    }
  }

  mutating func cancelAllSlots() {
    for index in 0..<slotCount {
      let slot = slots[index]
      switch slot.state {
      case .empty, .ignored:
        break
      case .pending:
        slots[index].state = .ignored
      case .reported:
        record(slot.contactID, .cancelled, x: slot.x, y: slot.y)
        slots[index].state = .ignored
      }
    }
    dirtySlots = 0
  }
}
