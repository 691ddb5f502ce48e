import GesturedRuntime
import GesturedSystem

// The executable only parses the command line and dispatches; the commands live in
// GesturedRuntime so tests run them in-process.
#if canImport(Glibc)
  import Glibc
#endif

let output = FileDescriptorSink.standardOutput
let errors = FileDescriptorSink.standardError

/// Returns only when the daemon cannot start; once running it exits by itself.
func runDaemon(_ mode: Daemon.Mode, _ options: Daemon.Options) -> ExitCode {
  switch Daemon.make(
    mode: mode, options: options, output: output, errors: errors, environment: ProcessEnvironment.current())
  {
  case .failure(let code): return code
  case .success(let daemon): daemon.run()
  }
}

let status: ExitCode
switch Invocation.parse(Array(CommandLine.arguments.dropFirst())) {
case .help(let text):
  output.write(text)
  status = .success
case .version:
  output.write(Usage.version + "\n")
  status = .success
case .check(let command):
  status = command.run(output: output, errors: errors)
case .replay(let command):
  status = command.run(output: output, errors: errors)
case .trace(let command):
  status = command.run(output: output, errors: errors)
case .devices(let command):
  status = command.run(output: output, errors: errors)
case .record(let command):
  status = command.run(errors: errors)
case .daemon(let options) where Launcher.separatesPrivileges:
  // As root: the launcher, which starts the unprivileged recognizer.
  switch Launcher.make(options: options, errors: errors, environment: ProcessEnvironment.current()) {
  case .failure(let code): status = code
  case .success(let launcher): launcher.run()
  }
case .daemon(let options):
  status = runDaemon(.actions, options)
case .recognizer(let options):
  // Before anything untrusted is read (the config, udev's properties, the panels' events);
  // here rather than in the Daemon, which tests run in their own process.
  do {
    try RecognizerSandbox.confineSystemCalls()
    status = runDaemon(.recognizer, options)
  } catch {
    errors.write("gestured: cannot confine the recognizer: \(error)\n")
    status = .systemError
  }
case .confinementCheck:
  status = ConfinementCheck.run(output: output)
case .monitor(let options):
  status = runDaemon(.monitor, options)
case .usageError(let message, let hint):
  errors.write("gestured: \(message)\n\(hint)\n")
  status = .usage
}
exit(status.rawValue)
