import CGesturedShim

/// Which CPUs the daemon's processes run on.
public enum ProcessorAffinity {
  /// Keeps the calling thread, and the threads and helper process it starts from now on, on
  /// the CPU it runs on (`gestured_keep_to_one_cpu`); actions started afterwards still run on
  /// every CPU allowed before. Returns that CPU.
  public static func keepToOneCPU() -> Result<Int32, SystemError> {
    valueOrErrno(negated: gestured_keep_to_one_cpu()).mapError {
      SystemError(operation: "sched_getaffinity, sched_getcpu or sched_setaffinity", errno: $0)
    }
  }
}
