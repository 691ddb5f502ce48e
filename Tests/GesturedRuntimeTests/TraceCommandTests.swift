import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

@Suite("gestured trace")
struct TraceCommandTests {
  let directory = TemporaryDirectory()

  /// The test panel (`Evemu.description`) as the user sees it: 3839 × 2159 units at 25/mm.
  static let panelWidth = 3839.0 / 25
  static let panelHeight = 2159.0 / 25

  /// A tap in the middle at 1 s (fires `<tap & "go">`), then at 3 s a finger that slides 16 mm
  /// to the right in 60 ms (the tap fails at 8 mm, beyond the 5 mm the lift-roll rule allows;
  /// no swipe is bound), and at 5 s two fingers in the region `top<left>` (nothing is bound
  /// for two fingers).
  var recording: String {
    let slide = """
      E: 3.000000 0003 0039 0008
      E: 3.000000 0003 0035 1000
      E: 3.000000 0003 0036 1500
      E: 3.000000 0001 014a 0001
      E: 3.000000 0000 0000 0000
      E: 3.020000 0003 0035 1200
      E: 3.020000 0000 0000 0000
      E: 3.040000 0003 0035 1400
      E: 3.040000 0000 0000 0000
      E: 3.060000 0003 0039 -001
      E: 3.060000 0001 014a 0000
      E: 3.060000 0000 0000 0000

      """
    let twoFingers = """
      E: 5.000000 0003 002f 0000
      E: 5.000000 0003 0039 0009
      E: 5.000000 0003 0035 0300
      E: 5.000000 0003 0036 0300
      E: 5.000000 0003 002f 0001
      E: 5.000000 0003 0039 0010
      E: 5.000000 0003 0035 0600
      E: 5.000000 0003 0036 0300
      E: 5.000000 0001 014a 0001
      E: 5.000000 0000 0000 0000
      E: 5.070000 0003 002f 0000
      E: 5.070000 0003 0039 -001
      E: 5.070000 0003 002f 0001
      E: 5.070000 0003 0039 -001
      E: 5.070000 0001 014a 0000
      E: 5.070000 0000 0000 0000

      """
    return directory.write(
      "panel.evemu", Evemu.description(name: "Panel <&> \"1\"") + Evemu.tap(at: 1) + slide + twoFingers)
  }

