import Testing

@testable import GestureCore

/// Protocol A's in-order shortcut (`FrameAssembler.continuesInOrder`) must only ever answer
/// what `ContactMatcher` answers: report i continues previous contact i.
@Suite("protocol A: the in-order shortcut pairs as the matcher does")
struct ContinuesInOrderTests {
  typealias Contact = FrameAssembler.AnonymousContact

  /// The shortcut's answer for `previous` → `reports`, with no spacing of `previous` known.
  func shortcut(_ previous: [Contact], _ reports: [Contact]) -> Bool {
    var spacingFloor = 0.0
    return shortcut(previous, reports, spacingFloor: &spacingFloor)
  }

  /// The shortcut's answer, `spacingFloor` carried in and out as the assembler does.
  func shortcut(_ previous: [Contact], _ reports: [Contact], spacingFloor: inout Double) -> Bool {
    var moveBounds = [Double](repeating: .nan, count: max(previous.count, 1))
    return reports.withUnsafeBufferPointer { reports in
      previous.withUnsafeBufferPointer { previous in
        moveBounds.withUnsafeMutableBufferPointer {
          FrameAssembler.continuesInOrder(
            reports: reports, previous: previous, moveBounds: $0.baseAddress!, spacingFloor: &spacingFloor)
        }
      }
    }
  }

  /// The distance between the nearest two contacts.
  func nearestSpacing(_ contacts: [Contact]) -> Double {
    var nearest = Double.infinity
    for first in contacts.indices {
      for second in contacts.indices where second != first {
        let dx = Double(contacts[first].x) - Double(contacts[second].x)
        let dy = Double(contacts[first].y) - Double(contacts[second].y)
        nearest = min(nearest, (dx * dx + dy * dy).squareRoot())
      }
    }
    return nearest
  }

  /// The matcher's pairing: for each report, the previous contact it continues (or -1).
  func matched(_ previous: [Contact], _ reports: [Contact]) -> [Int] {
    var matcher = ContactMatcher(capacity: 64)
    for contact in reports { _ = matcher.addRow(x: contact.x, y: contact.y) }
    for contact in previous { _ = matcher.addColumn(x: contact.x, y: contact.y) }
    matcher.solve()
    return (0..<reports.count).map { matcher.columnOfRow[$0] }
  }

  func contact(_ x: Int32, _ y: Int32, trackingID: Int32 = -1) -> Contact {
    Contact(x: x, y: y, trackingID: trackingID)
  }

  @Test func randomFramesAgreeWithTheMatcher() {
    var random = SplitMix64(seed: 10)
    var applied = 0
    var declined = 0
    for _ in 0..<20_000 {
      // Up to 14 contacts: both the optimal method (≤ 10) and the greedy one beyond.
      let count = Int(random.uniform(1...14))
      // Fingers spread over a panel, or crowded into a small patch.
      let spread = [4095, 400, 60][Int(random.next() % 3)]
      let previous = (0..<count).map { _ in
        contact(random.uniform(0...Int32(spread)), random.uniform(0...Int32(spread)))
      }
      // Moves from a jitter to jumps larger than the spacing.
      let step = [1, 8, 40, 300][Int(random.next() % 4)]
      var reports = previous.map {
        contact($0.x + random.uniform(-Int32(step)...Int32(step)), $0.y + random.uniform(-Int32(step)...Int32(step)))
      }
      if random.next() % 8 == 0, count > 1 { reports.swapAt(0, count - 1) }
      if shortcut(previous, reports) {
        applied += 1
        #expect(matched(previous, reports) == Array(0..<count), "\(previous) → \(reports)")
      } else {
        declined += 1
      }
    }
    // Both sides were exercised.
    #expect(applied > 5_000)
    #expect(declined > 2_000)
  }

  /// Many fingers moving from frame to frame, the spacing floor carried between frames as
  /// the assembler carries it: each answer the matcher's, and the floor never above the
  /// true spacing.
  @Test func framesWithACarriedSpacingFloorAgreeWithTheMatcher() {
    var random = SplitMix64(seed: 11)
    var applied = 0
    var carried = 0
    var declined = 0
    for _ in 0..<400 {
      let count = Int(random.uniform(Int32(FrameAssembler.spacingFloorMinimumContacts)...14))
      let spread = [4095, 600, 120][Int(random.next() % 3)]
      var previous = (0..<count).map { _ in
        contact(random.uniform(0...Int32(spread)), random.uniform(0...Int32(spread)))
      }
      var spacingFloor = 0.0
      for _ in 0..<60 {
        // The fingers move together (a swipe), with a jitter each, or each its own way.
        let together = (random.uniform(-20...20), random.uniform(-20...20))
        let jitter = Int32([0, 1, 4, 30][Int(random.next() % 4)])
        var reports = previous.map {
          contact(
            $0.x + together.0 + random.uniform(-jitter...jitter), $0.y + together.1 + random.uniform(-jitter...jitter))
        }
        if random.next() % 50 == 0 { reports.swapAt(0, count - 1) }
        let floorIn = spacingFloor
        if shortcut(previous, reports, spacingFloor: &spacingFloor) {
          applied += 1
          if floorIn > 0 { carried += 1 }
          #expect(matched(previous, reports) == Array(0..<count), "\(previous) → \(reports)")
          #expect(spacingFloor <= nearestSpacing(reports), "\(spacingFloor) for \(reports)")
        } else {
          declined += 1
          #expect(spacingFloor == 0)
        }
        previous = reports
      }
    }
    // Every way was exercised: carried, measured again, declined.
    #expect(carried > 2_000)
    #expect(applied - carried > 1_000)
    #expect(declined > 1_000)
  }

