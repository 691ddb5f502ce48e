import GestureCore
import GesturedConfig

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] RECORDING...`:
/// runs evemu recordings through the recognition pipeline on their own clock and prints one
/// JSON line per firing.
///
/// Every input is read and parsed before anything runs, so a bad file ends the command with
/// nothing on stdout.
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

  /// What the pipeline returned for one recording (`Replay.Result`, in a form tests can build).
  struct Outcome: Sendable {
    var profile: Int?
    var firings: [GestureEvent]
    var notes: [String]
    var trace: [String] = []
  }

  /// The pipeline. Tests put a fake here to drive the output and action code with firings of
  /// their own choosing. The last argument asks for the trace.
  typealias PipelineFunction = @Sendable (DeviceDescription, [RawEvent], Configuration, Bool) -> Outcome

  /// Who replay runs as; tests pretend to be someone else.
  var effectiveUserID: @Sendable () -> uid_t = { geteuid() }

  var replay: PipelineFunction = {
    let result = Replay.run(device: $0, events: $1, configuration: $2, tracing: $3)
    return Outcome(profile: result.profile, firings: result.firings, notes: result.notes, trace: result.trace)
  }

  public init(
    configPath: String, devicePath: String? = nil, runActions: Bool = false, verbose: Bool = false,
    recordings: [String]
  ) {
    self.configPath = configPath
    self.devicePath = devicePath
    self.runActions = runActions
    self.verbose = verbose
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

    var prepared: [(file: String, device: DeviceDescription, events: [RawEvent])] = []
    for file in recordings {
      let recording: Recording
      switch Self.load(file, errors: errors) {
      case .failure(let code): return code
      case .success(let loaded): recording = loaded
      }
      if let givenDevice, let devicePath {
        if recording.device != nil {
          errors.write(
            "\(file.escapingControlCharacters()): has its own device description; using the one from --device \(devicePath.escapingControlCharacters())\n"
          )
        }
        prepared.append((file, givenDevice, recording.events))
      } else if let device = recording.device {
        prepared.append((file, device, recording.events))
      } else if recording.events.isEmpty {
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

    for (file, device, events) in prepared {
      run(
        file: file, device: device, events: events, configuration: configuration, actions: actions,
        output: output, errors: errors)
    }
    return .success
  }

  private func run(
    file: String, device: DeviceDescription, events: [RawEvent], configuration: Configuration,
    actions: [ProfileActions], output: some OutputSink, errors: some OutputSink
  ) {
    if verbose {
      errors.write(
        "\(file.escapingControlCharacters()): device '\(device.name.escapingControlCharacters())' \(Self.ids(device)), \(events.count) events\n"
      )
    }
    let result = replay(device, events, configuration, verbose)
    let escapedFile = file.escapingControlCharacters()
    for note in result.notes { errors.write("\(escapedFile): \(note.escapingControlCharacters())\n") }
    for line in result.trace { errors.write("\(escapedFile): \(line.escapingControlCharacters())\n") }
    guard let profileIndex = result.profile, configuration.profiles.indices.contains(profileIndex)
    else {
      if verbose { errors.write("\(file.escapingControlCharacters()): \(counted(result.firings.count, "firing"))\n") }
      return
    }
    let profile = configuration.profiles[profileIndex]
    let profileActions = actions.indices.contains(profileIndex) ? actions[profileIndex] : ProfileActions()
    if verbose {
      errors.write("\(escapedFile): \(Self.describe(profile: profile, device: device).escapingControlCharacters())\n")
    }

    var printed = 0
    for event in result.firings {
      guard let firing = ResolvedFiring(event: event, profile: profile, actions: profileActions) else {
        errors.write(
          "\(escapedFile): internal error: a firing names binding \(event.binding) or region"
            + " \(event.region.map(String.init) ?? "none"), which profile '\(profile.name)' does not have; skipped\n"
        )
        continue
      }
      // End events of bindings without `end:` are neither printed nor run.
      guard firing.isReported else { continue }
      printed += 1
      output.write(
        FiringReport.jsonLine(file: file, deviceName: device.name, firing: firing) + "\n")
      if runActions {
        runAction(of: firing, file: file, device: device, errors: errors)
      }
    }
    if verbose { errors.write("\(escapedFile): \(counted(printed, "firing"))\n") }
  }

  /// Runs the binding's command and waits, so that firings and their actions stay in order.
  /// The action's stdout goes to our stderr: stdout carries only JSON lines.
  private func runAction(
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

  /// Recordings of long sessions reach tens of megabytes.
  static let maximumRecordingSize = 512 << 20

  /// Reads and parses one evemu file: 66 when it cannot be read, 65 at its first bad line.
  static func load(_ path: String, errors: some OutputSink) -> Result<Recording, ExitCode> {
    let bytes: [UInt8]
    do {
      bytes = try InputFile.read(path: path, maximumSize: maximumRecordingSize)
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

  private static func describe(profile: Profile, device: DeviceDescription) -> String {
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
