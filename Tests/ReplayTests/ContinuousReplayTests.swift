import GestureCore
import GesturedRuntime
import GesturedSystem
import Testing
import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured replay --continuous` end to end: a scenario's recording through the real
/// pipeline, the stream lines among the firing lines as docs/cli.md says.
@Suite("replay --continuous, end to end")
struct ContinuousReplayTests {
  final class Lines: OutputSink {
    var text = ""
    func write(_ text: String) { self.text += text }
    var lines: [String] { text.split(separator: "\n").map(String.init) }
  }

  /// Replay of the scenario's recording, with and without `--continuous`.
  func replay(_ name: String) throws -> (plain: [String], continuous: [String], stream: Int) {
    let script = try TouchScript.parse(try Scenarios.read(name), file: name)
    let configName = script.configuration ?? String(name.dropLast(".touch".count)) + ".yaml"
    var template = Array("/tmp/gestured-continuous-XXXXXX".utf8CString)
    let directory = try #require(
      template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
    defer {
      for file in ["rec.evemu"] { unlink(directory + "/" + file) }
      rmdir(directory)
    }
    let recording = directory + "/rec.evemu"
    let file = try #require(fopen(recording, "w"))
    fputs(script.evemuText(), file)
    fclose(file)
    func run(continuous: Bool) -> [String] {
      let output = Lines()
      let errors = Lines()
      let code = ReplayCommand(
        configPath: Scenarios.directory + "/" + configName, continuous: continuous, recordings: [recording]
      ).run(output: output, errors: errors)
      #expect(code == .success, "\(errors.text)")
      return output.lines
    }
    let (configuration, _) = try Scenarios.load(for: script, name: name)
    let stream = Replay.run(
      device: script.device, events: script.events, configuration: configuration, reportsStream: true
    ).stream
    return (run(continuous: false), run(continuous: true), stream.count)
  }

  static let streamKeys = [
    "file", "time", "device", "profile", "region", "gesture", "phase", "fingers", "cx", "cy", "dx", "dy", "scale",
    "angle", "vx", "vy", "vscale", "vangle",
  ]

  func keys(_ line: String) -> [String] {
    line.dropFirst().dropLast().split(separator: ",").map { String($0.split(separator: ":")[0].dropFirst().dropLast()) }
  }

  func time(_ line: String) -> Substring? {
    line.split(separator: #""time":"#).dropFirst().first?.split(separator: ",").first
  }

  @Test func aPinchsStreamLinesComeAmongItsStepLinesEachFirstInItsFrame() throws {
    let (plain, continuous, streamCount) = try replay("steps-levels.touch")
    let streamLines = continuous.filter { $0.contains(#""phase":"#) }
    #expect(continuous.filter { !$0.contains(#""phase":"#) } == plain, "the firing lines are unchanged")
    #expect(streamLines.count == streamCount && streamCount > 2)
    for line in streamLines { #expect(keys(line) == Self.streamKeys, "\(line)") }
    // began in the frame of steps 1 and 2, before them; ended before the end line.
    let began = try #require(continuous.firstIndex { $0.contains(#""phase":"began""#) })
    #expect(continuous[began + 1].contains(#""step":1,"#) && continuous[began + 2].contains(#""step":2,"#))
    #expect(time(continuous[began]) == time(continuous[began + 1]) && time(continuous[began]) != nil)
    let ended = try #require(continuous.firstIndex { $0.contains(#""phase":"ended""#) })
    #expect(ended == continuous.count - 2 && continuous[ended + 1].contains(#""end":true"#))
    #expect(continuous.filter { $0.contains(#""phase":"began""#) }.count == 1)
  }

  @Test func withoutContinuousGesturesTheOutputIsTheSame() throws {
    let (plain, continuous, streamCount) = try replay("double-tap.touch")
    #expect(streamCount == 0)
    #expect(continuous == plain && !plain.isEmpty)
  }
}
