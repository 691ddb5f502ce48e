import GestureCore
import GesturedConfig
import Testing
import TouchScript

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The scenarios: `Scenarios/*.touch`, each naming its config with a `config` line.
/// Found through this file's path: the test runs from the source tree.
enum Scenarios {
  static let directory: String = {
    let path = #filePath
    let folder = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
    return folder.joined(separator: "/") + "/Scenarios"
  }()

  /// Sorted, so runs and reports are in a stable order.
  static let names: [String] = {
    guard let handle = opendir(directory) else { return [] }
    defer { closedir(handle) }
    var names: [String] = []
    while let entry = readdir(handle) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name.hasSuffix(".touch") { names.append(name) }
    }
    return names.sorted()
  }()

  struct ReadError: Error, CustomStringConvertible {
    var path: String
    var description: String { "cannot read \(path)" }
  }

  static func read(_ name: String) throws -> String {
    let path = directory + "/" + name
    guard let file = fopen(path, "r") else { throw ReadError(path: path) }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = fread(&buffer, 1, buffer.count, file)
      if count <= 0 { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// The config a script names, loaded as gestured loads it; config errors fail the test.
  static func configuration(for script: TouchScript, name: String) throws -> Configuration {
    try load(for: script, name: name).configuration
  }

  static func load(for script: TouchScript, name: String) throws -> (
    configuration: Configuration, actions: [ProfileActions]
  ) {
    let configName = script.configuration ?? String(name.dropLast(".touch".count)) + ".yaml"
    let result = ConfigLoader.parse(try read(configName), file: configName)
    let errors = result.errors.map(\.description).joined(separator: "\n")
    let configuration = try #require(result.configuration, "\(configName) does not load:\n\(errors)")
    return (configuration, result.actions)
  }

  /// What replay prints of a run: end events only for bindings with `end:`.
  static func reported(_ firings: [GestureEvent], profile: Int, actions: [ProfileActions]) -> [GestureEvent] {
    guard actions.indices.contains(profile) else { return firings }
    return firings.filter { actions[profile].reports($0) }
  }
}

@Suite("Replay scenarios")
struct ScenarioTests {
  @Test("the scenario folder is found and holds scenarios")
  func scenariosExist() {
    #expect(Scenarios.names.count >= 30, "found \(Scenarios.names.count) in \(Scenarios.directory)")
  }

  /// Script → evemu text → EvemuParser → Replay, so the same file path as `gestured replay`
  /// is exercised, then every firing is compared with the script's `expect` lines and the
  /// stream (reported, as `--continuous` asks) with its `expect stream` lines.
  @Test("scenario replays as expected", arguments: Scenarios.names)
  func scenario(name: String) throws {
    let script = try TouchScript.parse(try Scenarios.read(name), file: name)
    let (configuration, actions) = try Scenarios.load(for: script, name: name)
    let recording = try EvemuParser.parse(script.evemuText(), file: name + ".evemu")
    let device = try #require(recording.device)
    #expect(device == script.device)
    let result = Replay.run(
      device: device, events: recording.events, configuration: configuration, reportsStream: true)
    let profileIndex = try #require(
      result.profile, "no profile took \(device.name): \(result.notes)")
    let profile = configuration.profiles[profileIndex]
    let firings = Scenarios.reported(result.firings, profile: profileIndex, actions: actions)
    if let report = script.check(firings: firings, profile: profile) {
      Issue.record(Comment(rawValue: report))
    }
    if let report = script.check(stream: result.stream, profile: profile) {
      Issue.record(Comment(rawValue: report))
    }
  }
}

@Suite("Scenario robustness")
struct ScenarioRobustnessTests {
  /// A scenario must not pass by a lucky draw of jitter: the VM harness will replay the same
  /// touches with its own noise. Each scenario is run again with other seeds.
  @Test("scenario holds for other jitter seeds", arguments: Scenarios.names)
  func otherSeeds(name: String) throws {
    let original = try Scenarios.read(name)
    var failures: [String] = []
    for seed in 1000..<1008 {
      let text = original.split(separator: "\n", omittingEmptySubsequences: false)
        .map { $0.hasPrefix("seed ") ? "seed \(seed)" : String($0) }
        .joined(separator: "\n")
      let script = try TouchScript.parse(text, file: name)
      let (configuration, actions) = try Scenarios.load(for: script, name: name)
      let result = Replay.run(
        device: script.device, events: script.events, configuration: configuration, reportsStream: true)
      let profileIndex = try #require(result.profile)
      let profile = configuration.profiles[profileIndex]
      let firings = Scenarios.reported(result.firings, profile: profileIndex, actions: actions)
      if let report = script.check(firings: firings, profile: profile) {
        failures.append("seed \(seed): \(report)")
      }
      if let report = script.check(stream: result.stream, profile: profile) {
        failures.append("seed \(seed): \(report)")
      }
    }
    if let first = failures.first {
      Issue.record(Comment(rawValue: "\(failures.count) of 8 seeds fail; the first:\n\(first)"))
    }
  }
}

@Suite("Broken recordings")
struct BrokenRecordingTests {
  func recording() throws -> [String] {
    let script = try TouchScript.parse(
      try Scenarios.read("single-tap.touch"), file: "single-tap.touch")
    return script.evemuText().split(separator: "\n", omittingEmptySubsequences: false).map(
      String.init)
  }

  @Test(
    "a bad line is rejected with its line number, before anything is replayed",
    arguments: [
      ("E: 0.180000 0003 00zz 0000", "a bad hex code"),
      ("E: 0.180000 0003", "a cut-off event"),
      ("E: 0.010000 0000 0000 0000", "time going backwards"),
      ("A: 35 0 4095", "an axis with too few numbers"),
      ("Q: what is this", "an unknown line"),
    ])
  func rejected(replacement: String, what: String) throws {
    var lines = try recording()
    let firstEvent = try #require(lines.firstIndex { $0.hasPrefix("E: ") })
    // Events: break one well after the first (so "backwards" really goes back); the
    // description: break the first A: line.
    let index =
      replacement.hasPrefix("E:")
      ? try #require(lines.indices.last { $0 > firstEvent && lines[$0].hasPrefix("E: 0.1") })
      : replacement.hasPrefix("A:")
        ? try #require(lines.firstIndex { $0.hasPrefix("A: ") }) : firstEvent
    lines[index] = replacement
    let error = #expect(throws: RecordingError.self, "\(what)") {
      try EvemuParser.parse(lines.joined(separator: "\n"), file: "broken.evemu")
    }
    #expect(error?.line == index + 1, "\(what): \(error?.description ?? "no error")")
    #expect(error?.file == "broken.evemu")
  }
}
