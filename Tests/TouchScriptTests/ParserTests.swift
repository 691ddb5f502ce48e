import Testing

@testable import GestureCore
@testable import TouchScript

@Suite("Script parsing")
struct ParserTests {
  func error(_ text: String) -> TouchScriptError? {
    #expect(throws: TouchScriptError.self) { try TouchScript.parse(text, file: "bad.touch") }
  }

  @Test(
    "bad lines are rejected with their line number",
    arguments: [
      ("panel mt-b\nfrobnicate 3", 2, "unknown command 'frobnicate'"),
      ("panel mt-c", 1, "unknown kind 'mt-c'"),
      ("panel mt-b\n\nat 80 down 1 0.5 0.5", 3, "expected a time"),
      ("panel mt-b\nat 80ms jump 1 0.5 0.5", 2, "expected down, move or up"),
      ("panel mt-b\nat 80ms down 1 0.5", 2, "expected at TIME"),
      ("panel mt-b\nat 0ms move 1 0.5 0.5", 2, "is not down"),
      ("panel mt-b\nat 0ms down 1 0.5 0.5\nat 10ms down 1 0.6 0.5", 3, "lands again"),
      ("panel mt-b\nat 10ms down 1 0.5 0.5\nat 10ms up 1", 3, "not after"),
      ("panel mt-b\nat 0ms down 1 1.5 0.5", 2, "outside the panel"),
      ("panel mt-b\ntap at=0ms x=0.5 y=0.5 fingrs=2", 2, "unknown key 'fingrs'"),
      ("panel mt-b\ntap at=0ms x=0.5", 2, "missing y="),
      ("panel mt-b\ntap at=0ms x=0.5 y=0.5 fingers=11", 2, "fingers must be 1..10"),
      (
        "panel mt-b\ntap at=0ms x=0.5 y=0.5 fingers=3 stagger=50ms duration=100ms", 2,
        "last finger would land"
      ),
      ("panel mt-b\nswipe at=0ms from=0.5,0.5", 2, "exactly one of to="),
      ("panel mt-b\npinch at=0ms center=0.5,0.5 from=40mm to=0mm", 2, "to must be"),
      ("panel mt-b x=10..5", 1, "x must be a range"),
      ("panel mt-b name=\"open", 1, "quote is not closed"),
      ("panel mt-b\npanel mt-a", 2, "second 'panel' line"),
      ("seed 1", 1, "no panel line"),
      ("panel single slots=4", 1, "slots only applies"),
      ("panel mt-a touch-major=0..255", 1, "touch-major only applies"),
      ("panel mt-b major-resolution=4", 1, "major-resolution needs touch-major"),
      ("panel single tool-type=yes", 1, "tool-type only applies"),
      ("panel mt-b\nexpect tapp", 2, "unknown gesture 'tapp'"),
      ("panel mt-b\nexpect tap time=soon", 2, "time must be"),
      ("panel mt-b\nexpect nothing\nexpect tap", 3, "already says expect nothing"),
      ("panel mt-b\njitter 3", 2, "jitter: expected a length"),
      ("panel mt-b\nrate 0hz", 2, "rate: expected"),
    ] as [(String, Int, String)])
  func rejects(text: String, line: Int, message: String) {
    let found = error(text)
    #expect(found?.line == line)
    #expect(found?.file == "bad.touch")
    #expect(found?.message.contains(message) == true, "message was: \(found?.message ?? "none")")
  }

  @Test("a panel for palms: ABS_MT_TOUCH_MAJOR with its resolution, ABS_MT_TOOL_TYPE")
  func palmAxes() throws {
    let script = try TouchScript.parse(
      "panel mt-b touch-major=0..255 major-resolution=4 tool-type=yes", file: "palm.touch")
    #expect(script.device.axes[AbsCode.mtTouchMajor] == AxisInfo(minimum: 0, maximum: 255, resolution: 4))
    #expect(script.device.axes[AbsCode.mtToolType] == AxisInfo(minimum: 0, maximum: ToolType.palm))
    let plain = try TouchScript.parse("panel mt-b", file: "plain.touch")
    #expect(plain.device.axes[AbsCode.mtTouchMajor] == nil && plain.device.axes[AbsCode.mtToolType] == nil)
  }

  @Test("comments, blank lines, quotes and units")
  func reads() throws {
    let script = try TouchScript.parse(
      """
      # a comment line

      panel mt-b name="Panel # not a comment" x=0..999 y=0..499 x-resolution=10 y-resolution=5   # trailing
      seed 42
      jitter 0.3mm
      rate 125hz
      config shared.yaml
      at 1.5s down 1 0.5 0.5
      at 1600ms up 1
      """, file: "ok.touch")
    #expect(script.device.name == "Panel # not a comment")
    #expect(script.seed == 42)
    #expect(script.jitter == 0.3)
    #expect(script.samplePeriod == 8000)
    #expect(script.configuration == "shared.yaml")
    #expect(script.panel.millimetres == PanelSize(width: 99.9, height: 99.8))
    #expect(script.events.first?.time == Timestamp(microseconds: 1_500_000))
    #expect(script.events.last?.time == Timestamp(microseconds: 1_600_000))
  }

