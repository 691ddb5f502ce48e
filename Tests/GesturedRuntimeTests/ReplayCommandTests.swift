import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// What the fake pipeline was asked to run, in order.
final class PipelineCalls: @unchecked Sendable {
  var devices: [String] = []
  var eventCounts: [Int] = []
}

@Suite("gestured replay")
struct ReplayCommandTests {
  let directory = TemporaryDirectory()

  struct Run {
    var code: ExitCode
    var stdout: CapturedOutput
    var stderr: CapturedOutput
  }

  func replay(_ command: ReplayCommand) -> Run {
    let run = Run(code: .success, stdout: CapturedOutput(), stderr: CapturedOutput())
    let code = command.run(output: run.stdout, errors: run.stderr)
    return Run(code: code, stdout: run.stdout, stderr: run.stderr)
  }

  /// A pipeline that records what it was given and fires one two-finger tap per recording at
  /// the time of its last event.
  func fakePipeline(_ calls: PipelineCalls, notes: [String] = []) -> ReplayCommand.PipelineFunction {
    { device, events, _, _ in
      calls.devices.append(device.name)
      calls.eventCounts.append(events.count)
      let tap = GestureEvent(
        time: events.last?.time ?? Timestamp(microseconds: 0), binding: 0, gesture: .tap,
        fingers: 2, taps: 1,
        position: Point(x: 0.5, y: 0.5), region: nil)
      return ReplayCommand.Outcome(profile: 0, firings: [tap], notes: notes)
    }
  }

  var goodConfig: String {
    directory.write(
      "gestured.yaml", configText(bindings: [#"{ gesture: tap, fingers: 2, run: "true" }"#]))
  }

  @Test func firingsArePrintedAsJSONLinesPerRecordingInOrder() {
    let first = directory.write(
      "first.evemu", Evemu.description(name: "Panel A") + Evemu.tap(at: 1))
    let second = directory.write(
      "second.evemu", Evemu.description(name: "Panel B") + Evemu.tap(at: 5))
    let calls = PipelineCalls()
    var command = ReplayCommand(configPath: goodConfig, recordings: [second, first])
    command.replay = fakePipeline(calls, notes: ["a note"])
    let run = replay(command)
    #expect(run.code == .success)
    #expect(calls.devices == ["Panel B", "Panel A"])
    #expect(calls.eventCounts == [8, 8])
    #expect(
      run.stdout.lines == [
        #"{"file":"\#(second)","time":5.080000,"device":"Panel B","profile":"default","region":null,"binding":"tap","gesture":"tap","fingers":2,"taps":1,"x":0.5,"y":0.5}"#,
        #"{"file":"\#(first)","time":1.080000,"device":"Panel A","profile":"default","region":null,"binding":"tap","gesture":"tap","fingers":2,"taps":1,"x":0.5,"y":0.5}"#,
      ])
    #expect(run.stderr.lines == ["\(second): a note", "\(first): a note"])
  }

  @Test func aMissingRecordingExits66BeforeAnythingRuns() {
    let good = directory.write("good.evemu", Evemu.description() + Evemu.tap())
    let missing = directory.file("missing.evemu")
    let calls = PipelineCalls()
    var command = ReplayCommand(configPath: goodConfig, recordings: [good, missing])
    command.replay = fakePipeline(calls)
    let run = replay(command)
    #expect(run.code == .missingFile)
    #expect(run.stdout.text == "")
    #expect(run.stderr.text == "gestured: cannot read '\(missing)': No such file or directory\n")
    #expect(calls.devices.isEmpty)
  }

  @Test func aBadLineExits65NamingFileAndLineWithNothingOnStdout() throws {
    let good = directory.write("good.evemu", Evemu.description() + Evemu.tap())
    let descriptionLines = Evemu.description().split(separator: "\n").count
    // The bad event is the third E: line of the second file.
    let bad = directory.write(
      "bad.evemu",
      Evemu.description()
        + "E: 1.000000 0003 0039 0007\nE: 1.000000 0003 0035 1920\nE: 1.0000x0 0003 0036 1080\n")
    let calls = PipelineCalls()
    var command = ReplayCommand(configPath: goodConfig, recordings: [good, bad])
    command.replay = fakePipeline(calls)
    let run = replay(command)
    #expect(run.code == .badRecording)
    #expect(run.stdout.text == "")
    #expect(run.stderr.text.hasPrefix("\(bad):\(descriptionLines + 3): error: "))
    #expect(
      calls.devices.isEmpty, "the good first recording must not run before the bad one is found")
  }

  @Test func aBadConfigExits78WithItsPosition() {
    let config = directory.write(
      "bad.yaml", "bindings:\n  - { gesture: tap, rotation: 45, run: x }\n")
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap())
    let run = replay(ReplayCommand(configPath: config, recordings: [recording]))
    #expect(run.code == .badConfig)
    #expect(run.stdout.text == "")
    #expect(run.stderr.text.hasPrefix("\(config):2:"))
  }

