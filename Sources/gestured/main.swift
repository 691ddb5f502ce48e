import GesturedRuntime

// The executable only parses the command line and dispatches; the commands live in
// GesturedRuntime so tests run them in-process.
#if canImport(Glibc)
  import Glibc
#endif

let output = FileDescriptorSink.standardOutput
let errors = FileDescriptorSink.standardError

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
case .usageError(let message, let hint):
  errors.write("gestured: \(message)\n\(hint)\n")
  status = .usage
}
exit(status.rawValue)
