/// The help texts and the version line.
public enum Usage {
  public static let version = "gestured 0.1.0"

  public static let tool = """
    gestured: touchscreen gestures to shell commands, per device and screen region.

    Usage:
      gestured [--config FILE] [--verbose]
      gestured monitor [--config FILE] [--verbose] [--pretty | --continuous]
      gestured devices [--config FILE]
      gestured check --config FILE
      gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] [--continuous]
                      RECORDING...
      gestured trace --config FILE [--device DESC] RECORDING --svg OUT.svg
      gestured record DEVICE
      gestured help [COMMAND]
      gestured --version

    Without a command, gestured runs as the daemon: it takes every touchscreen a profile of
    FILE (default /etc/gestured/gestured.yaml) selects, including ones plugged in later, and
    runs the commands bound to their gestures. SIGHUP reloads FILE; SIGTERM stops.

    Commands:
      monitor  Recognize gestures on the live touchscreens as the daemon would and print
               them as JSON lines (and devices added and removed); run nothing.
      devices  List every input device node: name, ids, size, protocol, udev's
               classification, and which profile takes it (or why none does).
      check    Validate a config file and print every error with FILE:LINE:COLUMN.
      replay   Run evemu recordings through the recognizers and print each gesture that
               would fire, one JSON object per line.
      trace    Draw one recording as an SVG picture of the panel: regions, every
               finger's path, what fired where, and why the rest fired nothing.
      record   Record a touchscreen's events as an evemu recording on stdout, for
               replay; Ctrl-C stops.

    Options (daemon and monitor):
      -c, --config FILE   The config file (default /etc/gestured/gestured.yaml).
      -v, --verbose       Also log every recognizer transition.

    Exit status: 0 success, 64 usage error, 65 bad recording, 66 missing or unreadable
    file, 71 udev unavailable, 74 output cannot be written, 78 config error (or, as root,
    a config others can write).

    """

  public static let monitor = """
    Usage: gestured monitor [--config FILE] [--verbose] [--pretty | --continuous]

    The operator's live dry run: opens the touchscreens the config's profiles take, as the
    daemon would, and prints every gesture that would fire as one JSON object per line (the
    fields of `gestured replay`, with `file` the device node and `time` in seconds on the
    monotonic clock), plus a line when a device is added or removed:
      {"event":"added","time":12.345678,"devnode":"/dev/input/event5","device":"...",
       "profile":"lobby"}
    Runs no command. Stop with Ctrl-C.

    Options:
      -c, --config FILE   The config file (default /etc/gestured/gestured.yaml).
      -v, --verbose       Also log every recognizer transition on stderr.
      --pretty            Human text instead of JSON: the devices, each contact as it
                          moves (mm from the top left), each recognizer's state, and
                          the firings. On a terminal the view is redrawn in place;
                          otherwise one line per change is appended.
      --continuous        Also print a JSON line per event of the continuous gestures'
                          streams (pan, pinch, rotate, long press), as replay --continuous.
      -h, --help          Show this help.

    """

  public static let devices = """
    Usage: gestured devices [--config FILE]

    Lists every input event node (/dev/input/event*) with its name, ids, ID_PATH, size in
    millimetres (and whether it is a guess), slots, multitouch protocol, udev's
    classification, and the profile of FILE that takes it, or why none does. Twin nodes of
    one panel are shown together. Without --config, /etc/gestured/gestured.yaml is used when
    it exists, else the built-in default profile. Reading a node needs root or the input
    group.

    Options:
      -c, --config FILE   The config file.
      -h, --help          Show this help.

    Exit status: 0 listed, 66 FILE cannot be read, 71 udev cannot be read, 78 the config has
    errors.

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
    Usage: gestured replay --config FILE [--device DESC] [--run-actions] [--verbose] [--continuous]
                           RECORDING...

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
      --continuous        Also print a line per event of the continuous gestures' streams
                          (pan, pinch, rotate, long press: began, changed, ended,
                          cancelled), among the firings in time order, a frame's stream
                          lines before its firings:
        {"file":"rec.evemu","time":1.234567,"device":"...","profile":"default",
         "region":"left","gesture":"pinch","phase":"changed","fingers":2,"cx":0.25,
         "cy":0.5,"dx":0.0,"dy":0.0,"scale":1.5,"angle":0.0,"vx":0.0,"vy":0.0,
         "vscale":2.5,"vangle":0.0}
      -h, --help          Show this help.

    Exit status: 0 success, 65 a recording has a bad line or no device, 66 a file cannot
    be read, 78 the config has errors.

    """

  public static let trace = """
    Usage: gestured trace --config FILE [--device DESC] RECORDING --svg OUT.svg

    Runs RECORDING through the same recognizers as 'gestured replay' and draws one SVG
    picture of the panel as the user sees it (after calibration and rotation, at its true
    aspect ratio): the profile's regions, named; every contact's path in its own colour,
    its start (dot) and end (square) marked, with dots at regular times along it and its
    duration at its end; a diamond where each binding fired, with its name and time (steps
    of a continuous gesture: one mark with their count); and a legend with one line per
    touch sequence saying what it fired, or why it fired nothing (moved too far, too slow,
    nothing bound for that many fingers...). A summary line goes to stderr. View the
    picture in a browser, or make a PNG: rsvg-convert OUT.svg > OUT.png

    Options:
      -c, --config FILE   The config file (required).
      --device DESC       Take the device from DESC, as replay does.
      --svg OUT.svg       Where to write the picture (required; - for stdout).
      -h, --help          Show this help.

    Exit status: 0 written, 64 usage error, 65 the recording has a bad line or no device
    (or no profile takes it), 66 a file cannot be read, 74 OUT.svg cannot be written,
    78 the config has errors.

    """

  public static let record = """
    Usage: gestured record DEVICE > FILE.evemu

    Records the input device DEVICE (/dev/input/eventN; 'gestured devices' lists them) in
    evemu format on stdout: its description (N:, I:, P:, B:, A: lines), then one E: line per
    event, timed from the first event. 'gestured replay' reads the file, and so do
    evemu-play and evemu-device. The device is not grabbed: the desktop and a running
    gestured still see the touches. SIGINT (Ctrl-C) or SIGTERM stops it, as does the
    device going away: what was read is written out, and a line on stderr says how many
    events. Reading a device needs root or the input group.

    Options:
      -h, --help          Show this help.

    Exit status: 0 stopped (signal or device gone), 64 usage error, 66 DEVICE cannot be
    opened or is not an input device, 74 the recording cannot be written.

    """
}
