import GestureCore
import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

// gestured-touch: virtual touchscreens for the real-kernel tests (Tests/VM, docs/testing.md).
// The command line, the device plan and the schedule live in TouchScript (UinputPlan.swift),
// where they are unit-tested; this file only does the I/O.

enum Exit {
  static let success: Int32 = 0
  static let failure: Int32 = 1
  static let usage: Int32 = 64
  /// The script has an error (EX_DATAERR).
  static let badScript: Int32 = 65
  /// The script file cannot be read (EX_NOINPUT).
  static let missingFile: Int32 = 66
}

func fail(_ message: String, status: Int32) -> Never {
  _ = writeAll("gestured-touch: \(message)\n", to: STDERR_FILENO)
  exit(status)
}

func loadScript(_ path: String) -> TouchScript {
  let text: String
  switch readTextFile(path) {
  case .success(let contents): text = contents
  case .failure(let error): fail(error.message, status: Exit.missingFile)
  }
  do throws(TouchScriptError) {
    return try TouchScript.parse(text, file: path)
  } catch {
    fail(error.description, status: Exit.badScript)
  }
}

func createDevice(for script: TouchScript) -> VirtualTouchscreen {
  do throws(UinputPlanError) {
    let device = try VirtualTouchscreen(setup: try UinputDeviceSetup(device: script.device))
    // The devnode goes out at once, even into a pipe: tests read it while the device lives.
    _ = writeAll(device.devnode + "\n", to: STDOUT_FILENO)
    return device
  } catch {
    fail(error.message, status: Exit.failure)
  }
}

/// Milliseconds with three decimals, for the report on stderr.
func milliseconds(_ span: Microseconds) -> String {
  let whole = span / 1000
  let fraction = String(span % 1000)
  return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
}

switch TouchPlayerInvocation.parse(Array(CommandLine.arguments.dropFirst())) {
case .help:
  _ = writeAll(TouchPlayerInvocation.usage, to: STDOUT_FILENO)
  exit(Exit.success)

case .usageError(let message):
  fail(message + "\nRun 'gestured-touch --help' for usage.", status: Exit.usage)

case .record(let path, let output):
  let script = loadScript(path)
  if case .failure(let error) = writeTextFile(script.evemuText(), to: output) {
    fail(error.message, status: Exit.failure)
  }
  exit(Exit.success)

case .play(let options):
  exit(runPlay(options))

case .create(let path):
  exit(runCreate(path))
}

// The device is destroyed (libevdev_uinput_destroy) when these functions return and it goes
// out of scope: exit() alone would leave that to the kernel closing /dev/uinput.

func runPlay(_ options: PlayOptions) -> Int32 {
  let script = loadScript(options.script)
  let schedule = PlaybackSchedule(events: script.events)
  // Blocked before the device exists: a SIGUSR1 sent as soon as the devnode is printed
  // must start playback, not kill the process.
  var startSignal = signalSet([SIGUSR1])
  if options.waitForSignal { pthread_sigmask(SIG_BLOCK, &startSignal, nil) }
  let device = createDevice(for: script)
  if options.waitForSignal {
    var received: Int32 = 0
    while sigwait(&startSignal, &received) != 0 {}
  } else {
    sleep(until: monotonicNow() &+ options.createWait)
  }
  switch play(schedule, on: device, instant: options.instant) {
  case .success(let report):
    _ = writeAll(
      "gestured-touch: \(device.devnode): played \(report.events) events in "
        + "\(milliseconds(report.duration)) ms (script: \(milliseconds(schedule.duration)) ms), "
        + "latest event \(milliseconds(report.worstLateness)) ms late\n",
      to: STDERR_FILENO)
  case .failure(let error):
    _ = writeAll("gestured-touch: \(error.message)\n", to: STDERR_FILENO)
    return Exit.failure
  }
  sleep(until: monotonicNow() &+ options.holdOpen)
  return Exit.success
}

func signalSet(_ signals: [Int32]) -> sigset_t {
  var set = sigset_t()
  sigemptyset(&set)
  for signal in signals { sigaddset(&set, signal) }
  return set
}

func runCreate(_ path: String) -> Int32 {
  let script = loadScript(path)
  // Blocked before the device exists, so a SIGTERM sent as soon as the devnode is printed
  // is waited for rather than killing the process the default way.
  var stopSignals = signalSet([SIGTERM, SIGINT])
  pthread_sigmask(SIG_BLOCK, &stopSignals, nil)
  let device = createDevice(for: script)
  var received: Int32 = 0
  while sigwait(&stopSignals, &received) != 0 {}
  withExtendedLifetime(device) {}
  return Exit.success
}
