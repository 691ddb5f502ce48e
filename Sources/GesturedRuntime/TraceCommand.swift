import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured trace --config FILE [--device DESC] RECORDING --svg OUT.svg`: one picture of what
/// the panel saw in a recording and what the recognizers made of it (`TracePicture`), through
/// the same pipeline as replay (`Replay.timeline`). `--svg -` writes it on stdout.
public struct TraceCommand: Sendable {
  public var configPath: String
  public var devicePath: String?
  public var recording: String
  public var svgPath: String

  public init(configPath: String, devicePath: String? = nil, recording: String, svgPath: String) {
    self.configPath = configPath
    self.devicePath = devicePath
    self.recording = recording
    self.svgPath = svgPath
  }

  /// Exit codes as replay's: 65 a bad recording, 66 an unreadable file, 78 a bad config; 74
  /// when the picture cannot be written.
  public func run(output: some OutputSink, errors: some OutputSink) -> ExitCode {
    let configuration: Configuration
    switch ConfigStep.load(path: configPath, errors: errors) {
    case .failure(let code): return code
    case .success(let loaded): configuration = loaded.configuration
    }
    let loaded: Recording
    switch ReplayCommand.load(recording, errors: errors) {
    case .failure(let code): return code
    case .success(let recording): loaded = recording
    }
    let file = recording.escapingControlCharacters()
    var device = loaded.device
    if let devicePath {
      switch ReplayCommand.load(devicePath, errors: errors) {
      case .failure(let code): return code
      case .success(let description):
        guard let given = description.device else {
          errors.write(
            "\(devicePath.escapingControlCharacters()): error: no device description (N:, I:, P:, B:, A: lines) in the file given with --device\n"
          )
          return .badRecording
        }
        device = given
      }
    }
    guard let device else {
      errors.write(
        "\(file): error: no device description in this recording\n"
          + "  hint: give one with --device DESC (a file written by evemu-describe or evemu-record)\n")
      return .badRecording
    }
    let timeline = Replay.timeline(device: device, events: loaded.events, configuration: configuration)
    for note in timeline.notes { errors.write("\(file): \(note.escapingControlCharacters())\n") }
    guard let profileIndex = timeline.profileIndex, let geometry = timeline.geometry else {
      errors.write("\(file): error: no picture: no profile takes the device, or it reports no position\n")
      return .badRecording
    }
    let profile = configuration.profiles[profileIndex]
    let picture = TracePicture(
      title: recording, subtitle: "device '\(device.name)', profile '\(profile.name)'", profile: profile,
      geometry: geometry,
      timeline: timeline)
    let svg = picture.svg()
    if svgPath == "-" {
      output.write(svg)
    } else if let error = Self.write(svg, to: svgPath) {
      errors.write("gestured: cannot write '\(svgPath.escapingControlCharacters())': \(error)\n")
      return .ioError
    }
    let fired = timeline.sequences.filter { !$0.firings.isEmpty }.count
    errors.write(
      "\(file): \(counted(timeline.sequences.count, "touch sequence")), \(fired) fired, "
        + "\(counted(timeline.firings.filter { $0.endSteps == nil }.count, "firing"))\n")
    return .success
  }

  /// Writes `text` to a new or truncated file; the error, if any.
  static func write(_ text: String, to path: String) -> Errno? {
    let descriptor: Int32
    switch retryOnInterrupt({ valueOrErrno(open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0o644)) }) {
    case .success(let opened): descriptor = opened
    case .failure(let error): return error
    }
    var text = text
    let failure: Errno? = text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        switch retryOnInterrupt({
          valueOrErrno(Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset))
        }) {
        case .success(let written): offset += written
        case .failure(let error): return error
        }
      }
      return nil
    }
    if case .failure(let error) = valueOrErrno(close(descriptor)), failure == nil { return error }
    return failure
  }
}