  @Test("coordinates with millimetre offsets, lengths, durations and tolerances")
  func values() throws {
    #expect(ScriptValue.coordinate("0.5+8mm") == Coordinate(fraction: 0.5, millimetres: 8))
    #expect(ScriptValue.coordinate("1-12.5mm") == Coordinate(fraction: 1, millimetres: -12.5))
    #expect(ScriptValue.coordinate("-0.25") == Coordinate(fraction: -0.25))
    #expect(ScriptValue.coordinate("0.5+8") == nil)
    #expect(ScriptValue.duration("80ms") == 80_000)
    #expect(ScriptValue.duration("1.5s") == 1_500_000)
    #expect(ScriptValue.duration("250us") == 250)
    #expect(ScriptValue.duration("-1ms") == nil)
    #expect(ScriptValue.duration("1e3ms") == nil)
    #expect(ScriptValue.length("-2.5mm") == -2.5)
    #expect(ScriptValue.length("2.5") == nil)
    #expect(ScriptValue.integer("0x222a", in: 0...0xFFFF) == 0x222A)
    #expect(ScriptValue.integer("70000", in: 0...0xFFFF) == nil)
    let seconds: (String) -> Double? = ScriptValue.number
    #expect(
      ScriptValue.approximate("0.38±0.02", defaultTolerance: 0, read: seconds)
        == Approximate(value: 0.38, tolerance: 0.02))
    #expect(
      ScriptValue.approximate("-15+-3", defaultTolerance: 0, read: seconds)
        == Approximate(value: -15, tolerance: 3))
    #expect(
      ScriptValue.approximate("0.5", defaultTolerance: 0.01, read: seconds)
        == Approximate(value: 0.5, tolerance: 0.01))
    #expect(ScriptValue.approximate("0.5±-1", defaultTolerance: 0.01, read: seconds) == nil)
    let range = try #require(
      ScriptValue.approximate("0.75..0.8", defaultTolerance: 0, read: seconds))
    #expect(range.accepts(0.75) && range.accepts(0.8) && range.accepts(0.77))
    #expect(!range.accepts(0.749) && !range.accepts(0.801))
    #expect(
      ScriptValue.approximate("-18..-15", defaultTolerance: 0, read: seconds)
        == Approximate(value: -16.5, tolerance: 1.5))
    #expect(ScriptValue.approximate("0.8..0.75", defaultTolerance: 0, read: seconds) == nil)
  }
}

@Suite("Expectations")
struct ExpectationTests {
  let profile: Profile = {
    var profile = Profile(name: "lobby")
    profile.regions = [
      Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1)), Region(name: "main"),
    ]
    profile.bindings = [
      Binding(gesture: .tap, taps: 5, region: 0),
      Binding(name: "reload", gesture: .tap, taps: 2, region: 1),
    ]
    return profile
  }()

  func firing(
    time: Int64 = 380_000, binding: Int = 1, taps: Int = 2, x: Double = 0.5, region: Int? = 1
  ) -> GestureEvent {
    GestureEvent(
      time: Timestamp(microseconds: time), binding: binding, gesture: .tap, fingers: 1, taps: taps,
      position: Point(x: x, y: 0.5), region: region)
  }

  func script(_ expects: String) throws -> TouchScript {
    try TouchScript.parse("panel mt-b\n" + expects, file: "e.touch")
  }

  @Test("a firing within every tolerance matches")
  func matches() throws {
    let script = try script(
      "expect tap binding=reload profile=lobby taps=2 fingers=1 region=main time=0.38±0.02 x=0.5±0.01 y=0.5"
    )
    #expect(script.check(firings: [firing(time: 395_000, x: 0.509)], profile: profile) == nil)
  }

  @Test("every difference is named, with expected and actual lists")
  func mismatches() throws {
    let script = try script(
      "expect tap binding=reload taps=2 region=main time=380ms±20ms x=0.5±0.01")
    let report = try #require(
      script.check(
        firings: [firing(time: 420_000, binding: 0, taps: 5, x: 0.05, region: 0)], profile: profile)
    )
    #expect(report.contains("binding: expected reload, got tap@corner"))
    #expect(report.contains("taps: expected 2, got 5"))
    #expect(report.contains("region: expected main, got corner"))
    #expect(report.contains("time: expected 0.38±0.02, got 0.42"))
    #expect(report.contains("x: expected 0.5±0.01, got 0.05"))
    #expect(report.contains("expect on line 2"))
  }

  @Test(
    "counts must agree; expect nothing accepts only silence; region=none means outside every region"
  )
  func counts() throws {
    let two = try script("expect tap\nexpect tap")
    #expect(
      two.check(firings: [firing()], profile: profile)?.contains("expected 2 firing(s), got 1")
        == true)
    let nothing = try script("expect nothing")
    #expect(nothing.check(firings: [], profile: profile) == nil)
    #expect(
      nothing.check(firings: [firing()], profile: profile)?.contains("expected 0 firing(s), got 1")
        == true)
    let outside = try script("expect tap region=none")
    #expect(outside.check(firings: [firing(region: nil)], profile: profile) == nil)
    #expect(outside.check(firings: [firing(region: 1)], profile: profile) != nil)
    let silent = try script("")
    #expect(silent.check(firings: [], profile: profile)?.contains("no expect line") == true)
  }
}

