import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The process's open-file limit (RLIMIT_NOFILE): what it started with, and raising the soft
/// limit to the hard one.
///
/// systemd starts services with a soft limit of 1024 (and a hard one of 524288): the daemon
/// raises its own soft limit so that `max-devices` and its actions fit, and hands every action
/// the limit it started with (a program written for select(2) breaks above 1024).
public enum OpenFileLimit {
  /// The soft and hard limits, as getrlimit reports them (RLIM_INFINITY for none).
  public struct Value: Hashable, Sendable {
    public var soft: UInt64
    public var hard: UInt64

    public init(soft: UInt64, hard: UInt64) {
      self.soft = soft
      self.hard = hard
    }
  }

  /// The limit before `raiseToHardLimit` changed it, nil until it did: what actions get.
  private static let original = Mutex<Value?>(nil)

  /// The limit gestured started with when it has raised its own since, else nil (actions
  /// inherit the limit as it is).
  public static var forChildren: Value? { original.withLock { $0 } }

  /// The calling process's limit now.
  public static func current() -> Result<Value, Errno> {
    var limit = rlimit()
    if case .failure(let error) = valueOrErrno(getrlimit(resource, &limit)) { return .failure(error) }
    return .success(Value(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max)))
  }

  /// Raises the soft limit to the hard limit (remembering the first one it saw for the
  /// children) and returns the limit now in force.
  @discardableResult
  public static func raiseToHardLimit() -> Result<Value, Errno> {
    let before: Value
    switch current() {
    case .success(let value): before = value
    case .failure(let error): return .failure(error)
    }
    guard before.soft < before.hard else { return .success(before) }
    var raised = rlimit(rlim_cur: rlim_t(before.hard), rlim_max: rlim_t(before.hard))
    if case .failure(let error) = valueOrErrno(setrlimit(resource, &raised)) { return .failure(error) }
    original.withLock { saved in
      if saved == nil { saved = before }
    }
    return .success(Value(soft: before.hard, hard: before.hard))
  }

  /// RLIMIT_NOFILE as getrlimit takes it (an enum in glibc's headers).
  public static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
}
