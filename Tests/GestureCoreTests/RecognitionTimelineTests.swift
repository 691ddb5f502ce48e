import Testing

@testable import GestureCore

/// `Replay.timeline` is `Replay.run` with the frames followed and the trace kept as values:
/// the same firings, and every contact and sequence accounted for.
@Suite("Recognition timeline", .enabled(if: SharedFixtures.root != nil, "../shared/fixtures/real is not present"))
struct RecognitionTimelineTests {
  static let recordings: [(events: String, description: String?)] = [
    ("evemu-devices/Wacom_ISDv4_E6_Finger.double-center-circle.events", "evemu-devices/Wacom_ISDv4_E6_Finger.desc"),
    ("evemu/ntrig-xt2-2-tap.event", "evemu/ntrig-xt2.device"),
    ("evemu/ntrig-xt2-3-tap.event", "evemu/ntrig-xt2.device"),
    ("evemu/3m.event", nil),
    ("evemu/wetab.event", nil),
  ]

  /// Taps of 1 to 5 fingers, single and double, and both rotations and pinches.
  static var configuration: Configuration {
    var profile = Profile()
    for fingers in 1...5 {
      profile.bindings.append(Binding(gesture: .tap, fingers: fingers))
      profile.bindings.append(Binding(gesture: .tap, taps: 2, fingers: fingers))
    }
    for direction in [Direction.clockwise, .counterclockwise] {
      profile.bindings.append(Binding(gesture: .rotate, direction: direction))
    }
    for direction in [Direction.in, .out] { profile.bindings.append(Binding(gesture: .pinch, direction: direction)) }
    return Configuration(profiles: [profile])
  }

  @Test(arguments: 0..<recordings.count)
  func theTimelineFiresWhatReplayFiresAndAccountsForEveryContact(index: Int) throws {
    let (file, descriptionFile) = Self.recordings[index]
    let recording = try EvemuParser.parse(try #require(SharedFixtures.bytes(file)), file: file)
    var device = recording.device
    if let descriptionFile {
      device = try EvemuParser.parse(try #require(SharedFixtures.bytes(descriptionFile)), file: descriptionFile).device
    }
    let run = Replay.run(device: try #require(device), events: recording.events, configuration: Self.configuration)
    let timeline = Replay.timeline(
      device: try #require(device), events: recording.events, configuration: Self.configuration)
    #expect(timeline.firings == run.firings)
    #expect(timeline.notes == run.notes)
    #expect(timeline.profileIndex == 0)
    #expect(!timeline.sequences.isEmpty)
    // Sequences are numbered 1, 2, … and each has the contacts drawn for it.
    #expect(timeline.sequences.map(\.number) == Array(1...timeline.sequences.count))
    for sequence in timeline.sequences {
      #expect(!sequence.contacts.isEmpty)
      #expect(sequence.end != nil)
      let paths = timeline.contacts.filter { $0.sequence == sequence.number }.map(\.id)
      #expect(paths == sequence.contacts)
    }
    // Every contact is in a sequence, has its landing first and ends lifted or cancelled.
    for contact in timeline.contacts {
      #expect(contact.sequence > 0)
      #expect(contact.lastPhase == .ended || contact.lastPhase == .cancelled)
      #expect(zip(contact.points, contact.points.dropFirst()).allSatisfy { $0.time <= $1.time })
    }
    // Every firing belongs to a sequence, and a sequence that fired nothing says why.
    let attributed = Set(timeline.sequences.flatMap(\.firings))
    #expect(attributed == Set(timeline.firings.indices))
    for sequence in timeline.sequences where sequence.firings.isEmpty {
      #expect(!timeline.reasonsNothingFired(sequence, profile: Self.configuration.profiles[0]).isEmpty)
    }
  }

  @Test func aTwoFingerTapWithNothingBoundForTwoFingersSaysSo() throws {
    let recording = try EvemuParser.parse(
      try #require(SharedFixtures.bytes("evemu/ntrig-xt2-2-tap.event")), file: "2-tap")
    let device = try EvemuParser.parse(try #require(SharedFixtures.bytes("evemu/ntrig-xt2.device")), file: "d").device
    var profile = Profile()
    profile.bindings = [Binding(gesture: .tap, fingers: 1), Binding(gesture: .swipe, fingers: 3, direction: .left)]
    let timeline = Replay.timeline(
      device: try #require(device), events: recording.events, configuration: Configuration(profiles: [profile]))
    let sequence = try #require(timeline.sequences.first)
    #expect(timeline.sequences.count == 1)
    #expect(timeline.fingerCount(of: sequence, landing: profile.thresholds.fingerLanding) == 2)
    #expect(
      timeline.reasonsNothingFired(sequence, profile: profile) == [
        "nothing bound for 2 fingers in this part of the panel (bound: 1, 3)"
      ])
    // A two-finger tap bound only as a double tap: the chain of one tap is named.
    profile.bindings = [Binding(gesture: .tap, taps: 2, fingers: 2)]
    let single = Replay.timeline(
      device: try #require(device), events: recording.events, configuration: Configuration(profiles: [profile]))
    #expect(
      single.reasonsNothingFired(try #require(single.sequences.first), profile: profile) == [
        "tap: 1 tap of 2 fingers, but taps bound: 2"
      ])
  }
}