@Suite("evemu output")
struct EvemuOutputTests {
  let script: TouchScript

  init() throws {
    script = try TouchScript.parse(
      """
      panel mt-b name="Scripted Panel B" vendor=0x1234 product=0x5678 x=0..4095 y=0..2303 resolution=16 slots=10
      seed 3
      jitter 0.3mm
      tap at=100ms x=0.3 y=0.4 fingers=2 stagger=30ms
      swipe at=1s from=0.5,0.8 by=0,-60mm fingers=3 stagger=10ms duration=300ms
      rotate at=2s center=0.5,0.5 span=40mm by=-30deg
      """, file: "scripted.touch")
  }

  @Test("round trip: EvemuParser reads back the same device and the same events")
  func roundTrip() throws {
    let text = script.evemuText()
    let recording = try EvemuParser.parse(text, file: "scripted.evemu")
    #expect(recording.device == script.device)
    #expect(recording.events == script.events)
    #expect(recording.events.count > 100)
  }

  @Test("round trip for every panel kind")
  func everyKind() throws {
    for kind in PanelKind.allCases {
      let fingers = kind == .multitouchA || kind == .multitouchB ? 2 : 1
      let script = try TouchScript.parse(
        """
        panel \(kind.rawValue) x=-100..100 y=0..300 resolution=0 direct=no
        jitter 1mm
        tap at=0ms x=0.5 y=0.5 fingers=\(fingers) stagger=20ms
        """, file: "\(kind.rawValue).touch")
      let recording = try EvemuParser.parse(script.evemuText(), file: "\(kind.rawValue).evemu")
      #expect(recording.device == script.device, "\(kind.rawValue)")
      #expect(recording.events == script.events, "\(kind.rawValue)")
    }
  }

  @Test("layout as evemu-record writes it")
  func layout() throws {
    let lines = script.evemuText().split(separator: "\n").map(String.init)
    #expect(lines.first == "# EVEMU 1.3")
    #expect(lines.contains("N: Scripted Panel B"))
    #expect(lines.contains("I: 0003 1234 5678 0001"))
    #expect(lines.contains("P: 02 00 00 00 00 00 00 00"))
    // One B: line per 8 bytes of each kernel bitmap, in type order, as a 64-bit kernel
    // reports them (compare /work/shared/fixtures/real/evemu-devices/dell_canvas_touch.evemu).
    let maskTypes = lines.filter { $0.hasPrefix("B: ") }.map { $0.dropFirst(3).prefix(2) }
    #expect(
      maskTypes == ["00"] + Array(repeating: "01", count: 12) + [
        "02", "03", "04", "05", "11", "12", "14", "15", "15",
      ])
    #expect(lines.contains("B: 00 0b 00 00 00 00 00 00 00"))
    #expect(lines.contains("B: 03 03 00 00 00 00 80 60 02"))
    #expect(lines.contains("A: 35 0 4095 0 0 16"))
    #expect(lines.contains("A: 2f 0 9 0 0 0"))
    #expect(lines.contains("A: 39 0 65535 0 0 0"))
    let events = lines.filter { $0.hasPrefix("E: ") }
    #expect(events.count == script.events.count)
    #expect(
      events.first?.hasPrefix("E: 0.100000 0003 0039 0000\t# EV_ABS / ABS_MT_TRACKING_ID   0")
        == true)
    #expect(
      events.contains {
        $0.hasPrefix("E: 0.180000 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1")
      })
    #expect(
      events.contains {
        $0.hasPrefix("E: 0.130000 0003 002f 0001\t# EV_ABS / ABS_MT_SLOT          1")
      })
    #expect(
      events.contains {
        $0.hasPrefix("E: 0.100000 0000 0000 0000\t# ------------ SYN_REPORT (0) ----------")
      })
    let firstEvent = try #require(lines.firstIndex { $0.hasPrefix("E: ") })
    #expect(lines[..<firstEvent].allSatisfy { !$0.hasPrefix("E:") })
    #expect(lines[firstEvent...].allSatisfy { $0.hasPrefix("E: ") })
  }

  @Test("printf's %04d for values")
  func values() {
    #expect(EvemuWriter.decimal(0) == "0000")
    #expect(EvemuWriter.decimal(-1) == "-001")
    #expect(EvemuWriter.decimal(4095) == "4095")
    #expect(EvemuWriter.decimal(65535) == "65535")
    #expect(EvemuWriter.decimal(-12345) == "-12345")
  }
}