  @Test func twoFingersMovingMoreThanHalfTheirSpacingGoToTheMatcher() {
    // The matcher keeps them (the optimal pairing), but the shortcut cannot prove it.
    let previous = [contact(100, 500), contact(400, 500)]
    let reports = [contact(260, 500), contact(560, 500)]
    #expect(!shortcut(previous, reports))
    #expect(matched(previous, reports) == [0, 1])
    // Just under half the spacing (4·149² < 300²), it applies; exactly half does not.
    #expect(shortcut(previous, [contact(249, 500), contact(549, 500)]))
    #expect(!shortcut(previous, [contact(250, 500), contact(550, 500)]))
  }

  @Test func fingersListedInAnotherOrderGoToTheMatcher() {
    let previous = [contact(100, 100), contact(900, 900)]
    let reports = [contact(880, 890), contact(120, 110)]
    #expect(!shortcut(previous, reports))
    #expect(matched(previous, reports) == [1, 0])
  }

  @Test func aLoneContactAlwaysContinues() {
    #expect(shortcut([contact(0, 0)], [contact(4000, 2000)]))
    #expect(matched([contact(0, 0)], [contact(4000, 2000)]) == [0])
  }

  @Test func otherCountsTrackingIDsAndHugeCoordinatesGoToTheMatcher() {
    let previous = [contact(100, 100), contact(900, 900)]
    #expect(shortcut(previous, [contact(101, 100), contact(901, 900)]))
    // A contact more or less.
    #expect(!shortcut(previous, [contact(101, 100)]))
    #expect(!shortcut(previous, [contact(101, 100), contact(901, 900), contact(500, 500)]))
    // Tracking ids are matched by id, before any distance.
    #expect(!shortcut(previous, [contact(101, 100, trackingID: 1), contact(901, 900)]))
    #expect(!shortcut([contact(100, 100, trackingID: 1), contact(900, 900)], [contact(101, 100), contact(901, 900)]))
    // Beyond ±2²⁴ squared distances are no longer exact in a Double: the shortcut keeps out.
    let far = Int32(1 << 24) + 1
    #expect(!shortcut([contact(far, 0), contact(900, 900)], [contact(far, 0), contact(901, 900)]))
    #expect(!shortcut(previous, [contact(101, far), contact(901, 900)]))
    #expect(!shortcut([contact(.min, .min), contact(.max, .max)], [contact(.min, .min), contact(.max, .max)]))
  }
}

/// The assembler's storage is shared by copies until one writes: a copied engine (and
/// assembler) must go on exactly as a separate one would.
@Suite("frame assembler copies")
struct FrameAssemblerCopyTests {
  static let axis = AxisInfo(minimum: 0, maximum: 1000)
  static let geometry = PanelGeometry(xAxis: axis, yAxis: axis)
  static let protocolA = DeviceDescription(
    name: "A panel", keys: [KeyCode.btnTouch], axes: [AbsCode.mtPositionX: axis, AbsCode.mtPositionY: axis])
  static let protocolB = DeviceDescription(
    name: "B panel", properties: [InputProperty.direct], keys: [KeyCode.btnTouch],
    axes: [
      AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9), AbsCode.mtPositionX: axis, AbsCode.mtPositionY: axis,
      AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
    ])

  /// Two fingers at `x` and `x + 300` (protocol A reports, or protocol B slots), one frame.
  static func frame(_ device: DeviceDescription, x: Int32, at time: Int64) -> [RawEvent] {
    let stamp = Timestamp(microseconds: time)
    func abs(_ code: UInt16, _ value: Int32) -> RawEvent {
      RawEvent(time: stamp, type: EventType.abs, code: code, value: value)
    }
    var events: [RawEvent] = []
    for finger in 0..<2 {
      if device.touchProtocol == .multitouchA {
        events += [abs(AbsCode.mtPositionX, x + 300 * Int32(finger)), abs(AbsCode.mtPositionY, 500)]
        events.append(RawEvent(time: stamp, type: EventType.syn, code: SynCode.mtReport, value: 0))
      } else {
        events += [abs(AbsCode.mtSlot, Int32(finger)), abs(AbsCode.mtTrackingID, Int32(finger))]
        events += [abs(AbsCode.mtPositionX, x + 300 * Int32(finger)), abs(AbsCode.mtPositionY, 500)]
      }
    }
    events.append(RawEvent(time: stamp, type: EventType.syn, code: SynCode.report, value: 0))
    return events
  }

  static func frames(_ assembler: inout FrameAssembler, _ events: [RawEvent]) -> [TouchFrame] {
    events.compactMap { assembler.feed($0) ? assembler.frame : nil }
  }

  @Test(arguments: [protocolA, protocolB])
  func aCopyGoesOnAsASeparateAssemblerWould(device: DeviceDescription) {
    let start = Self.frame(device, x: 100, at: 0)
    let left = Self.frame(device, x: 90, at: 10_000) + Self.frame(device, x: 80, at: 20_000)
    let right = Self.frame(device, x: 110, at: 10_000) + Self.frame(device, x: 120, at: 20_000)
    var original = FrameAssembler(device: device, geometry: Self.geometry)
    _ = Self.frames(&original, start)
    var copy = original
    let copyFrames = Self.frames(&copy, right)
    let originalFrames = Self.frames(&original, left)

    var separate = FrameAssembler(device: device, geometry: Self.geometry)
    _ = Self.frames(&separate, start)
    var separateRight = FrameAssembler(device: device, geometry: Self.geometry)
    _ = Self.frames(&separateRight, start)
    #expect(Self.frames(&separate, left).map(\.changes) == originalFrames.map(\.changes))
    #expect(Self.frames(&separateRight, right).map(\.changes) == copyFrames.map(\.changes))
    #expect(originalFrames.map(\.changes) != copyFrames.map(\.changes))
    #expect(originalFrames.count == 2)
  }
}
