/// How `gestured` ends. The values are BSD sysexits(3), which systemd.exec(5) also lists, so
/// a unit can say `RestartPreventExitStatus=78` and scripts can tell a bad config from a
/// missing file. An `Error` so that a failing step can return `Result<_, ExitCode>`.
public enum ExitCode: Int32, Error, Sendable, CaseIterable {
  case success = 0
  /// EX_USAGE: the command line is wrong (unknown option, missing value, no subcommand).
  case usage = 64
  /// EX_DATAERR: a recording or device description has a line that cannot be read, or a
  /// recording has no device to run on.
  case badRecording = 65
  /// EX_NOINPUT: a file named on the command line does not exist or cannot be read.
  case missingFile = 66
  /// EX_OSERR: the system refused something the daemon cannot run without (udev).
  case systemError = 71
  /// EX_IOERR: writing output failed (`record` into a full disk or a closed pipe).
  case ioError = 74
  /// EX_CONFIG: the configuration has errors.
  case badConfig = 78
}
