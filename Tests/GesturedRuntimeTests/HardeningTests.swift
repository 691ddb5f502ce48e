import GestureCore
import GesturedConfig
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// Inputs that could hang, crash or forge output: files that are no files, device names
/// with control characters, the open-device cap, replay's `user:`.
@Suite("hardening")
struct HardeningTests {
  let directory = TemporaryDirectory()

  func fifo(_ name: String) throws -> String {
    let path = directory.file(name)
    try #require(mkfifo(path, 0o600) == 0)
    return path
  }

  // MARK: Files that are not regular files

  @Test func aFIFOIsRefusedWithoutBlocking() throws {
    // No writer: a plain open(2) would wait here forever.
    let path = try fifo("config.yaml")
    #expect(throws: FileReadError(path: path, reason: .notRegularFile(kind: "a FIFO"))) {
      try InputFile.read(path: path, maximumSize: 1024)
    }
  }

  @Test func aDirectoryAndADeviceAreRefused() {
    #expect(throws: FileReadError(path: directory.path, reason: .notRegularFile(kind: "a directory"))) {
      try InputFile.read(path: directory.path, maximumSize: 1024)
    }
    #expect(throws: FileReadError(path: "/dev/zero", reason: .notRegularFile(kind: "a character device"))) {
      try InputFile.read(path: "/dev/zero", maximumSize: 1024)
    }
  }

  @Test func missingAndTooLargeFilesKeepTheirReason() {
    let missing = directory.file("missing.yaml")
    #expect(throws: FileReadError(path: missing, reason: .system(errno: .noSuchFileOrDirectory))) {
      try InputFile.read(path: missing, maximumSize: 1024)
    }
    let large = directory.write("large.yaml", String(repeating: "#", count: 2000))
    #expect(throws: FileReadError(path: large, reason: .tooLarge(limit: 1000))) {
      try InputFile.read(path: large, maximumSize: 1000)
    }
    #expect((try? InputFile.read(path: large, maximumSize: 2000))?.count == 2000)
  }

  @Test func checkOnAFIFOExits66SayingWhatItIs() throws {
    let path = try fifo("config.yaml")
    let output = CapturedOutput()
    let errors = CapturedOutput()
    #expect(CheckCommand(configPath: path).run(output: output, errors: errors) == .missingFile)
    #expect(errors.lines == ["gestured: cannot read config '\(path)': not a regular file (it is a FIFO)"])
  }

  @Test func replayOfAFIFORecordingExits66() throws {
    let config = directory.write("gestured.yaml", configText(bindings: [#"{ gesture: tap, run: "true" }"#]))
    let path = try fifo("touch.evemu")
    let errors = CapturedOutput()
    let code = ReplayCommand(configPath: config, recordings: [path]).run(output: CapturedOutput(), errors: errors)
    #expect(code == .missingFile)
    #expect(errors.lines == ["gestured: cannot read '\(path)': not a regular file (it is a FIFO)"])
  }

  @Test func anEmptyRecordingSaysItIsEmpty() {
    let config = directory.write("gestured.yaml", configText(bindings: [#"{ gesture: tap, run: "true" }"#]))
    let recording = directory.write("empty.evemu", "")
    let errors = CapturedOutput()
    let code = ReplayCommand(configPath: config, recordings: [recording]).run(output: CapturedOutput(), errors: errors)
    #expect(code == .badRecording)
    #expect(errors.lines.first == "\(recording): error: the recording is empty (no device description, no events)")
  }

  // MARK: Log forging

  @Test func aDeviceNameWithANewlineStaysOnOneLogLine() {
    let sink = CapturedOutput()
    let logger = Logger(sink: sink, journalPrefixes: true)
    let name = "Panel\n<0>gestured: forged\u{1b}[2J"
    logger.info("/dev/input/event3 '\(name)': profile 'default'")
    #expect(sink.lines == [#"<6>/dev/input/event3 'Panel\n<0>gestured: forged\u{1b}[2J': profile 'default'"#])
  }

  @Test func literalNewlinesStillSplitIntoRecordsAndAppendedStringsAreEscaped() {
    let sink = CapturedOutput()
    let logger = Logger(sink: sink, journalPrefixes: true)
    let tail = "\nforged"
    logger.warning("first\nsecond" + tail)
    #expect(sink.lines == ["<4>first", #"<4>second\nforged"#])
  }

  /// Each kind of interpolated value takes its own way into the text (no dynamic cast); every
  /// way escapes, and each gives the text `String(describing:)` gives.
  @Test func everyKindOfInterpolatedValueIsEscapedAndReadsAsItsDescription() {
    struct Described: CustomStringConvertible { var description: String { "seen\nforged" } }
    struct Plain { var name = "x\u{9b}y" }
    let sink = CapturedOutput()
    let logger = Logger(sink: sink)
    let text = "a\u{85}b\u{a0}c"
    logger.info("\(text) \(text.dropFirst()) \(-42) \(UInt8(7)) \(Described()) \(Plain()) \(1.5)")
    let expected =
      #"a\u{85}b"# + "\u{a0}" + #"c \u{85}b"# + "\u{a0}"
      + #"c -42 7 seen\nforged Plain(name: "x\u{9b}y") 1.5"#
    #expect(sink.lines == [expected])
  }

  /// Integers are written as digits straight into the message: each width and sign reads
  /// as its description, the extremes included.
  @Test func integersReadAsTheirDescriptions() {
    let sink = CapturedOutput()
    let logger = Logger(sink: sink)
    logger.info("\(0) \(Int.min) \(Int32.min) \(Int32.max) \(Int64.min) \(UInt64.max) \(UInt32(7)) \(Int8(-8))")
    let expected = [
      "0", "\(Int.min)", "\(Int32.min)", "\(Int32.max)", "\(Int64.min)", "\(UInt64.max)", "7", "-8",
    ].joined(separator: " ")
    #expect(sink.lines == [expected])
  }

  @Test func controlCharactersAreFoundBehindTheByteScan() {
    let kept = "é, ©, \u{a0}, \u{bf}, tab\tonly"
    #expect(kept.escapingControlCharacters() == kept)
    #expect("\u{9f}\u{7f}\u{0}".escapingControlCharacters() == #"\u{9f}\u{7f}\u{0}"#)
  }

  @Test func configDiagnosticsInTheLogEscapeWhatTheyQuote() {
    let sink = CapturedOutput()
    let logger = Logger(sink: sink)
    let path = directory.write("bad\nname.yaml", "bindings:\n  - { gesture: \"tap\\nforged\", run: a }\n")
    #expect(throws: ExitCode.badConfig) { try Daemon.loadConfiguration(path: path, logger: logger).get() }
    let lines = sink.lines
    #expect(lines.count == 2, "\(lines)")
    #expect(
      lines.first?.hasPrefix(#"\#(directory.path)/bad\nname.yaml:2:16: error: 'tap\nforged' is not a gesture"#) == true,
      "\(lines)")
    #expect(lines.last?.hasPrefix("  hint: ") == true)
  }

  @Test func gesturedDevicesPrintsANameWithANewlineOnItsOwnLine() {
    var command = DevicesCommand()
    command.defaultPath = directory.file("absent.yaml")
    let node = InputNode(
      syspath: "/sys/devices/virtual/input/input9/event9", devnode: "/dev/input/event9",
      properties: ["ID_INPUT_TOUCHSCREEN": "1", "ID_PATH": "pci-0\nprofile     'forged'"],
      name: "Panel\nforged")
    command.listNodes = { .success([node]) }
    command.probe = { _, _ in .success(DeviceDescription(name: "Panel\n/dev/input/event1  \"forged\"")) }
    let output = CapturedOutput()
    #expect(command.run(output: output, errors: CapturedOutput()) == .success)
    #expect(output.lines.contains(#"/dev/input/event9  "Panel\n/dev/input/event1  "forged"""#), "\(output.text)")
    #expect(output.lines.contains(#"  ID_PATH     pci-0\nprofile     'forged'"#), "\(output.text)")
    #expect(!output.lines.contains { $0.hasPrefix("/dev/input/event1") || $0.hasPrefix("profile") })
  }

  @Test func deviceReportsInJSONEscapeDELAndC1() {
    #expect(JSONLine.quoted("a\u{7f}b\u{9b}c") == #""a\u007fb\u009bc""#)
  }

  @Test func aPanelTooLargeForAnIntIsLoggedWithoutTrapping() {
    #expect(Daemon.wholeMillimetres(344.4) == "344")
    #expect(Daemon.wholeMillimetres(9.3e18) == "?")
    #expect(Daemon.wholeMillimetres(.infinity) == "?")
    #expect(Daemon.wholeMillimetres(.nan) == "?")
  }

  // MARK: SYN_DROPPED

  @Test func kernelDropsAreLoggedOncePerBurstWithTheirCount() {
    var log = ResyncLog()
    let start = Timestamp(microseconds: 1_000_000)
    #expect(log.update(total: 0, lastAt: start) == nil, "no drop yet")
    // The first drop of a burst is said at once.
    #expect(log.update(total: 1, lastAt: start) == 1)
    #expect(log.update(total: 1, lastAt: start + 1_000) == nil, "nothing new")
    // More within 10 s of that line: counted, not said.
    #expect(log.update(total: 4, lastAt: start + 2_000_000) == nil)
    #expect(log.update(total: 6, lastAt: start + 9_999_999) == nil)
    // The next drop after 10 s says all of them.
    #expect(log.update(total: 7, lastAt: start + 10_000_000) == 6)
    #expect(log.takeUnlogged() == nil)
    // Held back when the device closes: said then.
    #expect(log.update(total: 9, lastAt: start + 11_000_000) == nil)
    #expect(log.takeUnlogged() == 2)
    #expect(log.takeUnlogged() == nil)
    let line = ResyncLog.message(devnode: "/dev/input/event5", count: 2, closing: true).text
    #expect(line.hasPrefix("/dev/input/event5: the kernel dropped input events 2 times (before it closed"))
    #expect(ResyncLog.message(devnode: "/dev/input/event5", count: 1).text.contains("events once: its buffer"))
  }

  // MARK: max-devices

  @Test func devicesBeyondTheCapAreRefusedAndLoggedOnceEach() {
    var limit = DeviceLimit(maximum: 2)
    #expect(limit.admit("/sys/a", openCount: 0) == .open)
    #expect(limit.admit("/sys/b", openCount: 1) == .open)
    #expect(limit.admit("/sys/c", openCount: 2) == .refuse(log: true))
    #expect(limit.admit("/sys/c", openCount: 2) == .refuse(log: false))
    #expect(limit.admit("/sys/d", openCount: 2) == .refuse(log: true))
    // Unplugged and plugged again: said again.
    limit.forget("/sys/c")
    #expect(limit.admit("/sys/c", openCount: 2) == .refuse(log: true))
    // Room again (a device went away): opened, and a later refusal is logged anew.
    #expect(limit.admit("/sys/d", openCount: 1) == .open)
    #expect(limit.admit("/sys/d", openCount: 2) == .refuse(log: true))
    limit.reset(maximum: 3)
    #expect(limit.admit("/sys/c", openCount: 2) == .open)
    #expect(limit.admit("/sys/e", openCount: 3) == .refuse(log: true))
  }

  @Test func theDaemonTakesMaxDevicesFromTheConfig() throws {
    let path = directory.write(
      "gestured.yaml", "max-devices: 3\n" + configText(bindings: [#"{ gesture: tap, run: "true" }"#]))
    let configuration = try Daemon.loadConfiguration(path: path, logger: Logger(sink: CapturedOutput())).get()
    #expect(configuration.configuration.maximumDevices == 3)
    let plain = directory.write("plain.yaml", configText(bindings: [#"{ gesture: tap, run: "true" }"#]))
    #expect(
      try Daemon.loadConfiguration(path: plain, logger: Logger(sink: CapturedOutput())).get().configuration
        .maximumDevices == 64)
  }

  // MARK: replay --run-actions and user:

  @Test(.enabled(if: geteuid() == 0, "switching users needs root"))
  func replayAsRootRunsUserCommandsAsTheirUser() throws {
    let config = directory.write(
      "user.yaml", configText(bindings: [#"{ gesture: tap, fingers: 2, run: "id -u", user: nobody }"#]))
    let recording = directory.write("rec.evemu", Evemu.description() + Evemu.tap())
    var command = ReplayCommand(configPath: config, runActions: true, recordings: [recording])
    command.replay = { _, events, _, _ in
      let tap = GestureEvent(
        time: events.last?.time ?? Timestamp(microseconds: 0), binding: 0, gesture: .tap,
        fingers: 2, taps: 1, position: Point(x: 0.5, y: 0.5), region: nil)
      return ReplayCommand.Outcome(profile: 0, firings: [tap], notes: [])
    }
    let errors = CapturedOutput()
    #expect(command.run(output: CapturedOutput(), errors: errors) == .success)
    let nobody = try UserIdentity(lookingUp: "nobody")
    // The command's output comes back through replay's relay.
    #expect(errors.lines.count == 1)
    #expect(errors.text.hasPrefix("\(recording): action of "))
    #expect(errors.text.hasSuffix(": \(nobody.uid)\n"))
  }
}

/// Broken configs and recordings, each with the exit status and message it must give
/// (BadInputs/expected.tsv), through the commands' real code paths: none crashes or hangs.
@Suite("bad-input matrix", .timeLimit(.minutes(1)))
struct BadInputTests {
  static let root = packageRoot + "/Tests/GesturedRuntimeTests/BadInputs"

  struct Case: CustomStringConvertible, Sendable {
    var file: String
    var status: Int32
    var message: String
    var description: String { file }
  }

  static let cases: [Case] = {
    guard let bytes = try? InputFile.read(path: root + "/expected.tsv", maximumSize: 1 << 20) else { return [] }
    return String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
      guard !line.hasPrefix("#") else { return nil }
      let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 3, let status = Int32(fields[1]) else { return nil }
      return Case(file: fields[0], status: status, message: fields[2])
    }
  }()

  @Test func theMatrixHasEveryFileAndEnoughOfThem() {
    func listed(_ directory: String) -> Set<String> {
      var names: Set<String> = []
      guard let handle = opendir(Self.root + "/" + directory) else { return names }
      defer { closedir(handle) }
      while let entry = readdir(handle) {
        let name = withUnsafePointer(to: entry.pointee.d_name) {
          $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
        }
        if !name.hasPrefix(".") { names.insert(directory + "/" + name) }
      }
      return names
    }
    let files = listed("configs").union(listed("recordings"))
    #expect(Set(Self.cases.map(\.file)) == files)
    #expect(Self.cases.count { $0.file.hasPrefix("configs/") } >= 30)
    #expect(Self.cases.count { $0.file.hasPrefix("recordings/") } >= 15)
  }

  @Test(arguments: cases)
  func givesItsStatusAndMessage(_ badInput: Case) throws {
    let directory = TemporaryDirectory()
    let path = Self.root + "/" + badInput.file
    let errors = CapturedOutput()
    let code: ExitCode
    if badInput.file.hasPrefix("configs/") {
      code = CheckCommand(configPath: path).run(output: CapturedOutput(), errors: errors)
    } else {
      let config = directory.write("good.yaml", configText(bindings: [#"{ gesture: tap, run: "true" }"#]))
      code = ReplayCommand(configPath: config, recordings: [path]).run(output: CapturedOutput(), errors: errors)
    }
    #expect(code.rawValue == badInput.status, "\(errors.text)")
    let first = try #require(errors.lines.first)
    #expect(first.hasPrefix(path), "\(first)")
    // "…" in the expected text stands for anything.
    var rest = Substring(first.dropFirst(path.count))
    for (index, part) in badInput.message.split(separator: "…", omittingEmptySubsequences: false).enumerated() {
      if index == 0 {
        #expect(rest.hasPrefix(part), "\(first)")
      }
      guard let found = rest.firstRange(of: part) else {
        Issue.record("'\(part)' not in \(first)")
        return
      }
      rest = rest[found.upperBound...]
    }
  }
}
