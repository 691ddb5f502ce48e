import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] [--continuous]
/// RECORDING...`: runs evemu recordings through the recognition pipeline on their own clock
/// and prints one JSON line per firing (and, with --continuous, per stream event).
///
/// Every input is checked before anything is printed or run, so a bad file ends the command
/// with nothing on stdout. Recordings are read in pieces, so memory stays small whatever a
/// recording's size: in one pass that checks every line and runs the events, holding the
/// output until every recording has been read to its end; or, when that output would grow
/// past `heldOutputLimit`, with `--run-actions` (an action must not run before every file is
/// known good) and with `--verbose`, in two (a first pass checks every line, the second
/// runs the events and prints as it goes).
public struct ReplayCommand: Sendable {
  public var configPath: String
  /// A description file (`evemu-describe`) for recordings cut down to their `E:` lines. It
  /// also replaces the description of recordings that have one.
  public var devicePath: String?
  /// Run each firing's `run:` and wait for it before going on.
  public var runActions: Bool
  /// Say on stderr which device, protocol, profile and panel size each recording ran with,
  /// and the recognizers' transition trace (the daemon's --verbose lines).
  public var verbose: Bool
  /// In the order given; `file` in the output is the path as given.
  public var recordings: [String]
  /// Also print a line per event of the continuous gestures' streams, among the firings in
  /// event-time order (a frame's stream lines before its firings).
  public var continuous = false

  /// What the pipeline returned for one recording (`Replay.Result`, in a form tests can build).
  struct Outcome: Sendable {
    var profile: Int?
    var firings: [GestureEvent]
    var notes: [String]
    var trace: [String] = []
    var stream: [GestureStreamEvent] = []
  }

  /// A fake pipeline. Tests put one here to drive the output and action code with firings of
  /// their own choosing; it gets the recording's events in one array (a test's recordings
  /// are small). The last argument asks for the trace. Without one, replay streams each
  /// recording through `Replay.Session`.
  typealias PipelineFunction = @Sendable (DeviceDescription, [RawEvent], Configuration, Bool) -> Outcome

  /// Who replay runs as; tests pretend to be someone else.
  var effectiveUserID: @Sendable () -> uid_t = { geteuid() }

  var replay: PipelineFunction? = nil

  /// The most output the one-pass replay holds back (bytes of JSON lines and notes); beyond
  /// it, replay reads the recordings a second time and prints as it goes. Tests lower it.
  var heldOutputLimit = 8 << 20

  public init(
    configPath: String, devicePath: String? = nil, runActions: Bool = false, verbose: Bool = false,
    continuous: Bool = false, recordings: [String]
  ) {
    self.configPath = configPath
    self.devicePath = devicePath
    self.runActions = runActions
    self.verbose = verbose
    self.continuous = continuous
    self.recordings = recordings
  }

