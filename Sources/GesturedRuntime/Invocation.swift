/// What the command line asks for. Parsed by hand (no packages): a subcommand, then its
/// options in any order; `--opt VALUE` and `--opt=VALUE` both work; `--` ends the options.
public enum Invocation: Sendable {
  /// Print this text on stdout and exit 0.
  case help(String)
  case version
  case check(CheckCommand)
  case replay(ReplayCommand)
  /// `gestured trace --config FILE RECORDING --svg OUT`: a picture of a recording.
  case trace(TraceCommand)
  /// `gestured [--config FILE] [--verbose]`: the daemon.
  case daemon(Daemon.Options)
  /// `gestured monitor`: the daemon's recognition on live devices, JSON lines, no actions.
  case monitor(Daemon.Options)
  /// `gestured __recognizer --config FILE --config-identity LENGTH:HASH
  /// [--uinput-descriptors N] [--verbose]`: hidden; the launcher starts it, unprivileged,
  /// with its channel as descriptor 3, the config FILE open as 4 (FILE names it in
  /// messages), and N /dev/uinput descriptors as 5, 6, ….
  case recognizer(Daemon.Options)
  /// `gestured __confinement-check`: hidden; what the recognizer's confinement allows, one
  /// line each (ConfinementCheck).
  case confinementCheck
  /// `gestured devices [--config FILE]`: every input node and the profile that takes it.
  case devices(DevicesCommand)
  /// `gestured record DEVICE`: the device's events as evemu text on stdout.
  case record(RecordCommand)
  /// Exit 64 after printing `message` and a one-line `hint` on stderr.
  case usageError(message: String, hint: String)

