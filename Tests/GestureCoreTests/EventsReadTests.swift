import Testing

@testable import GestureCore

/// `FrameAssembler.axesRead` is what the daemon asks the kernel to keep sending, with EV_SYN
/// and every key (EVIOCSMASK), when recognition alone reads a panel: the events outside it
/// must not change what is recognized. Each protocol's stream is recognized with the events
/// a real panel adds (legacy single-touch axes, pressure, BTN_TOOL_*, MSC_TIMESTAMP), as the
/// kernel passes it under the mask (a frame left with only its SYN_REPORT dropped whole),
/// and without the additions; all must fire the same, palms included.
@Suite("The events recognition reads")
struct EventsReadTests {
  private static let millimetre: Int32 = 20
  private static let extraKeys: [UInt16] = [KeyCode.btnTouch, 0x145, 0x14d]  // BTN_TOOL_FINGER, BTN_TOOL_DOUBLETAP
  private static let mtPressure = AbsCode.mtPressure
  private static let mtTouchMinor: UInt16 = 0x31
  private static let mscTimestamp: UInt16 = 0x05

  private func axis(_ maximum: Int32) -> AxisInfo {
    AxisInfo(minimum: 0, maximum: maximum, resolution: Self.millimetre)
  }

  /// A 200 × 100 mm panel of `protocolKind` (B, A or single touch), with the axes and keys real panels add.
  private func device(_ protocolKind: String) -> DeviceDescription {
    var axes: [UInt16: AxisInfo] = [
      AbsCode.x: axis(4000), AbsCode.y: axis(2000), AbsCode.pressure: AxisInfo(minimum: 0, maximum: 255),
    ]
    var keys: Set<UInt16> = Set(Self.extraKeys)
    switch protocolKind {
    case "B":
      axes[AbsCode.mtSlot] = AxisInfo(minimum: 0, maximum: 9)
      axes[AbsCode.mtTrackingID] = AxisInfo(minimum: 0, maximum: 65535)
      fallthrough
    case "A":
      axes[AbsCode.mtPositionX] = axis(4000)
      axes[AbsCode.mtPositionY] = axis(2000)
      axes[AbsCode.mtTouchMajor] = axis(2000)
      axes[Self.mtPressure] = AxisInfo(minimum: 0, maximum: 255)
      axes[Self.mtTouchMinor] = axis(2000)
    default:
      keys = [KeyCode.btnTouch, 0x145]
    }
    return DeviceDescription(
      name: "Panel \(protocolKind)", vendor: 1, product: 2, properties: [InputProperty.direct], keys: keys, axes: axes)
  }

  /// A contact's position at one frame, in millimetres; `major` its touch-major in mm.
  private struct Contact {
    var id: Int
    var x: Double
    var y: Double
    var major: Double = 8
  }