  /// JSON lines go to `output`; diagnostics, notes, verbose details and the output of actions
  /// go to `errors`.
  public func run(output: some OutputSink, errors: some OutputSink) -> ExitCode {
    let configuration: Configuration
    let actions: [ProfileActions]
    switch ConfigStep.load(path: configPath, errors: errors) {
    case .failure(let code): return code
    case .success(let loaded):
      configuration = loaded.configuration
      actions = loaded.actions
    }

    var givenDevice: DeviceDescription?
    if let devicePath {
      switch Self.load(devicePath, errors: errors) {
      case .failure(let code): return code
      case .success(let description):
        guard let device = description.device else {
          errors.write(
            "\(devicePath.escapingControlCharacters()): error: no device description (N:, I:, P:, B:, A: lines) in the file given"
              + " with --device\n")
          return .badRecording
        }
        givenDevice = device
      }
    }

    // First pass: every recording checked, only its description and event count kept; and,
    // where it can, run, its output held (`HeldOutput`).
    let held = runActions || verbose || replay != nil ? nil : HeldOutput(limit: heldOutputLimit)
    var prepared: [(file: String, device: DeviceDescription, events: Int)] = []
    for file in recordings {
      let checked: (device: DeviceDescription?, events: Int)
      switch check(
        file, device: givenDevice, configuration: configuration, actions: actions, held: held, errors: errors)
      {
      case .failure(let code): return code
      case .success(let result): checked = result
      }
      if let givenDevice, let devicePath {
        if checked.device != nil {
          errors.write(
            "\(file.escapingControlCharacters()): has its own device description; using the one from --device \(devicePath.escapingControlCharacters())\n"
          )
        }
        prepared.append((file, givenDevice, checked.events))
      } else if let device = checked.device {
        prepared.append((file, device, checked.events))
      } else if checked.events == 0 {
        errors.write(
          "\(file.escapingControlCharacters()): error: the recording is empty (no device description, no events)\n"
            + "  hint: record one with evemu-record, or check the path\n")
        return .badRecording
      } else {
        errors.write(
          "\(file.escapingControlCharacters()): error: no device description in this recording (only E: lines)\n"
            + "  hint: give one with --device DESC (a file written by evemu-describe or evemu-record)\n"
        )
        return .badRecording
      }
    }

    if let held, !held.overflowed {
      held.write(to: output, errors: errors)
      return .success
    }
    for (file, device, events) in prepared {
      let code = run(
        file: file, device: device, eventCount: events, configuration: configuration, actions: actions,
        output: output, errors: errors)
      if code != .success { return code }
    }
    return .success
  }

  /// Second pass: the recording's events through the pipeline, firings printed (and run)
  /// as they come. 65 if the file changed since it was checked and no longer reads.
  private func run(
    file: String, device: DeviceDescription, eventCount: Int, configuration: Configuration,
    actions: [ProfileActions], output: some OutputSink, errors: some OutputSink
  ) -> ExitCode {
    if verbose {
      errors.write(
        "\(file.escapingControlCharacters()): device '\(device.name.escapingControlCharacters())' \(Self.ids(device)), \(eventCount) events\n"
      )
    }
    let escapedFile = file.escapingControlCharacters()
    if let replay {
      var events: [RawEvent] = []
      if case .failure(let code) = Self.stream(file, errors: errors, events: { batch, _ in events += batch }) {
        return code
      }
      let result = replay(device, events, configuration, verbose)
      var printer = FiringPrinter(
        command: self, file: file, device: device, configuration: configuration,
        actions: actions, profile: result.profile)
      for note in result.notes { errors.write("\(escapedFile): \(note.escapingControlCharacters())\n") }
      for line in result.trace { errors.write("\(escapedFile): \(line.escapingControlCharacters())\n") }
      printer.start(errors: errors)
      printer.print(result.firings, stream: continuous ? result.stream : [], output: output, errors: errors)
      printer.end(errors: errors)
      return .success
    }
    var run = RecordingRun(
      command: self, file: file, device: device, configuration: configuration, actions: actions,
      output: output, errors: errors)
    if case .failure(let code) = Self.stream(file, errors: errors, events: { batch, _ in run.handle(batch) }) {
      return code
    }
    run.finish()
    return .success
  }
}

/// Prints (and with --run-actions runs) one recording's firings, batch after batch.
private struct FiringPrinter {
  let command: ReplayCommand
  let file: String
  let escapedFile: String
  let device: DeviceDescription
  let profile: Profile?
  let profileActions: ProfileActions
  var firingCount = 0
  var printed = 0

  init(
    command: ReplayCommand, file: String, device: DeviceDescription, configuration: Configuration,
    actions: [ProfileActions], profile profileIndex: Int?
  ) {
    self.command = command
    self.file = file
    escapedFile = file.escapingControlCharacters()
    self.device = device
    if let profileIndex, configuration.profiles.indices.contains(profileIndex) {
      profile = configuration.profiles[profileIndex]
      profileActions = actions.indices.contains(profileIndex) ? actions[profileIndex] : ProfileActions()
    } else {
      profile = nil
      profileActions = ProfileActions()
    }
  }