  public static func parse(_ arguments: [String]) -> Invocation {
    guard let first = arguments.first else { return .daemon(Daemon.Options()) }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "-h", "--help": return .help(Usage.tool)
    case "--version": return .version
    case "help":
      switch rest.first {
      case nil: return .help(Usage.tool)
      case "check": return .help(Usage.check)
      case "replay": return .help(Usage.replay)
      case "trace": return .help(Usage.trace)
      case "monitor": return .help(Usage.monitor)
      case "devices": return .help(Usage.devices)
      case "record": return .help(Usage.record)
      case let other?: return unknownCommand(other)
      }
    case "check": return parseCheck(rest)
    case "replay": return parseReplay(rest)
    case "trace": return parseTrace(rest)
    case "monitor":
      return parseDaemonOptions(rest, command: "monitor", help: Usage.monitor).map { .monitor($0) }
    case "devices": return parseDevices(rest)
    case "record": return parseRecord(rest)
    case "__recognizer": return parseRecognizer(rest)
    case "__confinement-check" where rest.isEmpty: return .confinementCheck
    case let option where option.hasPrefix("-"):
      return parseDaemonOptions(arguments, command: nil, help: Usage.tool).map { .daemon($0) }
    default:
      return unknownCommand(first)
    }
  }

  private static func unknownCommand(_ name: String) -> Invocation {
    .usageError(
      message: "unknown command '\(name)'; the commands are check, replay, trace, record, monitor and devices",
      hint: "Run 'gestured --help' for usage.")
  }

  /// `--help` anywhere before `--` wins over every other problem on the line.
  private static func asksForHelp(_ arguments: [String]) -> Bool {
    arguments.prefix { $0 != "--" }.contains { $0 == "-h" || $0 == "--help" }
  }

  private static func parseCheck(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.check) }
    let hint = "Run 'gestured check --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "check", hint: hint)
    var config: String?
    while let item = scanner.next() {
      switch item {
      case .help: return .help(Usage.check)
      case .option("--config", let value), .option("-c", let value):
        guard config == nil else {
          return .usageError(message: "check: --config given twice", hint: hint)
        }
        switch scanner.value(for: "--config", attached: value) {
        case .success(let path): config = path
        case .failure(let error): return error.invocation
        }
      case .option(let name, _):
        return .usageError(message: "check: unknown option '\(name)'", hint: hint)
      case .positional(let argument):
        return .usageError(message: "check: unexpected argument '\(argument)'", hint: hint)
      }
    }
    guard let config else {
      return .usageError(message: "check: --config FILE is required", hint: hint)
    }
    return .check(CheckCommand(configPath: config))
  }

  /// `--config` is optional: without it the default path is used, or the built-in default
  /// profile when that file does not exist.
  private static func parseDevices(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.devices) }
    let hint = "Run 'gestured devices --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "devices", hint: hint)
    var config: String?
    while let item = scanner.next() {
      switch item {
      case .help: return .help(Usage.devices)
      case .option("--config", let value), .option("-c", let value):
        guard config == nil else {
          return .usageError(message: "devices: --config given twice", hint: hint)
        }
        switch scanner.value(for: "--config", attached: value) {
        case .success(let path): config = path
        case .failure(let error): return error.invocation
        }
      case .option(let name, _):
        return .usageError(message: "devices: unknown option '\(name)'", hint: hint)
      case .positional(let argument):
        return .usageError(message: "devices: unexpected argument '\(argument)'", hint: hint)
      }
    }
    return .devices(DevicesCommand(configPath: config))
  }

  /// One positional: the device node.
  private static func parseRecord(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.record) }
    let hint = "Run 'gestured record --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "record", hint: hint)
    var device: String?
    while let item = scanner.next() {
      switch item {
      case .help: return .help(Usage.record)
      case .option(let name, _):
        return .usageError(message: "record: unknown option '\(name)'", hint: hint)
      case .positional(let argument):
        guard device == nil else {
          return .usageError(message: "record: unexpected argument '\(argument)'", hint: hint)
        }
        device = argument
      }
    }
    guard let device else {
      return .usageError(message: "record: no DEVICE given (e.g. /dev/input/event5)", hint: hint)
    }
    return .record(RecordCommand(devicePath: device))
  }

  /// The daemon's and the monitor's options: `--config FILE`, `--verbose`; the monitor's
  /// `--pretty` and `--continuous`.
  private static func parseDaemonOptions(
    _ arguments: [String], command: String?, help: String
  ) -> Result<Daemon.Options, Invocation> {
    if asksForHelp(arguments) { return .failure(.help(help)) }
    // The daemon's messages get no command prefix: main.swift already says "gestured: ".
    let prefix = command.map { $0 + ": " } ?? ""
    let hint = "Run 'gestured \(command.map { $0 + " " } ?? "")--help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: command, hint: hint)
    var options = Daemon.Options()
    var configGiven = false
    while let item = scanner.next() {
      switch item {
      case .help: return .failure(.help(help))
      case .option("--config", let value), .option("-c", let value):
        guard !configGiven else {
          return .failure(.usageError(message: "\(prefix)--config given twice", hint: hint))
        }
        switch scanner.value(for: "--config", attached: value) {
        case .success(let path): options.configPath = path
        case .failure(let error): return .failure(error.invocation)
        }
        configGiven = true
      case .option("--verbose", nil), .option("-v", nil): options.verbose = true
      case .option("--pretty", nil) where command == "monitor": options.pretty = true
      case .option("--continuous", nil) where command == "monitor": options.continuous = true
      case .option(let name, _):
        return .failure(.usageError(message: "\(prefix)unknown option '\(name)'", hint: hint))
      case .positional(let argument):
        return .failure(.usageError(message: "\(prefix)unexpected argument '\(argument)'", hint: hint))
      }
    }
    if options.pretty && options.continuous {
      return .failure(
        .usageError(message: "\(prefix)--continuous adds JSON lines; it cannot be combined with --pretty", hint: hint))
    }
    return .success(options)
  }

  /// Written by the launcher, never by hand: anything else is a usage error.
  private static func parseRecognizer(_ arguments: [String]) -> Invocation {
    let usage = Invocation.usageError(
      message: "__recognizer is started by gestured itself", hint: "Run 'gestured --help' for usage.")
    var options = Daemon.Options()
    options.configDescriptor = Daemon.recognizerConfigDescriptor
    var rest = arguments[...]
    while let name = rest.popFirst() {
      switch name {
      case "--verbose": options.verbose = true
      case "--config":
        guard let path = rest.popFirst() else { return usage }
        options.configPath = path
      case "--uinput-descriptors":
        guard let count = rest.popFirst().flatMap({ Int($0) }),
          (0...Daemon.maximumPooledUinputDescriptors).contains(count)
        else { return usage }
        options.uinputDescriptors = count
      case "--config-identity":
        let parts = rest.popFirst()?.split(separator: ":") ?? []
        guard parts.count == 2, let length = UInt64(parts[0]), let hash = UInt64(parts[1]) else { return usage }
        options.expectedIdentity = ConfigIdentity(length: length, hash: hash)
      default: return usage
      }
    }
    guard options.expectedIdentity != nil else { return usage }
    return .recognizer(options)
  }

  private static func parseTrace(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.trace) }
    let hint = "Run 'gestured trace --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "trace", hint: hint)
    var config: String?
    var device: String?
    var svg: String?
    var recording: String?
    while let item = scanner.next() {
      switch item {
      case .help: return .help(Usage.trace)
      case .option(let name, let value) where ["--config", "-c", "--device", "--svg"].contains(name):
        let option = name == "-c" ? "--config" : name
        let given = option == "--config" ? config : option == "--device" ? device : svg
        guard given == nil else { return .usageError(message: "trace: \(option) given twice", hint: hint) }
        let path: String
        if option == "--svg", value == nil, scanner.peek == "-" {
          path = scanner.take()
        } else {
          switch scanner.value(for: option, attached: value) {
          case .success(let value): path = value
          case .failure(let error): return error.invocation
          }
        }
        switch option {
        case "--config": config = path
        case "--device": device = path
        default: svg = path
        }
      case .option(let name, _):
        return .usageError(message: "trace: unknown option '\(name)'", hint: hint)
      case .positional(let argument):
        guard recording == nil else {
          return .usageError(message: "trace: one RECORDING at a time ('\(argument)' is a second)", hint: hint)
        }
        recording = argument
      }
    }
    guard let config else { return .usageError(message: "trace: --config FILE is required", hint: hint) }
    guard let recording else { return .usageError(message: "trace: no RECORDING given", hint: hint) }
    guard let svg else { return .usageError(message: "trace: --svg OUT.svg is required", hint: hint) }
    return .trace(TraceCommand(configPath: config, devicePath: device, recording: recording, svgPath: svg))
  }

  private static func parseReplay(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.replay) }
    let hint = "Run 'gestured replay --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "replay", hint: hint)
    var config: String?
    var device: String?
    var runActions = false
    var verbose = false
    var continuous = false
    var recordings: [String] = []
    while let item = scanner.next() {
      switch item {
      case .help: return .help(Usage.replay)
      case .option("--config", let value), .option("-c", let value):
        guard config == nil else {
          return .usageError(message: "replay: --config given twice", hint: hint)
        }
        switch scanner.value(for: "--config", attached: value) {
        case .success(let path): config = path
        case .failure(let error): return error.invocation
        }
      case .option("--device", let value):
        guard device == nil else {
          return .usageError(message: "replay: --device given twice", hint: hint)
        }
        switch scanner.value(for: "--device", attached: value) {
        case .success(let path): device = path
        case .failure(let error): return error.invocation
        }
      case .option("--run-actions", nil): runActions = true
      case .option("--verbose", nil), .option("-v", nil): verbose = true
      case .option("--continuous", nil): continuous = true
      case .option(let name, .some) where ["--run-actions", "--verbose", "--continuous"].contains(name):
        return .usageError(message: "replay: \(name) takes no value", hint: hint)
      case .option(let name, _):
        return .usageError(message: "replay: unknown option '\(name)'", hint: hint)
      case .positional(let argument):
        recordings.append(argument)
      }
    }
    guard let config else {
      return .usageError(message: "replay: --config FILE is required", hint: hint)
    }
    guard !recordings.isEmpty else {
      return .usageError(message: "replay: no RECORDING given", hint: hint)
    }
    return .replay(
      ReplayCommand(
        configPath: config, devicePath: device, runActions: runActions, verbose: verbose,
        continuous: continuous, recordings: recordings))
  }
}

