import GestureCore
import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

/// The monotonic clock in microseconds: the clock the kernel stamps evdev events with when
/// gestured asks for CLOCK_MONOTONIC, so "real timing" here is the timing gestured measures.
func monotonicNow() -> Microseconds {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Microseconds(now.tv_sec) &* 1_000_000 &+ Microseconds(now.tv_nsec / 1_000)
}

/// Sleeps until an absolute CLOCK_MONOTONIC time, resuming after signals.
func sleep(until deadline: Microseconds) {
  var target = timespec(
    tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1_000)
  // clock_nanosleep returns its error instead of setting errno.
  _ = retryingOnInterrupt {
    let error = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &target, nil)
    errno = error
    return error == 0 ? 0 : -1
  }
}

/// How a playback went: the VM is slow, so scenarios want to know how late it ran.
struct PlaybackReport {
  var events = 0
  /// How long after its deadline the most delayed event was written.
  var worstLateness: Microseconds = 0
  var duration: Microseconds = 0
}

/// Writes the schedule's events to the device, each at `start + offset` (absolute
/// deadlines, so one late wake-up does not shift every later event), or all at once when
/// `instant`. Stops at the first failing write and returns its errno.
func play(_ schedule: PlaybackSchedule, on device: VirtualTouchscreen, instant: Bool)
  -> Result<PlaybackReport, UinputPlanError>
{
  var report = PlaybackReport()
  let start = monotonicNow()
  var lastOffset: Microseconds = -1
  for step in schedule.steps {
    if !instant, step.offset != lastOffset {
      // Events of one frame share a time: sleep only before the frame's first.
      let deadline = start &+ step.offset
      sleep(until: deadline)
      report.worstLateness = max(report.worstLateness, monotonicNow() &- deadline)
      lastOffset = step.offset
    }
    let status = device.write(type: step.type, code: step.code, value: step.value)
    guard status == 0 else {
      return .failure(
        UinputPlanError(
          "writing event \(report.events + 1) failed: \(String(cString: strerror(-status)))"))
    }
    report.events += 1
  }
  report.duration = monotonicNow() &- start
  return .success(report)
}