  func start(errors: some OutputSink) {
    guard command.verbose, let profile else { return }
    errors.write(
      "\(escapedFile): \(ReplayCommand.describe(profile: profile, device: device).escapingControlCharacters())\n")
  }

  func end(errors: some OutputSink) {
    guard command.verbose else { return }
    errors.write("\(escapedFile): \(counted(profile == nil ? firingCount : printed, "firing"))\n")
  }

  /// `stream` (--continuous) goes out among the firings by time, each event before the
  /// firings of its time.
  mutating func print(
    _ firings: [GestureEvent], stream: [GestureStreamEvent] = [], output: some OutputSink, errors: some OutputSink
  ) {
    firingCount += firings.count
    guard let profile else { return }
    // A batch's lines go out in one write, unless an action runs after each (its output
    // must follow its line) or an error comes between them.
    var lines: [UInt8] = []
    func writeLines() {
      if !lines.isEmpty { output.write(String(decoding: lines, as: UTF8.self)) }
      lines.removeAll(keepingCapacity: true)
    }
    var nextStream = stream.startIndex
    func appendStream(through time: Timestamp?) {
      while nextStream < stream.endIndex, time.map({ stream[nextStream].time <= $0 }) ?? true {
        let event = stream[nextStream]
        nextStream += 1
        if !StreamReport.appendJSONLine(
          file: file, deviceName: device.name, profile: profile, event: event, to: &lines)
        {
          writeLines()
          errors.write(
            "\(escapedFile): internal error: a stream event names region \(event.region.map(String.init) ?? "none"), which profile '\(profile.name)' does not have; skipped\n"
          )
        }
      }
    }
    defer {
      appendStream(through: nil)
      writeLines()
    }
    for event in firings {
      appendStream(through: event.time)
      guard let firing = ResolvedFiring(event: event, profile: profile, actions: profileActions) else {
        writeLines()
        errors.write(
          "\(escapedFile): internal error: a firing names binding \(event.binding) or region"
            + " \(event.region.map(String.init) ?? "none"), which profile '\(profile.name)' does not have; skipped\n"
        )
        continue
      }
      // End events of bindings without `end:` are neither printed nor run.
      guard firing.isReported else { continue }
      printed += 1
      FiringReport.appendJSONLine(file: file, deviceName: device.name, firing: firing, to: &lines)
      if command.runActions {
        writeLines()
        command.runAction(of: firing, file: file, device: device, errors: errors)
      }
    }
  }
}

/// What the one-pass replay would have printed, in order, held until every recording has
/// been read to its end (a bad line further on must leave stdout empty). Past `limit` bytes
/// it stops holding (`overflowed`), and replay reads the recordings again to print as it
/// goes, so memory stays bounded whatever the output's size.
private final class HeldOutput {
  /// One of the two streams, writing into the held record.
  final class Stream: OutputSink {
    unowned let held: HeldOutput
    let isErrors: Bool

    init(held: HeldOutput, isErrors: Bool) {
      self.held = held
      self.isErrors = isErrors
    }

    func write(_ text: String) {
      guard !held.overflowed else { return }
      held.size += text.utf8.count
      if held.size > held.limit {
        held.overflowed = true
        held.writes = []
      } else {
        held.writes.append((isErrors, text))
      }
    }
  }

  let limit: Int
  private(set) var overflowed = false
  private var size = 0
  private var writes: [(toErrors: Bool, text: String)] = []
  private(set) lazy var output = Stream(held: self, isErrors: false)
  private(set) lazy var errors = Stream(held: self, isErrors: true)

  init(limit: Int) { self.limit = limit }

  func write(to output: some OutputSink, errors: some OutputSink) {
    for write in writes {
      if write.toErrors { errors.write(write.text) } else { output.write(write.text) }
    }
  }
}

/// One recording through the pipeline, its notes, trace lines and firings written to
/// `output` and `errors` as each batch is handled: the second pass's run, and the one pass's
/// into `HeldOutput`.
private struct RecordingRun<Output: OutputSink, Errors: OutputSink> {
  let output: Output
  let errors: Errors
  let escapedFile: String
  var session: Replay.Session
  var printer: FiringPrinter
  var firings: [GestureEvent] = []
  /// Filled only with --continuous.
  var stream: [GestureStreamEvent] = []
  /// Filled only with --verbose.
  var trace: [String] = []

