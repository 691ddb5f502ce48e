import Testing

@testable import GestureCore
@testable import TouchScript

@Suite("Stream expectations")
struct StreamExpectationTests {
  let profile: Profile = {
    var profile = Profile(name: "table")
    profile.regions = [
      Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: true),
      Region(name: "right", area: Area(x: 0.5, y: 0, width: 0.5, height: 1), independent: true),
    ]
    return profile
  }()

  func event(
    _ phase: GestureStreamEvent.Phase, gesture: GestureKind = .pinch, time: Int64, region: Int? = 0,
    reason: EndReason? = nil, scale: Double = 1, vscale: Double = 0
  ) -> GestureStreamEvent {
    GestureStreamEvent(
      time: Timestamp(microseconds: time), sequence: 1, gesture: gesture, phase: phase, reason: reason, fingers: 2,
      region: region, values: StreamValues(cx: 0.25, cy: 0.5, scale: scale, vscale: vscale))
  }

  /// A pinch on the left from scale 1 to 2, lifted.
  var pinch: [GestureStreamEvent] {
    [
      event(.began, time: 100_000, scale: 1.3),
      event(.changed, time: 110_000, scale: 1.5, vscale: 2.4),
      event(.changed, time: 120_000, scale: 1.8, vscale: 2.6),
      event(.changed, time: 130_000, scale: 2, vscale: 2.5),
      event(.ended, time: 140_000, reason: .lift, scale: 2),
    ]
  }

  func script(_ expects: String) throws -> TouchScript {
    try TouchScript.parse("panel mt-b\nexpect nothing\n" + expects, file: "s.touch")
  }

  @Test("every key is read, with the default tolerances")
  func reads() throws {
    let script = try script(
      "expect stream pinch changed region=left fingers=2 time=0.13 cx=0.25 cy=0.5±0.1 dx=0 dy=-3 scale=2 angle=90deg vx=150 vy=0..10 vscale=2.5 vangle=200"
        + "\nexpect stream long-press ended reason=lift count=1\nexpect stream pan began region=none count=2..40")
    #expect(script.streamExpectations.count == 3)
    let first = try #require(script.streamExpectations.first)
    #expect(first.phase == .changed && first.gesture == .pinch && first.region == .some("left"))
    #expect(first.cy == Approximate(value: 0.5, tolerance: 0.1))
    #expect(first.scale == Approximate(value: 2, tolerance: Expectation.defaultScaleTolerance))
    #expect(first.angle == Approximate(value: 90, tolerance: Expectation.defaultAngleTolerance))
    #expect(first.vx == Approximate(value: 150, tolerance: StreamExpectation.defaultSpeedTolerance))
    #expect(first.vy == Approximate(value: 5, tolerance: 5))
    #expect(first.vangle == Approximate(value: 200, tolerance: StreamExpectation.defaultAngleRateTolerance))
    #expect(first.count == nil)
    #expect(script.streamExpectations[1].reason == .lift && script.streamExpectations[1].count == 1...1)
    #expect(script.streamExpectations[2].region == .some(nil) && script.streamExpectations[2].count == 2...40)
  }

  @Test(
    "bad expect stream lines name their line",
    arguments: [
      ("expect stream", "expected a gesture"),
      ("expect stream tap began", "'tap' has no stream"),
      ("expect stream pinch", "expected a phase"),
      ("expect stream pinch started", "expected a phase"),
      ("expect stream pinch began binding=zoom", "unknown key 'binding'"),
      ("expect stream pinch began count=3..1", "count must be"),
      ("expect stream pinch began reason=lifted", "reason must be"),
      ("expect stream pinch began scale=2deg", "scale must be"),
      ("expect stream nothing region=left", "takes no keys"),
      ("expect stream nothing\nexpect stream pinch began", "already says expect stream nothing"),
    ])
  func rejects(line: String, message: String) {
    let error = #expect(throws: TouchScriptError.self) {
      try TouchScript.parse("panel mt-b\n" + line, file: "bad.touch")
    }
    #expect(error?.message.contains(message) == true, "\(error?.message ?? "none")")
    #expect(error?.line == 1 + line.split(separator: "\n").count)
  }

  @Test("lines without count match in order, skipping the events between")
  func ordered() throws {
    let good = try script(
      "expect stream pinch began region=left time=0.1\nexpect stream pinch changed scale=2\nexpect stream pinch ended reason=lift scale=2"
    )
    #expect(good.check(stream: pinch, profile: profile) == nil)
    let backwards = try script("expect stream pinch ended\nexpect stream pinch began")
    let report = try #require(backwards.check(stream: pinch, profile: profile))
    #expect(report.contains("stream expect on line 4: no pinch began line after stream line #5"))
    #expect(report.contains("#5 stream pinch ended region=left fingers=2 reason=lift time=0.140000"))
  }

  @Test("a line that fits nothing names the first event of its gesture and phase and what differs")
  func differences() throws {
    let script = try script("expect stream pinch changed region=right vscale=5±0.5")
    let report = try #require(script.check(stream: pinch, profile: profile))
    #expect(
      report.contains(
        "the first pinch changed (#2) differs in region: expected right, got left; vscale: expected 5±0.5, got 2.4"))
  }

  @Test("count counts every fitting event anywhere; expect stream nothing wants none")
  func counts() throws {
    #expect(try script("expect stream pinch changed count=3").check(stream: pinch, profile: profile) == nil)
    #expect(try script("expect stream pinch began count=1").check(stream: pinch, profile: profile) == nil)
    #expect(
      try script("expect stream pinch changed vscale=2.55±0.06 count=2").check(stream: pinch, profile: profile) == nil)
    let tooMany = try #require(
      try script("expect stream pinch changed count=0..2").check(stream: pinch, profile: profile))
    #expect(tooMany.contains("(stream pinch changed count=0..2): 3 line(s) fit"))
    #expect(try script("expect stream nothing").check(stream: [], profile: profile) == nil)
    let none = try #require(try script("expect stream nothing").check(stream: pinch, profile: profile))
    #expect(none.contains("expected no stream line, got 5"))
  }

  @Test("a script without expect stream lines does not look at the stream")
  func unchecked() throws {
    #expect(try script("").check(stream: pinch, profile: profile) == nil)
  }
}
