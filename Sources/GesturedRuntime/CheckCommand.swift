import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured check --config FILE`: validates a config without touching any device.
public struct CheckCommand: Hashable, Sendable {
  public var configPath: String
  /// Who check runs as, nil for geteuid(); tests pretend to be someone else.
  var effectiveUserID: uid_t? = nil

  public init(configPath: String) { self.configPath = configPath }

  /// Every diagnostic goes to `errors`; on success a one-line summary goes to `output`.
  public func run(output: some OutputSink, errors: some OutputSink) -> ExitCode {
    switch ConfigStep.load(
      path: configPath, errors: errors, asDaemon: true, effectiveUserID: effectiveUserID ?? geteuid())
    {
    case .failure(let code):
      return code
    case .success(var loaded):
      let profiles = loaded.configuration.profiles
      let bindings = profiles.reduce(0) { $0 + $1.bindings.count }
      // A user may be created after the config is written: a warning, as the daemon logs.
      let unknownUsers = ResolvedUsers(actions: loaded.actions).failures
      for (name, error) in unknownUsers {
        errors.write(
          "\(configPath.escapingControlCharacters()): warning: user: \(name.escapingControlCharacters()): \(error)\n"
            + "  hint: its actions will not start until the user exists and gestured reloads its config\n")
      }
      loaded.warnings += unknownUsers.count
      var summary =
        "\(configPath.escapingControlCharacters()): OK, \(counted(profiles.count, "profile")), \(counted(bindings, "binding"))"
      if loaded.warnings > 0 { summary += ", \(counted(loaded.warnings, "warning"))" }
      output.write(summary + "\n")
      return .success
    }
  }
}

/// Reading and validating the config, shared by `check` and `replay`.
enum ConfigStep {
  struct Loaded {
    var configuration: Configuration
    /// Parallel to `configuration.profiles`.
    var actions: [ProfileActions]
    var warnings: Int
  }

  /// Prints every diagnostic to `errors`. Fails with 66 when the file cannot be read, 78 when
  /// it has errors. With `asDaemon` (`check`, `replay --run-actions`), a process running as
  /// `effectiveUserID` 0 refuses with 78 a config the daemon would refuse as unsafe, and
  /// reads it as the daemon does (ConfigPermissions).
  static func load(
    path: String, errors: some OutputSink, asDaemon: Bool = false, effectiveUserID: uid_t = geteuid()
  ) -> Result<Loaded, ExitCode> {
    let bytes: [UInt8]
    do {
      bytes = try ConfigPermissions.read(
        path: path, maximumSize: ConfigLoader.maximumFileSize,
        effectiveUserID: asDaemon ? effectiveUserID : 1)
    } catch {
      switch error {
      case .unsafe(let problem):
        errors.write("\(path.escapingControlCharacters()): error: \(problem.escapingControlCharacters())\n")
        return .failure(.badConfig)
      case .unreadable(let error):
        errors.write("gestured: cannot read config '\(path.escapingControlCharacters())': \(error)\n")
        return .failure(.missingFile)
      }
    }
    let result = ConfigLoader.parse(bytes: bytes, file: path)
    for diagnostic in result.diagnostics { errors.write("\(diagnostic)\n") }
    guard let configuration = result.configuration, result.errors.isEmpty else {
      let count = result.errors.count
      errors.write("\(path.escapingControlCharacters()): \(counted(count, "error"))\n")
      return .failure(.badConfig)
    }
    return .success(
      Loaded(configuration: configuration, actions: result.actions, warnings: result.warnings.count))
  }
}

/// "1 profile", "2 profiles".
func counted(_ count: Int, _ noun: String) -> String {
  "\(count) \(noun)\(count == 1 ? "" : "s")"
}