  var config: String {
    directory.write(
      "gestured.yaml",
      configText(
        bindings: [#"{ name: "<tap & \"go\">", gesture: tap, run: "true" }"#],
        regions: [#"{ name: "top<left>", area: { x: 0, y: 0, width: 0.5, height: 0.5 } }"#]))
  }

  func trace(_ command: TraceCommand) -> (code: ExitCode, stdout: CapturedOutput, stderr: CapturedOutput) {
    let stdout = CapturedOutput()
    let stderr = CapturedOutput()
    let code = command.run(output: stdout, errors: stderr)
    return (code, stdout, stderr)
  }

  func count(_ needle: String, in text: String) -> Int {
    text.ranges(of: needle).count
  }

  @Test func thePictureHasTheRegionsPathsFiringsAndWhyTheRestFiredNothing() throws {
    let run = trace(TraceCommand(configPath: config, recording: recording, svgPath: "-"))
    #expect(run.code == .success)
    let svg = run.stdout.text
    #expect(svg.hasPrefix("<?xml"))
    #expect(svg.hasSuffix("</svg>\n"))
    // The panel at its true aspect ratio.
    let panel = try #require(svg.split(separator: "\n").first { $0.contains(TracePicture.panelOutline) })
    let width = try #require(Double(attribute("width", of: panel)))
    let height = try #require(Double(attribute("height", of: panel)))
    #expect(abs(width / height - Self.panelWidth / Self.panelHeight) < 0.005)
    // One region, named; one path per contact, each with a start and an end; one firing.
    #expect(count("stroke-dasharray", in: svg) == 1)
    #expect(svg.contains(">top&lt;left&gt;</text>"))
    #expect(count("class=\"path\"", in: svg) == 4)
    #expect(count("class=\"start\"", in: svg) == 4)
    #expect(count("class=\"end\"", in: svg) == 4)
    #expect(count("data-sequence=\"3\"", in: svg) == 2)
    #expect(count("class=\"firing\"", in: svg) == 1)
    #expect(svg.contains("&lt;tap &amp; &quot;go&quot;&gt;: 0.080 s</text>"))
    // Names from files never reach the SVG unescaped.
    #expect(!svg.contains("<tap"))
    #expect(!svg.contains("top<left>"))
    #expect(svg.contains("Panel &lt;&amp;&gt; &quot;1&quot;"))
    // The legend: what fired, and why the rest did not.
    #expect(svg.contains("#1 at 0.000 s, 80 ms, 1 finger, region none: fired &lt;tap &amp; &quot;go&quot;&gt;"))
    #expect(svg.contains("#2 at 2.000 s, 60 ms, 1 finger, region none: fired nothing. tap: moved 8.0 mm &gt; 5.0 mm"))
    #expect(
      svg.contains(
        "#3 at 4.000 s, 70 ms, 2 fingers, region top&lt;left&gt;: fired nothing. nothing bound for 2 fingers in region top&lt;left&gt;"
      ))
    #expect(run.stderr.text == "\(recording): 3 touch sequences, 1 fired, 1 firing\n")
  }

  @Test func stepsOfAContinuousGestureAreOneMarkWithTheirCount() throws {
    // A two-finger pan to the right, 40 mm in 10 frames, with a 10 mm step.
    var events = """
      E: 1.000000 0003 002f 0000
      E: 1.000000 0003 0039 0001
      E: 1.000000 0003 0035 1000
      E: 1.000000 0003 0036 1000
      E: 1.000000 0003 002f 0001
      E: 1.000000 0003 0039 0002
      E: 1.000000 0003 0035 1000
      E: 1.000000 0003 0036 1500
      E: 1.000000 0001 014a 0001
      E: 1.000000 0000 0000 0000

      """
    for frame in 1...10 {
      let time = "1.\(100 + frame * 20)000"
      let x = 1000 + frame * 100
      events += """
        E: \(time) 0003 002f 0000
        E: \(time) 0003 0035 \(x)
        E: \(time) 0003 002f 0001
        E: \(time) 0003 0035 \(x)
        E: \(time) 0000 0000 0000

        """
    }
    events += """
      E: 1.400000 0003 002f 0000
      E: 1.400000 0003 0039 -001
      E: 1.400000 0003 002f 0001
      E: 1.400000 0003 0039 -001
      E: 1.400000 0001 014a 0000
      E: 1.400000 0000 0000 0000

      """
    let file = directory.write("pan.evemu", Evemu.description() + events)
    let config = directory.write(
      "pan.yaml",
      configText(bindings: [#"{ name: scroll, gesture: pan, fingers: 2, direction: right, step: 10mm, run: "true" }"#]))
    let run = trace(TraceCommand(configPath: config, recording: file, svgPath: "-"))
    #expect(run.code == .success)
    #expect(count("class=\"firing\"", in: run.stdout.text) == 1)
    #expect(run.stdout.text.contains(">scroll: 4 steps, "))
    #expect(run.stdout.text.contains("fired scroll (4 steps)"))
  }

  @Test func exitCodesAreReplays() {
    let missing = directory.file("missing.evemu")
    #expect(trace(TraceCommand(configPath: config, recording: missing, svgPath: "-")).code == .missingFile)
    let bad = directory.write("bad.evemu", Evemu.description() + "E: nonsense\n")
    #expect(trace(TraceCommand(configPath: config, recording: bad, svgPath: "-")).code == .badRecording)
    let eventsOnly = directory.write("events.evemu", Evemu.tap())
    let noDevice = trace(TraceCommand(configPath: config, recording: eventsOnly, svgPath: "-"))
    #expect(noDevice.code == .badRecording)
    #expect(noDevice.stderr.text.contains("hint: give one with --device DESC"))
    let description = directory.write("panel.desc", Evemu.description())
    let withDevice = trace(
      TraceCommand(configPath: config, devicePath: description, recording: eventsOnly, svgPath: "-"))
    #expect(withDevice.code == .success)
    let badConfig = directory.write("bad.yaml", "bindings: [ { gesture: wobble } ]\n")
    #expect(trace(TraceCommand(configPath: badConfig, recording: recording, svgPath: "-")).code == .badConfig)
    let unwritable = trace(
      TraceCommand(configPath: config, recording: recording, svgPath: directory.file("no/such.svg")))
    #expect(unwritable.code == .ioError)
    #expect(unwritable.stderr.text.contains("cannot write"))
  }

  @Test func theFileIsWrittenWhereAsked() throws {
    let out = directory.file("out.svg")
    let run = trace(TraceCommand(configPath: config, recording: recording, svgPath: out))
    #expect(run.code == .success)
    #expect(run.stdout.text == "")
    let written = try #require(directory.read("out.svg"))
    #expect(written.hasPrefix("<?xml") && written.hasSuffix("</svg>\n"))
  }

  @Test func theCommandLineIsParsed() {
    guard case .trace(let command) = Invocation.parse(["trace", "-c", "g.yaml", "r.evemu", "--svg", "-"]) else {
      Issue.record("not a trace")
      return
    }
    #expect(command.configPath == "g.yaml" && command.recording == "r.evemu" && command.svgPath == "-")
    guard case .usageError(let message, _) = Invocation.parse(["trace", "--config", "g.yaml", "r.evemu"]) else {
      Issue.record("no usage error")
      return
    }
    #expect(message == "trace: --svg OUT.svg is required")
    guard case .usageError(let two, _) = Invocation.parse(["trace", "-c", "g", "a", "b", "--svg", "o"]) else {
      Issue.record("no usage error")
      return
    }
    #expect(two.hasPrefix("trace: one RECORDING at a time"))
  }

  static var canRender: Bool { access("/usr/bin/rsvg-convert", X_OK) == 0 && access("/usr/bin/python3", X_OK) == 0 }

  /// Rendered by librsvg (Debian librsvg2-bin) and decoded by Tests/Packaging/png-colours.py:
  /// the panel keeps its aspect ratio and the region's and every path's colour are drawn.
  @Test(.enabled(if: canRender, "needs rsvg-convert (librsvg2-bin) and python3"))
  func theRenderedPictureKeepsTheAspectRatioAndShowsEveryColour() throws {
    let svg = directory.file("out.svg")
    #expect(trace(TraceCommand(configPath: config, recording: recording, svgPath: svg)).code == .success)
    let region = TracePicture.regionColours[0]
    let paths = Array(TracePicture.pathColours.prefix(4))
    let colours = ([TracePicture.panelOutline, region] + paths).map { "'\($0)'" }.joined(separator: " ")
    let png = directory.file("out.png")
    let stats = directory.file("stats.txt")
    let status = try spawnShell(
      "/usr/bin/rsvg-convert -f png -o '\(png)' '\(svg)' && /usr/bin/python3 '\(packageRoot)/Tests/Packaging/png-colours.py' '\(png)' \(colours) > '\(stats)'",
      environment: ActionEnvironment()
    ).waitForExit()
    #expect(status.succeeded)
    let lines = try #require(directory.read("stats.txt")).split(separator: "\n").map { $0.split(separator: " ") }
    let box = try #require(lines.first { $0.count == 6 && $0[0] == "box" && $0[1] == TracePicture.panelOutline })
    let (x0, y0, x1, y1) = (Double(box[2])!, Double(box[3])!, Double(box[4])!, Double(box[5])!)
    // The outline is 4 px wide, centred on the panel's edge.
    let ratio = (x1 - x0 - 3) / (y1 - y0 - 3)
    #expect(abs(ratio - Self.panelWidth / Self.panelHeight) < 0.01, "panel drawn \(x1 - x0) × \(y1 - y0)")
    for colour in [region] + paths {
      // Inside the panel: the legend's swatches do not count. The tap's path is its start dot
      // and its label, partly under its firing's mark.
      let found = lines.first { $0.count == 3 && $0[0] == "inside" && $0[1] == colour }.flatMap { Int($0[2]) } ?? 0
      #expect(found >= 20, "\(colour): \(found) pixels in the panel")
    }
  }

  private func attribute(_ name: String, of element: Substring) -> String {
    guard let start = element.firstRange(of: " \(name)=\"") else { return "" }
    return String(element[start.upperBound...].prefix { $0 != "\"" })
  }
}