  /// Frames (time in ms, contacts down) written as the protocol's events, with or without
  /// the events recognition does not read.
  private func events(_ protocolKind: String, _ frames: [(ms: Double, contacts: [Contact])], extras: Bool)
    -> [RawEvent]
  {
    var out: [RawEvent] = []
    var slots: [Int: Int32] = [:]
    var wasDown = false
    func emit(_ ms: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) {
      out.append(RawEvent(time: Timestamp(microseconds: Int64(ms * 1000)), type: type, code: code, value: value))
    }
    func units(_ mm: Double) -> Int32 { Int32((mm * Double(Self.millimetre)).rounded()) }
    for (ms, contacts) in frames {
      let down = !contacts.isEmpty
      switch protocolKind {
      case "B":
        for (id, slot) in slots where !contacts.contains(where: { $0.id == id }) {
          emit(ms, EventType.abs, AbsCode.mtSlot, slot)
          emit(ms, EventType.abs, AbsCode.mtTrackingID, -1)
          slots[id] = nil
        }
        for contact in contacts {
          var slot = slots[contact.id] ?? -1
          if slot < 0 {
            slot = 0
            while slots.values.contains(slot) { slot += 1 }
            slots[contact.id] = slot
            emit(ms, EventType.abs, AbsCode.mtSlot, slot)
            emit(ms, EventType.abs, AbsCode.mtTrackingID, Int32(100 + contact.id))
          } else {
            emit(ms, EventType.abs, AbsCode.mtSlot, slot)
          }
          emit(ms, EventType.abs, AbsCode.mtPositionX, units(contact.x))
          if extras { emit(ms, EventType.abs, Self.mtPressure, 40) }
          emit(ms, EventType.abs, AbsCode.mtPositionY, units(contact.y))
          emit(ms, EventType.abs, AbsCode.mtTouchMajor, units(contact.major))
          if extras { emit(ms, EventType.abs, Self.mtTouchMinor, units(contact.major / 2)) }
        }
      case "A":
        for contact in contacts {
          emit(ms, EventType.abs, AbsCode.mtPositionX, units(contact.x))
          emit(ms, EventType.abs, AbsCode.mtPositionY, units(contact.y))
          emit(ms, EventType.abs, AbsCode.mtTouchMajor, units(contact.major))
          if extras { emit(ms, EventType.abs, Self.mtPressure, 40) }
          emit(ms, EventType.syn, SynCode.mtReport, 0)
        }
        if contacts.isEmpty { emit(ms, EventType.syn, SynCode.mtReport, 0) }
      default:
        if down != wasDown { emit(ms, EventType.key, KeyCode.btnTouch, down ? 1 : 0) }
        if let first = contacts.first {
          emit(ms, EventType.abs, AbsCode.x, units(first.x))
          emit(ms, EventType.abs, AbsCode.y, units(first.y))
        }
      }
      if extras {
        if protocolKind != "single" {
          if let first = contacts.first {
            emit(ms, EventType.abs, AbsCode.x, units(first.x))
            emit(ms, EventType.abs, AbsCode.y, units(first.y))
          }
          if down != wasDown { emit(ms, EventType.key, KeyCode.btnTouch, down ? 1 : 0) }
        }
        emit(ms, EventType.abs, AbsCode.pressure, down ? 40 : 0)
        emit(ms, EventType.key, 0x145, contacts.count == 1 ? 1 : 0)
        emit(ms, EventType.msc, Self.mscTimestamp, Int32(ms * 1000))
      }
      wasDown = down
      emit(ms, EventType.syn, SynCode.report, 0)
    }
    return out
  }

  /// A tap, a swipe right, a two-finger pinch out, and a palm resting while a finger taps
  /// beside it (the palm fires nothing: its touch-major is read).
  private func script(fingers: Int) -> [(ms: Double, contacts: [Contact])] {
    var frames: [(ms: Double, contacts: [Contact])] = []
    frames.append((0, [Contact(id: 1, x: 50, y: 50)]))
    frames.append((60, [Contact(id: 1, x: 50.2, y: 50)]))
    frames.append((80, []))
    for step in 0...10 {
      frames.append((600 + Double(step) * 10, [Contact(id: 2, x: 40 + Double(step) * 8, y: 50)]))
    }
    frames.append((710, []))
    if fingers >= 2 {
      for step in 0...12 {
        let spread = 10 + Double(step) * 4
        frames.append(
          (
            1400 + Double(step) * 12,
            [Contact(id: 3, x: 100 - spread, y: 50), Contact(id: 4, x: 100 + spread, y: 50)]
          ))
      }
      frames.append((1560, []))
      frames.append((2200, [Contact(id: 5, x: 150, y: 50, major: 25)]))
      frames.append((2240, [Contact(id: 5, x: 150, y: 50, major: 25), Contact(id: 6, x: 60, y: 50)]))
      frames.append((2300, [Contact(id: 5, x: 150, y: 50, major: 25)]))
      frames.append((2360, []))
    }
    return frames
  }

  private func axesRead(_ device: DeviceDescription) -> [UInt16]? {
    FrameAssembler(device: device, geometry: PanelGeometry(xAxis: axis(4000), yAxis: axis(2000))).axesRead
  }