  init(
    command: ReplayCommand, file: String, device: DeviceDescription, configuration: Configuration,
    actions: [ProfileActions], output: Output, errors: Errors
  ) {
    self.output = output
    self.errors = errors
    escapedFile = file.escapingControlCharacters()
    session = Replay.Session(
      device: device, configuration: configuration, tracing: command.verbose, reportsStream: command.continuous)
    for note in session.notes { errors.write("\(escapedFile): \(note.escapingControlCharacters())\n") }
    printer = FiringPrinter(
      command: command, file: file, device: device, configuration: configuration, actions: actions,
      profile: session.profile)
    printer.start(errors: errors)
  }

  mutating func handle(_ batch: [RawEvent]) {
    session.handle(batch, firings: &firings, trace: &trace)
    session.takeStreamEvents(into: &stream)
    flush()
  }

  mutating func finish() {
    session.finish(firings: &firings, trace: &trace)
    session.takeStreamEvents(into: &stream)
    flush()
    printer.end(errors: errors)
  }

  private mutating func flush() {
    for line in trace { errors.write("\(escapedFile): \(line.escapingControlCharacters())\n") }
    trace.removeAll(keepingCapacity: true)
    printer.print(firings, stream: stream, output: output, errors: errors)
    firings.removeAll(keepingCapacity: true)
    stream.removeAll(keepingCapacity: true)
  }
}

extension ReplayCommand {
  /// Runs the binding's command and waits, so that firings and their actions stay in order.
  /// The action's stdout goes to our stderr: stdout carries only JSON lines.
  fileprivate func runAction(
    of firing: ResolvedFiring, file: String, device: DeviceDescription, errors: some OutputSink
  ) {
    guard let command = firing.command, !command.isEmpty else { return }
    let environment = ActionEnvironment(
      firing: firing, deviceName: device.name, devnode: file, path: ActionEnvironment.currentPath())
    let label =
      "\(file.escapingControlCharacters()): action of '\(firing.bindingName.escapingControlCharacters())' at \(firing.event.time)"
    do {
      // As the daemon does: as root, a `user:` command runs as that user, never as root.
      // Without root there is no one else to become; the command runs as the caller.
      var identity: UserIdentity? = nil
      if let user = firing.user, effectiveUserID() == 0 {
        identity = try UserIdentity(lookingUp: user)
      }
      let process = try spawnShell(
        command, environment: environment, output: .standardError, user: identity)
      let status = try process.waitForExit()
      if !status.succeeded { errors.write("\(label): \(status)\n") }
    } catch {
      errors.write("\(label) could not run: \(error)\n")
    }
  }

  /// A `--device` file is read whole; recordings of any size are streamed.
  static let maximumDescriptionSize = 16 << 20

  /// First pass over a recording: every line checked, events counted. 66 when it cannot be
  /// read, 65 at its first bad line. With `held` (and until it overflows), the events run
  /// through the pipeline as they are read and what would be printed is held there.
  private func check(
    _ path: String, device givenDevice: DeviceDescription?, configuration: Configuration,
    actions: [ProfileActions], held: HeldOutput?, errors: some OutputSink
  ) -> Result<(device: DeviceDescription?, events: Int), ExitCode> {
    var count = 0
    guard let held, !held.overflowed else {
      let checked = Self.stream(path, keepsEvents: false, errors: errors, count: { count = $0 }, events: { _, _ in })
      return checked.map { ($0, count) }
    }
    var run: RecordingRun<HeldOutput.Stream, HeldOutput.Stream>?
    func start(_ device: DeviceDescription) {
      run = RecordingRun(
        command: self, file: path, device: device, configuration: configuration, actions: actions,
        output: held.output, errors: held.errors)
    }
    func handle(_ batch: [RawEvent], described: DeviceDescription?) {
      guard !held.overflowed else { return }
      // Events only, with no --device: an error once the file has been checked.
      guard let device = givenDevice ?? described else { return }
      if run == nil { start(device) }
      run?.handle(batch)
    }
    let checked = Self.stream(path, errors: errors, count: { count = $0 }, events: handle)
    if case .success(let described) = checked, !held.overflowed {
      // No events: the notes are still said, as the second pass says them.
      if run == nil, let device = givenDevice ?? described { start(device) }
      run?.finish()
    }
    return checked.map { ($0, count) }
  }

