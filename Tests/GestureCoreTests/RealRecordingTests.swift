import Testing

@testable import GestureCore

/// Real panels' recordings from `../shared/fixtures/real` (not in this repository; see
/// SharedFixtures), replayed through the whole pipeline, with expectations labelled by hand
/// from what each recording is documented to contain. Skipped, and reported as skipped,
/// when the folder is absent.
@Suite("Real recordings", .enabled(if: SharedFixtures.root != nil, "../shared/fixtures/real is not present"))
struct RealRecordingTests {
  /// Parses `events` (with its own description, or `description`'s) and replays it.
  private func replay(_ events: String, description: String? = nil, _ profile: Profile) throws -> [GestureEvent] {
    let recording = try EvemuParser.parse(try #require(SharedFixtures.bytes(events)), file: events)
    var device = recording.device
    if let description {
      device = try EvemuParser.parse(try #require(SharedFixtures.bytes(description)), file: description).device
    }
    let result = Replay.run(
      device: try #require(device), events: recording.events, configuration: Configuration(profiles: [profile]))
    return result.firings
  }

  /// Every tap count and finger count, so a recording shows what it is.
  private var taps: Profile {
    var bindings: [Binding] = []
    for fingers in 1...5 {
      bindings.append(bind(.tap, fingers: fingers))
      bindings.append(bind(.tap, taps: 2, fingers: fingers))
    }
    return profile(bindings)
  }

  private let wacom = "evemu-devices/Wacom_ISDv4_E6_Finger.desc"

  @Test func wacomSingleTapInTheCentre() throws {
    let fired = try replay("evemu-devices/Wacom_ISDv4_E6_Finger.single-tap-center.events", description: wacom, taps)
    try #require(fired.count == 1)
    #expect(fired[0].gesture == .tap && fired[0].taps == 1 && fired[0].fingers == 1)
    #expect(abs(fired[0].position.x - 0.5) < 0.1 && abs(fired[0].position.y - 0.5) < 0.1)
  }

  @Test func wacomDoubleTapInTheCentre() throws {
    let fired = try replay("evemu-devices/Wacom_ISDv4_E6_Finger.double-tap-center.events", description: wacom, taps)
    #expect(fired.map { "\($0.taps)x\($0.fingers)" } == ["2x1"])
  }

  @Test func wacomDoubleTapIsTwoSingleTapsWhenNoDoubleTapIsBound() throws {
    let fired = try replay(
      "evemu-devices/Wacom_ISDv4_E6_Finger.double-tap-center.events", description: wacom, profile([bind(.tap)]))
    #expect(fired.map { "\($0.taps)x\($0.fingers)" } == ["1x1", "1x1"])
  }

  @Test(arguments: ["2fg-tap", "2fg-double-tap"])
  func wacomTwoFingerTap(name: String) throws {
    // "2fg-double-tap" holds a single two-finger tap despite its name (SOURCES.md).
    let fired = try replay("evemu-devices/Wacom_ISDv4_E6_Finger.\(name).events", description: wacom, taps)
    #expect(fired.map { "\($0.taps)x\($0.fingers)" } == ["1x2"])
  }

  @Test(arguments: 1...4)
  func nTrigFingerTaps(fingers: Int) throws {
    // Protocol A, no resolution: the size is guessed (300 mm × 225 mm), the thresholds are
    // the defaults. N-Trig contacts roll 3.3–4.1 mm as the hand lifts; the lift roll rule
    // (TapSlopRule) lets that be a tap.
    let fired = try replay("evemu/ntrig-xt2-\(fingers)-tap.event", description: "evemu/ntrig-xt2.device", taps)
    #expect(fired.map { "\($0.taps)x\($0.fingers)" } == ["1x\(fingers)"])
  }

  @Test func nTrigFourFingerTapInTheNewerFormat() throws {
    let fired = try replay("evemu/ntrig-dell-xt2.event", taps)
    #expect(fired.map { "\($0.taps)x\($0.fingers)" } == ["1x4"])
  }

  @Test func weTabElevenTapsOnSlotZeroOnly() throws {
    let fired = try replay("evemu/wetab.event", description: "evemu/wetab.prop", profile([bind(.tap)]))
    #expect(fired.count == 11)
    #expect(fired.allSatisfy { $0.gesture == .tap && $0.fingers == 1 })
  }

  @Test func atmelFastTapsPairUpIntoDoubleTaps() throws {
    // Nine quick taps at one spot: four double taps and a last single one.
    let fired = try replay(
      "evemu-devices/Atmel_maXTouch_Touchscreen.1-finger-fast-taps.events",
      description: "evemu-devices/Atmel_maXTouch_Touchscreen.desc", taps)
    #expect(fired.map(\.taps) == [2, 2, 2, 2, 1])
  }

  @Test func atmelFourFingerDragNeedsAWiderLandingWindow() throws {
    // The fourth finger lands 111 ms after the first: with the default 100 ms landing window
    // the sequence fires nothing; a per-device finger-landing of 150 ms makes it a swipe.
    let bindings = [bind(.swipe, fingers: 4, .down), bind(.swipe, fingers: 3, .down)]
    let file = "evemu-devices/Atmel_maXTouch_Touchscreen.4-finger-drag-down.events"
    let description = "evemu-devices/Atmel_maXTouch_Touchscreen.desc"
    #expect(try replay(file, description: description, profile(bindings)).isEmpty)
    var wider = Thresholds()
    wider.fingerLanding = 150_000
    let fired = try replay(file, description: description, profile(bindings, thresholds: wider))
    #expect(fired.map(\.direction) == [.down])
    #expect(fired.map(\.fingers) == [4])
  }

  @Test func twoFingerScrollIsASwipeUpOnScreen() throws {
    // "scroll down" in the recording's name is the content's direction: the fingers move up.
    let fired = try replay(
      "evemu-devices/EP0430M09.2-finger-scroll-down.events", description: "evemu-devices/EP0430M09.desc",
      profile([bind(.swipe, fingers: 2, .up), bind(.swipe, fingers: 2, .down)]))
    #expect(fired.map(\.direction) == [.up])
  }

  @Test(arguments: [
    "evemu-devices/Atmel_maXTouch_Touchscreen.1-finger-drag-up-down.events",
    "evemu-devices/EP0430M09.1-finger-drag-up-down.events",
    "evemu-devices/ELAN_CANDO_Windows7.1-finger-drag-up-down.events",
    "evemu-devices/Wacom_ISDv4_E6_Finger.single-center-scroll.events",
    "evemu-devices/Wacom_ISDv4_E6_Finger.single-top-swipe.events",
  ])
  func slowDragsFireNothing(file: String) throws {
    let description =
      file.contains("Atmel")
      ? "evemu-devices/Atmel_maXTouch_Touchscreen.desc"
      : file.contains("EP0430")
        ? "evemu-devices/EP0430M09.desc"
        : file.contains("ELAN") ? "evemu-devices/ELAN_CANDO_Windows7.desc" : wacom
    var bindings = [bind(.tap), bind(.longPress)]
    for direction in [Direction.up, .down, .left, .right] { bindings.append(bind(.swipe, direction)) }
    #expect(try replay(file, description: description, profile(bindings)).isEmpty)
  }

  @Test func wacomTwoFingerCircleIsAClockwiseRotation() throws {
    let fired = try replay(
      "evemu-devices/Wacom_ISDv4_E6_Finger.double-center-circle.events", description: wacom,
      profile([bind(.rotate, .clockwise), bind(.rotate, .counterclockwise), bind(.pinch, .in), bind(.pinch, .out)]))
    #expect(fired.map(\.gesture) == [.rotate])
    #expect(fired.first?.direction == .clockwise)
  }

  @Test func eMPIATapWithDownAndUpInTheSameMillisecond() throws {
    let fired = try replay(
      "evemu-devices/eGalax_eMPIA_Technology_Inc._PCAP_MultiTouch_Controller.tap.events",
      description: "evemu-devices/eGalax_eMPIA_Technology_Inc._PCAP_MultiTouch_Controller.desc", profile([bind(.tap)]))
    #expect(fired.map(\.gesture) == [.tap])
  }

  @Test func aRecordingEndingWithFingersDownFiresNothingFromThem() throws {
    // 3m.event is cut off with two contacts down: they are cancelled, not long-pressed.
    let fired = try replay("evemu/3m.event", profile([bind(.longPress, fingers: 2)]))
    #expect(fired.allSatisfy { $0.time.microseconds < 1_284_881_103_697_884 + 24_000_000 })
  }
}