  private func recognized(_ device: DeviceDescription, _ events: [RawEvent]) -> [GestureEvent] {
    let bindings = profile([bind(.tap), bind(.swipe, .right), bind(.pinch, .out)])
    return Replay.run(device: device, events: events, configuration: Configuration(profiles: [bindings])).firings
  }

  /// `events` as evdev passes them to a reader masked to EV_SYN, every key and `axes`: the
  /// other events are dropped, and so is a SYN_REPORT with nothing before it in its frame.
  private func masked(_ events: [RawEvent], axes: [UInt16]) -> [RawEvent] {
    var out: [RawEvent] = []
    var frameStart = 0
    for event in events {
      switch event.type {
      case EventType.syn where event.code == SynCode.report:
        guard out.count > frameStart else { continue }
        out.append(event)
        frameStart = out.count
      case EventType.syn, EventType.key: out.append(event)
      case EventType.abs where axes.contains(event.code): out.append(event)
      default: break
      }
    }
    return out
  }

  @Test(arguments: ["B", "single"])
  func eventsNotReadChangeNothing(protocolKind: String) throws {
    let device = device(protocolKind)
    let axes = try #require(axesRead(device))
    let frames = script(fingers: protocolKind == "single" ? 1 : 2)
    let all = events(protocolKind, frames, extras: true)
    let kept = masked(all, axes: axes)
    // The kernel keeps back real events: a mask that let everything through would prove nothing.
    #expect(kept.count < all.count * 3 / 4)
    let fired = recognized(device, all)
    #expect(fired == recognized(device, kept))
    #expect(fired == recognized(device, events(protocolKind, frames, extras: false)))
    let names = fired.map { "\($0.gesture.rawValue)\($0.direction.map { "/\($0.rawValue)" } ?? "")" }
    #expect(names == (protocolKind == "single" ? ["tap", "swipe/right"] : ["tap", "swipe/right", "pinch/out", "tap"]))
  }

  /// A protocol A frame that reports no contact is the lift, and it may hold nothing but a
  /// pressure falling to 0: any mask on the axes would drop it, and the finger would stay
  /// down (a long press where there was a tap). So protocol A is read whole.
  @Test func protocolAIsReadWhole() throws {
    let device = device("A")
    #expect(axesRead(device) == nil)
    var tap = events("A", [(0, [Contact(id: 1, x: 50, y: 50)]), (60, [Contact(id: 1, x: 50.2, y: 50)])], extras: false)
    tap.append(RawEvent(time: Timestamp(microseconds: 80_000), type: EventType.abs, code: AbsCode.pressure, value: 0))
    tap.append(RawEvent(time: Timestamp(microseconds: 80_000), type: EventType.syn, code: SynCode.report, value: 0))
    tap.append(RawEvent(time: Timestamp(microseconds: 2_000_000), type: EventType.syn, code: SynCode.report, value: 0))
    let bindings = profile([bind(.tap), bind(.longPress)])
    func fired(_ events: [RawEvent]) -> [GestureKind] {
      Replay.run(device: device, events: events, configuration: Configuration(profiles: [bindings])).firings.map(
        \.gesture)
    }
    #expect(fired(tap) == [.tap])
    let slotAxes: [UInt16] = [AbsCode.mtTrackingID, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtTouchMajor]
    #expect(fired(masked(tap, axes: slotAxes)) != [.tap], "the lift's frame is gone under a mask")
  }

  @Test func eachProtocolReadsOnlyWhatItUses() {
    #expect(
      Set(axesRead(device("B")) ?? [])
        == [
          AbsCode.mtSlot, AbsCode.mtTrackingID, AbsCode.mtPositionX, AbsCode.mtPositionY, AbsCode.mtToolType,
          AbsCode.mtTouchMajor,
        ])
    #expect(axesRead(device("single")) == [AbsCode.x, AbsCode.y])
    #expect(axesRead(DeviceDescription(name: "keyboard", keys: [30])) == nil)
  }
}
