import Testing

@testable import GestureCore

/// `DeviceEngine.handle(events:into:)` is `handle(_:into:)` on each event in turn, however
/// the events are cut into batches.
@Suite("DeviceEngine: a batch of events is handled as its events one by one")
struct BatchHandlingTests {
  /// Taps, a double tap, a swipe, a stepping pinch and a two-finger pan, on protocol B.
  static var touches: Touches {
    var touches = Touches()
    touches.tap(100, 50, at: 0)
    touches.tap(60, 40, at: 1000)
    touches.tap(61, 40, at: 1150)
    touches.drag([(finger: 0, from: (40, 50), to: (140, 50))], from: 2500, to: 2700)
    touches.drag(
      [(finger: 0, from: (90, 50), to: (60, 50)), (finger: 1, from: (110, 50), to: (140, 50))], from: 4000,
      to: 4600, steps: 40)
    touches.drag(
      [(finger: 0, from: (40, 30), to: (100, 30)), (finger: 1, from: (40, 70), to: (100, 70))], from: 6000,
      to: 6800, steps: 40)
    return touches
  }

  static var bindings: Profile {
    profile(
      [
        bind(.tap), bind(.tap, taps: 2), bind(.swipe, .right), bind(.pinch, .out, step: 10),
        bind(.pan, fingers: 2, .right, step: 10),
      ], simultaneous: [.pan, .pinch, .rotate])
  }

  /// The same touches on a protocol A panel: every contact down, listed at each frame.
  static func protocolA(_ events: [RawEvent]) -> [RawEvent] {
    var down: [Int32: (x: Int32, y: Int32)] = [:]
    var slot: Int32 = 0
    var result: [RawEvent] = []
    for event in events {
      func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        result.append(RawEvent(time: event.time, type: type, code: code, value: value))
      }
      switch (event.type, event.code) {
      case (EventType.abs, AbsCode.mtSlot): slot = event.value
      case (EventType.abs, AbsCode.mtTrackingID): down[slot] = event.value < 0 ? nil : (0, 0)
      case (EventType.abs, AbsCode.mtPositionX): down[slot]?.x = event.value
      case (EventType.abs, AbsCode.mtPositionY): down[slot]?.y = event.value
      case (EventType.syn, SynCode.report):
        for key in down.keys.sorted() {
          emit(EventType.abs, AbsCode.mtPositionX, down[key]!.x)
          emit(EventType.abs, AbsCode.mtPositionY, down[key]!.y)
          emit(EventType.syn, SynCode.mtReport, 0)
        }
        if down.isEmpty { emit(EventType.syn, SynCode.mtReport, 0) }
        emit(EventType.syn, SynCode.report, 0)
      default: break
      }
    }
    return result
  }

  static var protocolADevice: DeviceDescription {
    var device = TestPanel.device
    device.axes = device.axes.filter { $0.key == AbsCode.mtPositionX || $0.key == AbsCode.mtPositionY }
    return device
  }

  /// Firings and the deadline left, with the events cut into batches by `cuts` (nil: one
  /// `handle(_:)` call per event).
  static func firings(_ device: DeviceDescription, _ events: [RawEvent], batches cuts: [Int]?)
    -> ([GestureEvent], Timestamp?)
  {
    var engine = DeviceEngine(device: device, profile: bindings)!
    var output: [GestureEvent] = []
    guard let cuts else {
      for event in events { engine.handle(event, into: &output) }
      return (output, engine.nextDeadline)
    }
    events.withUnsafeBufferPointer { buffer in
      var start = 0
      for end in cuts + [buffer.count] where end > start {
        engine.handle(events: UnsafeBufferPointer(rebasing: buffer[start..<end]), into: &output)
        start = end
      }
    }
    return (output, engine.nextDeadline)
  }

  @Test(arguments: ["B", "A"])
  func batchesGiveTheSameFirings(protocolName: String) {
    let device = protocolName == "A" ? Self.protocolADevice : TestPanel.device
    let events = protocolName == "A" ? Self.protocolA(Self.touches.events) : Self.touches.events
    #expect(device.touchProtocol == (protocolName == "A" ? .multitouchA : .multitouchB(slots: 10)))
    let (oneByOne, deadline) = Self.firings(device, events, batches: nil)
    // Taps, the swipe, the pinch's steps and the pan's all fired.
    #expect(Set(oneByOne.map(\.gesture)) == [.tap, .swipe, .pinch, .pan])
    let frames = events.indices.filter { events[$0].type == EventType.syn && events[$0].code == SynCode.report }
    let cuts: [(String, [Int])] = [
      ("a frame per batch", frames.map { $0 + 1 }),
      ("batches of 7 events, across frames", Array(stride(from: 7, to: events.count, by: 7))),
      ("all in one", []),
    ]
    for (name, cut) in cuts {
      let (batched, batchedDeadline) = Self.firings(device, events, batches: cut)
      #expect(batched == oneByOne, "\(name)")
      #expect(batchedDeadline == deadline, "\(name)")
    }
  }
}
