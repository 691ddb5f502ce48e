import CEvdev
import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// A device's state as the events passed on left it, kept beside libevdev's so that reading
/// calls into libevdev for nothing: `admit(_:)` drops and caps what libevdev's own reading
/// drops and caps, and libevdev's view is brought up to date (`push(to:)`) only before
/// libevdev reads it (its resync after a SYN_DROPPED, the positions a new engine starts from,
/// a clone's axes), and read back (`pull(from:)`) after its resync.
///
/// Its storage is allocated once, at open; nothing is allocated per event.
final class EvdevStateMirror {
  /// Codes per event type in the tables (KEY_CNT, the largest type).
  private static let codesPerType = Int(KEY_CNT)
  private static let wordsPerType = codesPerType / 64
  private static let typeCount = Int(EV_CNT)
  /// libevdev's per-slot axes: ABS_MT_SLOT (the slot itself, never stored) to ABS_MT_TOOL_Y.
  private static let firstSlotAxis = Int(ABS_MT_SLOT)
  private static let lastSlotAxis = Int(ABS_MT_TOOL_Y)
  private static let slotAxes = lastSlotAxis - firstSlotAxis + 1
  /// Where the key, LED and switch states start in `states`.
  private static let keyWords = 0
  private static let ledWords = wordsPerType
  private static let switchWords = 2 * wordsPerType

  /// Whether libevdev has each (type, code): `typeCount` × `codesPerType` bits.
  private let supported: UnsafeMutablePointer<UInt64>
  /// Each ABS code's value (for a per-slot axis of a device with slots: the current slot's).
  private let absolute: UnsafeMutablePointer<Int32>
  /// Each slot's per-slot axes, `slotAxes` a slot.
  private let slotValues: UnsafeMutablePointer<Int32>
  /// Key, LED and switch states, one bit each.
  private let states: UnsafeMutablePointer<UInt64>
  /// The current slot, -1 on a device without slots (in memory rather than a property, so
  /// that setting it per event costs no exclusivity check).
  private let current: UnsafeMutablePointer<Int32>
  /// ABS_MT_SLOT's maximum + 1 on a device with slots, -1 without (libevdev's count).
  let slotCount: Int32
  private let devnode: String
  private let logger: Logger?

  /// The state libevdev read at open (`libevdev_set_fd`). `logger` gets the device bugs
  /// libevdev would log (a double tracking id, a slot beyond the device's).
  init(libevdev handle: OpaquePointer, devnode: String, logger: Logger?) {
    self.devnode = devnode
    self.logger = logger
    let words = Self.typeCount * Self.wordsPerType
    supported = .allocate(capacity: words)
    supported.initialize(repeating: 0, count: words)
    for type in 0..<Self.typeCount where libevdev_has_event_type(handle, UInt32(type)) != 0 {
      for code in 0..<Self.codesPerType where libevdev_has_event_code(handle, UInt32(type), UInt32(code)) != 0 {
        supported[type * Self.wordsPerType + code / 64] |= Self.bit(code)
      }
    }
    slotCount = libevdev_get_num_slots(handle)
    absolute = .allocate(capacity: Int(ABS_CNT))
    absolute.initialize(repeating: 0, count: Int(ABS_CNT))
    let slotStorage = max(Int(slotCount), 0) * Self.slotAxes
    slotValues = .allocate(capacity: max(slotStorage, 1))
    slotValues.initialize(repeating: 0, count: max(slotStorage, 1))
    states = .allocate(capacity: 3 * Self.wordsPerType)
    states.initialize(repeating: 0, count: 3 * Self.wordsPerType)
    current = .allocate(capacity: 1)
    current.initialize(to: -1)
    pull(from: handle)
  }

  deinit {
    supported.deallocate()
    absolute.deallocate()
    slotValues.deallocate()
    states.deallocate()
    current.deallocate()
  }

  @inline(__always)
  private func has(_ type: Int, _ code: Int) -> Bool {
    guard type < Self.typeCount, code < Self.codesPerType else { return false }
    return supported[type * Self.wordsPerType + code / 64] & Self.bit(code) != 0
  }

  @inline(__always)
  private func isSlotAxis(_ code: Int) -> Bool { code > Self.firstSlotAxis && code <= Self.lastSlotAxis }

  /// Where slot `slot`'s value of the per-slot axis `code` is kept.
  @inline(__always)
  private func slotValue(_ slot: Int, _ code: Int) -> UnsafeMutablePointer<Int32> {
    slotValues + slot * Self.slotAxes + code - Self.firstSlotAxis
  }