  @Test func eventsOnlyWithoutADeviceExits65() {
    let events = directory.write("events.evemu", Evemu.tap())
    let run = replay(ReplayCommand(configPath: goodConfig, recordings: [events]))
    #expect(run.code == .badRecording)
    #expect(run.stdout.text == "")
    #expect(run.stderr.text.hasPrefix("\(events): error: no device description"))
    #expect(run.stderr.text.contains("--device DESC"))
  }

  @Test func eventsOnlyTakeTheirDeviceFromTheDescriptionFile() {
    let description = directory.write("panel.desc", Evemu.description(name: "Described Panel"))
    let events = directory.write("events.evemu", Evemu.tap())
    let calls = PipelineCalls()
    var command = ReplayCommand(
      configPath: goodConfig, devicePath: description, recordings: [events])
    command.replay = fakePipeline(calls)
    let run = replay(command)
    #expect(run.code == .success)
    #expect(calls.devices == ["Described Panel"])
    #expect(run.stderr.text == "")
    #expect(run.stdout.lines.count == 1)
  }

  @Test func theDeviceOptionWinsOverARecordingsOwnDescriptionAndSaysSo() {
    let description = directory.write("panel.desc", Evemu.description(name: "Given Panel"))
    let recording = directory.write("own.evemu", Evemu.description(name: "Own Panel") + Evemu.tap())
    let calls = PipelineCalls()
    var command = ReplayCommand(
      configPath: goodConfig, devicePath: description, recordings: [recording])
    command.replay = fakePipeline(calls)
    let run = replay(command)
    #expect(run.code == .success)
    #expect(calls.devices == ["Given Panel"])
    #expect(
      run.stderr.lines == [
        "\(recording): has its own device description; using the one from --device \(description)"
      ])
  }

  @Test func aDeviceFileWithoutADescriptionExits65() {
    let notADescription = directory.write("events-only.desc", Evemu.tap())
    let recording = directory.write("rec.evemu", Evemu.tap())
    let run = replay(
      ReplayCommand(configPath: goodConfig, devicePath: notADescription, recordings: [recording]))
    #expect(run.code == .badRecording)
    #expect(run.stderr.text.hasPrefix("\(notADescription): error: no device description"))
  }

  @Test func aMissingDeviceFileExits66() {
    let recording = directory.write("rec.evemu", Evemu.tap())
    let missing = directory.file("nope.desc")
    let run = replay(
      ReplayCommand(configPath: goodConfig, devicePath: missing, recordings: [recording]))
    #expect(run.code == .missingFile)
    #expect(run.stderr.text.contains("'\(missing)'"))
  }

  @Test func verboseNamesTheDeviceProfileAndPanelOfTheRealPipeline() {
    let recording = directory.write(
      "rec.evemu", Evemu.description(name: "Verbose Panel") + Evemu.tap())
    let run = replay(ReplayCommand(configPath: goodConfig, verbose: true, recordings: [recording]))
    #expect(run.code == .success)
    let stderr = run.stderr.text
    #expect(
      stderr.contains(
        "\(recording): device 'Verbose Panel' (bus 0x0003 vendor 0x1209 product 0x0001, protocol B (5 slots)), 8 events"
      ))
    #expect(
      stderr.contains(
        "\(recording): profile 'default', panel 153.56 x 86.36 mm as the user sees it (from the axis resolution)"
      ))
    // The transition trace, the daemon's --verbose lines, on stderr; stdout stays JSON.
    #expect(stderr.contains("\(recording): 1.000000 sequence: idle → finger down → landing"))
    #expect(stderr.contains("sequence: open → last finger up → idle"))
    #expect(run.stdout.lines.allSatisfy { $0.hasPrefix("{") })
    let quiet = replay(ReplayCommand(configPath: goodConfig, recordings: [recording]))
    #expect(!quiet.stderr.text.contains("→"))
  }

  @Test func theExampleRecordingFiresADoubleTapThenASwipeLeft() {
    // examples/double-tap-and-swipe.evemu, what `make run` replays: taps down at (1904, 1086)
    // and (1916, 1079), the second lifting at 0.833015 s; a swipe from (3010, 1120) to the
    // left, lifting at 2.259025 s; axes 0..3839 × 0..2159.
    let example = packageRoot + "/examples/double-tap-and-swipe.evemu"
    let config = directory.write(
      "example.yaml",
      configText(bindings: [
        #"{ gesture: tap, taps: 2, run: "true" }"#,
        #"{ gesture: swipe, direction: left, name: next, run: "true" }"#,
      ]))
    let run = replay(ReplayCommand(configPath: config, recordings: [example]))
    #expect(run.code == .success)
    #expect(run.stderr.text == "")
    #expect(
      run.stdout.lines == [
        #"{"file":"\#(example)","time":0.833015,"device":"gestured example panel","profile":"default","region":null,"binding":"tap","gesture":"tap","fingers":1,"taps":2,"x":0.496,"y":0.503}"#,
        #"{"file":"\#(example)","time":2.259025,"device":"gestured example panel","profile":"default","region":null,"binding":"next","gesture":"swipe","fingers":1,"direction":"left","x":0.7841,"y":0.5188}"#,
      ])
  }

  /// Without --verbose and --run-actions, replay checks and runs in one pass and holds the
  /// output; past `heldOutputLimit` it reads the recordings again and prints as it goes.
  /// Held whole, dropped at its first line (limit 0) or in the middle: the same output.
  @Test func theOnePassAndTheTwoPassesPrintTheSame() {
    let example = packageRoot + "/examples/double-tap-and-swipe.evemu"
    // One-finger taps, which this config does not bind: a recording that prints nothing.
    let taps = directory.write("taps.evemu", Evemu.description(name: "Panel B") + Evemu.tap(at: 1) + Evemu.tap(at: 5))
    let config = directory.write(
      "both.yaml",
      configText(bindings: [
        #"{ gesture: tap, taps: 2, run: "true" }"#,
        #"{ gesture: swipe, direction: left, name: next, run: "true" }"#,
      ]))
    func run(limit: Int) -> Run {
      var command = ReplayCommand(configPath: config, recordings: [example, taps, example])
      command.heldOutputLimit = limit
      return replay(command)
    }
    let held = run(limit: 8 << 20)
    #expect(held.code == .success)
    #expect(held.stderr.text == "")
    let lines = held.stdout.lines
    #expect(lines.count == 4 && lines[0..<2] == lines[2..<4])
    #expect(lines.first?.contains(#""binding":"tap","gesture":"tap","fingers":1,"taps":2"#) == true)
    for limit in [0, 300, held.stdout.text.utf8.count - 1] {
      let printed = run(limit: limit)
      #expect(printed.code == .success)
      #expect(printed.stdout.text == held.stdout.text, "limit \(limit)")
      #expect(printed.stderr.text == held.stderr.text, "limit \(limit)")
    }
  }

  @Test func aBadLineInALaterRecordingLeavesStdoutEmptyThoughAnEarlierOneFired() {
    let example = packageRoot + "/examples/double-tap-and-swipe.evemu"
    let config = directory.write(
      "example.yaml", configText(bindings: [#"{ gesture: tap, taps: 2, run: "true" }"#]))
    let bad = directory.write(
      "bad.evemu", Evemu.description() + "E: 1.000000 0003 0039 0007\nE: 1.0000x0 0000 0000 0000\n")
    let run = replay(ReplayCommand(configPath: config, recordings: [example, bad]))
    #expect(run.code == .badRecording)
    #expect(run.stdout.text == "")
    #expect(run.stderr.lines.count == 1)
    #expect(run.stderr.text.hasPrefix("\(bad):"))
  }

  @Test func actionsRunWithTheGestureInTheirEnvironmentAndFailuresAreReported() throws {
    let config = directory.write(
      "actions.yaml",
      configText(bindings: [
        #"{ gesture: tap, fingers: 2, run: "env > '\#(directory.path)/env.txt'; exit 3", environment: { DISPLAY: ":0" } }"#
      ]))
    let recording = directory.write(
      "rec.evemu", Evemu.description(name: "Action Panel") + Evemu.tap(at: 2))
    let calls = PipelineCalls()
    var command = ReplayCommand(configPath: config, runActions: true, recordings: [recording])
    command.replay = fakePipeline(calls)
    let run = replay(command)
    #expect(run.code == .success)
    #expect(run.stdout.lines.count == 1)
    #expect(run.stderr.lines == ["\(recording): action of 'tap' at 2.080000: exit status 3"])
    let environment = try #require(directory.read("env.txt"))
    let variables = Set(environment.split(separator: "\n").map(String.init))
    #expect(variables.contains("GESTURED_DEVNODE=\(recording)"))
    #expect(variables.contains("GESTURED_DEVICE=Action Panel"))
    #expect(variables.contains("GESTURED_GESTURE=tap"))
    #expect(variables.contains("GESTURED_FINGERS=2"))
    #expect(variables.contains("GESTURED_TAPS=1"))
    #expect(variables.contains("DISPLAY=:0"))
    #expect(!variables.contains { $0.hasPrefix("GESTURED_REGION=") })
  }

  @Test func withoutRunActionsNothingIsRun() {
    let config = directory.write(
      "actions.yaml",
      configText(bindings: [#"{ gesture: tap, fingers: 2, run: "touch '\#(directory.path)/ran'" }"#]
      ))
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap())
    var command = ReplayCommand(configPath: config, recordings: [recording])
    command.replay = fakePipeline(PipelineCalls())
    #expect(replay(command).code == .success)
    #expect(directory.read("ran") == nil)
  }

  @Test func actionOutputIsRelayedFromAPipeNeverTheCallersDescriptors() throws {
    // The child names its standard descriptors; the last line has no newline.
    let config = directory.write(
      "fds.yaml",
      configText(bindings: [
        #"{ gesture: tap, fingers: 2, run: "readlink /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2; printf 'no newline \\033[31m'" }"#
      ]))
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap(at: 2))
    var command = ReplayCommand(configPath: config, runActions: true, recordings: [recording])
    command.replay = fakePipeline(PipelineCalls())
    let run = replay(command)
    #expect(run.code == .success)
    #expect(run.stdout.lines.count == 1)
    let prefix = "\(recording): action of 'tap' at 2.080000: "
    let lines = run.stderr.lines
    try #require(lines.count == 4 && lines.allSatisfy { $0.hasPrefix(prefix) }, "\(lines)")
    let said = lines.map { String($0.dropFirst(prefix.count)) }
    #expect(said[0] == "/dev/null")
    #expect(said[1].hasPrefix("pipe:["))
    #expect(said[2] == said[1])
    // Not the test process's own stdout or stderr, even when those are pipes too.
    for ours in [1, 2] {
      var buffer = [CChar](repeating: 0, count: 256)
      let count = readlink("/proc/self/fd/\(ours)", &buffer, buffer.count - 1)
      try #require(count > 0)
      #expect(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) != said[1])
    }
    // Relayed as text: control characters escaped, as the daemon's log lines are.
    #expect(said[3] == "no newline \\u{1b}[31m")
  }

  @Test(.timeLimit(.minutes(1)))
  func aProcessTheCommandLeavesRunningDoesNotHoldReplay() throws {
    let config = directory.write(
      "background.yaml",
      configText(bindings: [
        #"{ gesture: tap, fingers: 2, run: "echo one; sleep 60 & echo $! > '\#(directory.path)/background'; echo two" }"#
      ]))
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap(at: 2))
    var command = ReplayCommand(configPath: config, runActions: true, recordings: [recording])
    command.replay = fakePipeline(PipelineCalls())
    let started = MonotonicClock.now()
    let run = replay(command)
    let elapsed = MonotonicClock.now() - started
    let background = try #require(directory.read("background").flatMap { Int32($0.dropLast()) })
    kill(background, SIGKILL)
    #expect(run.code == .success)
    #expect(
      run.stderr.lines == [
        "\(recording): action of 'tap' at 2.080000: one", "\(recording): action of 'tap' at 2.080000: two",
      ])
    #expect(elapsed < 30_000_000)
  }

  @Test func asRootRunActionsRefusesAConfigOthersCouldChange() throws {
    let config = directory.write(
      "writable.yaml", configText(bindings: [#"{ gesture: tap, fingers: 2, run: "touch '\#(directory.path)/ran'" }"#]))
    try #require(chmod(config, 0o666) == 0)
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap())
    func run(runActions: Bool, as uid: uid_t) -> Run {
      var command = ReplayCommand(configPath: config, runActions: runActions, recordings: [recording])
      command.replay = fakePipeline(PipelineCalls())
      command.effectiveUserID = { uid }
      return replay(command)
    }
    let refused = run(runActions: true, as: 0)
    #expect(refused.code == .badConfig)
    #expect(refused.stdout.text == "")
    #expect(refused.stderr.text.hasPrefix("\(config): error: refusing a config writable by"))
    #expect(refused.stderr.text.hasSuffix("Run: chmod go-w \(config)\n"))
    #expect(directory.read("ran") == nil)
    // Nothing runs without --run-actions, and another user may replay their own files.
    #expect(run(runActions: false, as: 0).code == .success)
    #expect(run(runActions: true, as: 1000).code == .success)
    #expect(directory.read("ran") != nil)
  }
}