  /// Reads a recording in pieces through `EvemuStreamParser`, handing over its events batch
  /// by batch; returns its description.
  /// `keepsEvents` false: only checked and counted (`count` gets the number at the end).
  /// `events` gets each batch with the description the first `E:` line completed.
  fileprivate static func stream(
    _ path: String, keepsEvents: Bool = true, errors: some OutputSink, count: (Int) -> Void = { _ in },
    events: ([RawEvent], DeviceDescription?) -> Void
  ) -> Result<DeviceDescription?, ExitCode> {
    var parser = EvemuStreamParser(file: path, keepsEvents: keepsEvents)
    defer { count(parser.eventCount) }
    func bad(_ error: RecordingError) -> Result<DeviceDescription?, ExitCode> {
      errors.write(
        "\(error.file.escapingControlCharacters()):\(error.line): error: \(error.message.escapingControlCharacters())\n"
      )
      return .failure(.badRecording)
    }
    do throws(InputFile.PieceError<RecordingError>) {
      try InputFile.forEachPiece(path: path) { (piece) throws(RecordingError) in
        try parser.feed(piece, describedEvents: events)
      }
    } catch {
      switch error {
      case .read(let error):
        errors.write("gestured: cannot read '\(path.escapingControlCharacters())': \(error)\n")
        return .failure(.missingFile)
      case .body(let error):
        return bad(error)
      }
    }
    do {
      return .success(try parser.finishDescribed(events: events))
    } catch {
      return bad(error)
    }
  }

  /// Reads and parses one evemu file: 66 when it cannot be read, 65 at its first bad line.
  static func load(_ path: String, errors: some OutputSink) -> Result<Recording, ExitCode> {
    let bytes: [UInt8]
    do {
      bytes = try InputFile.read(path: path, maximumSize: maximumDescriptionSize)
    } catch {
      errors.write("gestured: cannot read '\(path.escapingControlCharacters())': \(error)\n")
      return .failure(.missingFile)
    }
    do {
      return .success(try EvemuParser.parse(bytes, file: path))
    } catch {
      errors.write(
        "\(error.file.escapingControlCharacters()):\(error.line): error: \(error.message.escapingControlCharacters())\n"
      )
      return .failure(.badRecording)
    }
  }

  private static func ids(_ device: DeviceDescription) -> String {
    func hex(_ value: UInt16) -> String {
      let digits = String(value, radix: 16)
      return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
    let touch = device.touchProtocol.map { "protocol \($0)" } ?? "no touch position"
    return
      "(bus \(hex(device.bus)) vendor \(hex(device.vendor)) product \(hex(device.product)), \(touch))"
  }

  fileprivate static func describe(profile: Profile, device: DeviceDescription) -> String {
    var text = "profile '\(profile.name)'"
    guard let geometry = PanelGeometry(device: device, profile: profile) else { return text }
    let size =
      "\(DecimalText.fourDecimals(geometry.width) ?? "?") x \(DecimalText.fourDecimals(geometry.height) ?? "?") mm"
    let source =
      switch geometry.sizeSource {
      case .resolution: "from the axis resolution"
      case .configured: "from the profile's size"
      case .guessed:
        "guessed: the device reports no resolution, the longer side is taken as 300 mm; set size: in the config"
      }
    text += ", panel \(size) as the user sees it (\(source))"
    if geometry.rotation != .none { text += ", rotation \(geometry.rotation.rawValue)" }
    return text
  }
}