  /// The bit of `code` in its word of a bit table.
  @inline(__always)
  private static func bit(_ code: Int) -> UInt64 { 1 << UInt64(code % 64) }

  @inline(__always)
  private func stateWords(of type: Int) -> Int {
    switch Int32(type) {
    case EV_KEY: Self.keyWords
    case EV_LED: Self.ledWords
    default: Self.switchWords
    }
  }

  /// Whether `event` is passed on, as libevdev's reading would pass it, and the state it
  /// leaves; a slot beyond the device's is capped to its last in `event` itself. An event
  /// of a type or code the device does not have is dropped, and so is a tracking id that
  /// does not go from -1 to a contact or back.
  @inline(__always)
  func admit(_ event: inout input_event) -> Bool {
    let type = Int(event.type)
    let code = Int(event.code)
    guard has(type, code) else { return false }
    switch Int32(type) {
    case EV_ABS:
      let slots = slotCount
      if slots > 0 && code == Int(ABS_MT_SLOT) {
        if event.value < 0 || event.value >= slots {
          logger?.warning(
            "\(devnode): the device sent an invalid slot index \(event.value) (a device bug): read as its last, \(slots - 1)"
          )
          event.value = slots - 1
        }
        current.pointee = event.value
      } else if slots > 0 && code == Int(ABS_MT_TRACKING_ID) {
        let slot = Int(current.pointee)
        let contact = slotValue(slot, code).pointee
        guard (event.value == -1) != (contact == -1) else {
          logger?.warning(
            "\(devnode): the device sent a double tracking ID \(event.value) in slot \(slot) (a device bug): dropped")
          return false
        }
      }
      absolute[code] = event.value
      if isSlotAxis(code), current.pointee >= 0 {
        slotValue(Int(current.pointee), code).pointee = event.value
      }
    case EV_KEY, EV_LED, EV_SW:
      let word = states + stateWords(of: type) + code / 64
      if event.value != 0 { word.pointee |= Self.bit(code) } else { word.pointee &= ~Self.bit(code) }
    default:
      break
    }
    return true
  }

  /// Sets libevdev's view to this state: every slot's axes, then the current slot (which
  /// libevdev copies to its per-slot axes' values), then the other axes, keys, LEDs and
  /// switches.
  func push(to handle: OpaquePointer) {
    let abs = Int(EV_ABS)
    if slotCount > 0 {
      for slot in 0..<Int(slotCount) {
        for code in (Self.firstSlotAxis + 1)...Self.lastSlotAxis where has(abs, code) {
          libevdev_set_slot_value(handle, UInt32(slot), UInt32(code), slotValue(slot, code).pointee)
        }
      }
      libevdev_set_event_value(handle, UInt32(abs), UInt32(ABS_MT_SLOT), current.pointee)
    }
    for code in 0..<Int(ABS_CNT) where has(abs, code) {
      if slotCount > 0 && code >= Self.firstSlotAxis && code <= Self.lastSlotAxis { continue }
      libevdev_set_event_value(handle, UInt32(abs), UInt32(code), absolute[code])
    }
    for type in [Int(EV_KEY), Int(EV_LED), Int(EV_SW)] {
      let words = states + stateWords(of: type)
      for code in 0..<Self.codesPerType where has(type, code) {
        let on = words[code / 64] & Self.bit(code) != 0
        libevdev_set_event_value(handle, UInt32(type), UInt32(code), on ? 1 : 0)
      }
    }
  }

  /// Takes libevdev's view as this state (at open, and after libevdev's resync).
  func pull(from handle: OpaquePointer) {
    let abs = Int(EV_ABS)
    current.pointee = slotCount > 0 ? libevdev_get_current_slot(handle) : -1
    for code in 0..<Int(ABS_CNT) where has(abs, code) {
      absolute[code] = libevdev_get_event_value(handle, UInt32(abs), UInt32(code))
    }
    if slotCount > 0 {
      for slot in 0..<Int(slotCount) {
        for code in (Self.firstSlotAxis + 1)...Self.lastSlotAxis where has(abs, code) {
          slotValue(slot, code).pointee = libevdev_get_slot_value(handle, UInt32(slot), UInt32(code))
        }
      }
    }
    for type in [Int(EV_KEY), Int(EV_LED), Int(EV_SW)] {
      let words = states + stateWords(of: type)
      for code in 0..<Self.codesPerType where has(type, code) {
        if libevdev_get_event_value(handle, UInt32(type), UInt32(code)) != 0 {
          words[code / 64] |= Self.bit(code)
        } else {
          words[code / 64] &= ~Self.bit(code)
        }
      }
    }
  }
}
