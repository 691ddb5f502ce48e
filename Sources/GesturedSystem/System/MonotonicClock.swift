import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's only clock: CLOCK_MONOTONIC, the clock libevdev stamps events with once the
/// device is set to it, so "now" and event times compare directly. It does not jump when the
/// wall clock is set; it does not advance while the machine is suspended (a deadline honoured
/// after resume shows up as late, which the daemon handles).
///
/// Everything else in the project takes time as a value (event stamps, deadlines), so this is
/// the one place that reads a clock.
public enum MonotonicClock {
  /// Now, in microseconds, truncated like the kernel's event timestamps.
  public static func now() -> Timestamp {
    var time = timespec()
    // Cannot fail for CLOCK_MONOTONIC with a valid pointer (clock_gettime(2)).
    clock_gettime(CLOCK_MONOTONIC, &time)
    return Timestamp(seconds: Int64(time.tv_sec), microseconds: Int64(time.tv_nsec) / 1000)
  }
}
