/// The help texts and the version line.
public enum Usage {
  public static let version = "gestured 0.1.0"

  public static let tool = """
    gestured: touchscreen gestures to shell commands, per device and screen region.

    Usage:
      gestured check --config FILE
      gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] RECORDING...
      gestured help [COMMAND]
      gestured --version

    Commands:
      check    Validate a config file and print every error with FILE:LINE:COLUMN.
      replay   Run evemu recordings through the recognizers and print each gesture that
               would fire, one JSON object per line.

    The daemon itself (reading live devices) is not available in this version: running
    gestured without a command exits with status 64.

    Exit status: 0 success, 64 usage error, 65 bad recording, 66 missing or unreadable
    file, 78 config error.

    """

  public static let check = """
    Usage: gestured check --config FILE

    Reads FILE (YAML), prints every error and warning on stderr as FILE:LINE:COLUMN with a
    hint, and on success one summary line on stdout. Touches no device.

    Options:
      -c, --config FILE   The config file to check.
      -h, --help          Show this help.

    Exit status: 0 the config is good (warnings allowed), 66 FILE cannot be read,
    78 the config has errors.

    """

  public static let replay = """
    Usage: gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] RECORDING...

    Runs each RECORDING (an evemu-record file, formats 1.1 to 1.3) through the same
    recognizers the daemon uses, on the recording's own clock and without waiting, each
    with fresh state, in order. Prints one JSON object per firing on stdout:
      {"file":"rec.evemu","time":1.234567,"device":"...","profile":"default",
       "region":"main","binding":"reload","gesture":"tap","fingers":1,"taps":2,
       "x":0.4812,"y":0.5033}
    Every file is read before anything runs: a bad line stops replay with nothing on stdout.

    Options:
      -c, --config FILE   The config file (required).
      --device DESC       Take the device from DESC (a file written by evemu-describe):
                          needed for recordings that hold only E: lines, and used instead
                          of the description of recordings that have one.
      --run-actions       Run each firing's command (/bin/sh -c, GESTURED_* environment)
                          and wait for it; its output goes to stderr.
      -v, --verbose       Say on stderr which device, profile and panel size each
                          recording ran with.
      -h, --help          Show this help.

    Exit status: 0 success, 65 a recording has a bad line or no device, 66 a file cannot
    be read, 78 the config has errors.

    """
}
