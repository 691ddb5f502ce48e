/// What the command line asks for. Parsed by hand (no packages): a subcommand, then its
/// options in any order; `--opt VALUE` and `--opt=VALUE` both work; `--` ends the options.
public enum Invocation: Sendable {
  /// Print this text on stdout and exit 0.
  case help(String)
  case version
  case check(CheckCommand)
  case replay(ReplayCommand)
  /// Exit 64 after printing `message` and a one-line `hint` on stderr.
  case usageError(message: String, hint: String)

  public static func parse(_ arguments: [String]) -> Invocation {
    guard let first = arguments.first else {
      return .usageError(
        message:
          "the daemon is not available in this version; use 'gestured check' or 'gestured replay'",
        hint: "Run 'gestured --help' for usage.")
    }
    let rest = Array(arguments.dropFirst())
    switch first {
    case "-h", "--help": return .help(Usage.tool)
    case "--version": return .version
    case "help":
      switch rest.first {
      case nil: return .help(Usage.tool)
      case "check": return .help(Usage.check)
      case "replay": return .help(Usage.replay)
      case let other?: return unknownCommand(other)
      }
    case "check": return parseCheck(rest)
    case "replay": return parseReplay(rest)
    case let option where option.hasPrefix("-"):
      return .usageError(
        message: "unknown option '\(option)'", hint: "Run 'gestured --help' for usage.")
    default:
      return unknownCommand(first)
    }
  }

  private static func unknownCommand(_ name: String) -> Invocation {
    .usageError(
      message: "unknown command '\(name)'; the commands are check and replay",
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

  private static func parseReplay(_ arguments: [String]) -> Invocation {
    if asksForHelp(arguments) { return .help(Usage.replay) }
    let hint = "Run 'gestured replay --help' for usage."
    var scanner = OptionScanner(arguments: arguments, command: "replay", hint: hint)
    var config: String?
    var device: String?
    var runActions = false
    var verbose = false
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
      case .option(let name, .some) where name == "--run-actions" || name == "--verbose":
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
        recordings: recordings))
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
  let command: String
  let hint: String
  var index = 0
  var optionsEnded = false

  init(arguments: [String], command: String, hint: String) {
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
        Failure(invocation: .usageError(message: "\(command): \(option) needs a FILE", hint: hint)))
    }
    guard !value.isEmpty else {
      return .failure(
        Failure(invocation: .usageError(message: "\(command): \(option) needs a FILE", hint: hint)))
    }
    return .success(value)
  }
}
