import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// `replay --continuous` and `monitor --continuous`: a line per stream event among the
/// firings, driven here by a pipeline of the test's own (the stream's values are the core's
/// business; what is printed, in which order, is replay's).
@Suite("replay --continuous")
struct ContinuousOutputTests {
  let directory = TemporaryDirectory()

  /// A pinch out on the left half with steps of 10 % and an `end:`.
  var config: String {
    directory.write(
      "table.yaml",
      configText(
        bindings: [
          #"{ gesture: pinch, direction: out, step: 10%, region: left, name: zoom, run: "true", end: "true" }"#
        ],
        regions: ["{ name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }"]))
  }

  func time(_ microseconds: Int64) -> Timestamp { Timestamp(microseconds: microseconds) }

  func stream(_ phase: GestureStreamEvent.Phase, at microseconds: Int64, scale: Double, region: Int? = 0)
    -> GestureStreamEvent
  {
    GestureStreamEvent(
      time: time(microseconds), sequence: 1, gesture: .pinch, phase: phase, reason: phase == .ended ? .lift : nil,
      fingers: 2, region: region,
      values: StreamValues(
        cx: 0.25, cy: 0.5, dx: 0.5, dy: -1.25, scale: scale, angle: 1.5, vx: 3, vy: -2, vscale: 2.123456, vangle: 10))
  }

  func step(_ phase: GestureEvent.Phase, at microseconds: Int64, scale: Double) -> GestureEvent {
    GestureEvent(
      time: time(microseconds), binding: 0, gesture: .pinch, phase: phase, sequence: 1, fingers: 2,
      direction: .out, scale: scale, position: Point(x: 0.25, y: 0.5), region: 0,
      endReason: phase == .end(steps: 1) ? .lift : nil)
  }

  /// Began and the first step in one frame, a change, then the lift: stream ended and the
  /// end line in one frame.
  func pipeline(stream events: [GestureStreamEvent]) -> ReplayCommand.PipelineFunction {
    let firings = [step(.step(1), at: 1_200_000, scale: 1.1), step(.end(steps: 1), at: 1_500_000, scale: 1.3)]
    return { _, _, _, _ in ReplayCommand.Outcome(profile: 0, firings: firings, notes: [], stream: events) }
  }

  var pinchStream: [GestureStreamEvent] {
    [
      stream(.began, at: 1_200_000, scale: 1.1), stream(.changed, at: 1_300_000, scale: 1.2),
      stream(.ended, at: 1_500_000, scale: 1.3),
    ]
  }

  func run(continuous: Bool, stream events: [GestureStreamEvent]? = nil) -> (ExitCode, [String], String) {
    let recording = directory.write("rec.evemu", Evemu.description(name: "Table") + Evemu.tap(at: 1))
    var command = ReplayCommand(configPath: config, continuous: continuous, recordings: [recording])
    command.replay = pipeline(stream: events ?? pinchStream)
    let output = CapturedOutput()
    let errors = CapturedOutput()
    let code = command.run(output: output, errors: errors)
    return (code, output.lines.map { $0.replacingFile(recording) }, errors.text)
  }

  let firingLines = [
    #"{"file":"F","time":1.200000,"device":"Table","profile":"default","region":"left","binding":"zoom","gesture":"pinch","fingers":2,"direction":"out","step":1,"scale":1.1,"x":0.25,"y":0.5}"#,
    #"{"file":"F","time":1.500000,"device":"Table","profile":"default","region":"left","binding":"zoom","gesture":"pinch","fingers":2,"direction":"out","end":true,"steps":1,"scale":1.3,"x":0.25,"y":0.5}"#,
  ]

  func streamLine(_ time: String, _ phase: String, scale: String) -> String {
    #"{"file":"F","time":\#(time),"device":"Table","profile":"default","region":"left","gesture":"pinch","phase":"\#(phase)","fingers":2,"cx":0.25,"cy":0.5,"dx":0.5,"dy":-1.25,"scale":\#(scale),"angle":1.5,"vx":3.0,"vy":-2.0,"vscale":2.1235,"vangle":10.0}"#
  }