/// Walks a subcommand's arguments: options (with a value attached by `=`, if any),
/// positionals, and `--help` anywhere before `--`.
private struct OptionScanner {
  enum Item {
    case help
    case option(String, String?)
    case positional(String)
  }

  struct Failure: Error {
    var invocation: Invocation
  }

  let arguments: [String]
  /// Prefixes messages ("check: …"); nil for the daemon's own options.
  let command: String?
  let hint: String
  var index = 0
  var optionsEnded = false

  init(arguments: [String], command: String?, hint: String) {
    self.arguments = arguments
    self.command = command
    self.hint = hint
  }

  mutating func next() -> Item? {
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
        return .positional(argument)
      }
      if argument == "--" {
        optionsEnded = true
        continue
      }
      if argument == "-h" || argument == "--help" { return .help }
      if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
        return .option(
          String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
      }
      return .option(argument, nil)
    }
    return nil
  }

  private var prefix: String { command.map { $0 + ": " } ?? "" }

  /// The next argument, not consumed.
  var peek: String? { index < arguments.count ? arguments[index] : nil }

  mutating func take() -> String {
    index += 1
    return arguments[index - 1]
  }

  /// The option's value: the part after `=`, else the next argument.
  mutating func value(for option: String, attached: String?) -> Result<String, Failure> {
    let value: String
    if let attached {
      value = attached
    } else if index < arguments.count, !arguments[index].hasPrefix("-") || arguments[index] == "-" {
      value = arguments[index]
      index += 1
    } else {
      return .failure(
        Failure(invocation: .usageError(message: "\(prefix)\(option) needs a FILE", hint: hint)))
    }
    guard !value.isEmpty else {
      return .failure(
        Failure(invocation: .usageError(message: "\(prefix)\(option) needs a FILE", hint: hint)))
    }
    return .success(value)
  }
}

extension Invocation: Error {}

extension Result where Failure == Invocation {
  /// The parsed options as an invocation, or the help/usage invocation that stopped parsing.
  fileprivate func map(_ transform: (Success) -> Invocation) -> Invocation {
    switch self {
    case .success(let value): transform(value)
    case .failure(let invocation): invocation
    }
  }
}