  @Test func streamLinesComeAmongTheFiringsInTimeOrderEachBeforeTheFiringsOfItsFrame() {
    let (code, lines, errors) = run(continuous: true)
    #expect(code == .success)
    #expect(errors == "")
    #expect(
      lines == [
        streamLine("1.200000", "began", scale: "1.1"), firingLines[0], streamLine("1.300000", "changed", scale: "1.2"),
        streamLine("1.500000", "ended", scale: "1.3"), firingLines[1],
      ])
  }

  @Test func withoutTheFlagTheOutputIsTheFiringsAlone() {
    let (code, lines, errors) = run(continuous: false)
    #expect(code == .success)
    #expect(errors == "")
    #expect(lines == firingLines)
  }

  @Test func streamEventsAfterTheLastFiringStillPrint() {
    let late = pinchStream + [stream(.began, at: 2_000_000, scale: 1, region: nil)]
    let (_, lines, _) = run(continuous: true, stream: late)
    #expect(lines.count == 6)
    #expect(
      lines.last?.hasPrefix(
        #"{"file":"F","time":2.000000,"device":"Table","profile":"default","region":null,"gesture":"pinch","phase":"began""#
      ) == true)
  }

  @Test func aStreamEventNamingAnUnknownRegionIsReportedAndSkipped() {
    let (code, lines, errors) = run(continuous: true, stream: [stream(.began, at: 1_000_000, scale: 1, region: 7)])
    #expect(code == .success)
    #expect(lines == firingLines)
    #expect(
      errors.contains("internal error: a stream event names region 7, which profile 'default' does not have; skipped"))
  }

  @Test func streamLinesHaveNoBindingKeyAndEveryValue() throws {
    var profile = Profile()
    profile.regions = [Region(name: "left", area: Area(x: 0, y: 0, width: 0.5, height: 1), independent: true)]
    let line = try #require(
      StreamReport.jsonLine(file: "/dev/input/event5", deviceName: "Table", profile: profile, event: pinchStream[0]))
    #expect(!line.contains("binding"))
    let keys = line.dropFirst().dropLast().split(separator: ",").map { String($0.split(separator: ":")[0]) }
    #expect(
      keys
        == [
          "file", "time", "device", "profile", "region", "gesture", "phase", "fingers", "cx", "cy", "dx", "dy", "scale",
          "angle", "vx", "vy", "vscale", "vangle",
        ].map { #""\#($0)""# })
  }

  @Test func theFlagParsesForReplayAndMonitor() {
    guard case .replay(let replay) = Invocation.parse(["replay", "--continuous", "-c", "c.yaml", "r.evemu"]),
      case .monitor(let monitor) = Invocation.parse(["monitor", "--continuous"]),
      case .replay(let plain) = Invocation.parse(["replay", "-c", "c.yaml", "r.evemu"])
    else {
      Issue.record("--continuous was not recognized")
      return
    }
    #expect(replay.continuous && !plain.continuous)
    #expect(monitor == Daemon.Options(continuous: true))
    func usageError(_ arguments: [String]) -> String? {
      if case .usageError(let message, _) = Invocation.parse(arguments) { return message }
      return nil
    }
    #expect(usageError(["replay", "--continuous=yes", "-c", "c", "r"]) == "replay: --continuous takes no value")
    #expect(
      usageError(["monitor", "--pretty", "--continuous"])
        == "monitor: --continuous adds JSON lines; it cannot be combined with --pretty")
    #expect(usageError(["--continuous"]) == "unknown option '--continuous'")
  }
}

extension String {
  /// The line with the recording's path (a temporary directory) written as `F`.
  fileprivate func replacingFile(_ path: String) -> String {
    var result = ""
    var rest = Substring(self)
    let quoted = JSONLine.quoted(path)
    while let range = rest.firstRange(of: quoted) {
      result += rest[..<range.lowerBound] + #""F""#
      rest = rest[range.upperBound...]
    }
    return result + rest
  }
}
