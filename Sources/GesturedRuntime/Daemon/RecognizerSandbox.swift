import CSeccomp
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The recognizer's confinement beyond its user and groups: the launcher starts it in a
/// private read-only view of the file system (`ChildProcess.spawn`'s `readOnlyFileSystem`),
/// and it installs this system-call filter on itself before it reads anything untrusted.
/// Together they apply what gestured-recognizer.service states for systemd-analyze
/// (docs/systemd.md, "Two processes", maps each setting).
public enum RecognizerSandbox {
  /// What a refused call returns, as the unit's SystemCallErrorNumber=EPERM: a failing call
  /// is logged by the code that made it instead of killing the process.
  static let refusal = errno(EPERM)
  /// Namespaces are refused (RestrictNamespaces=yes): clone with any CLONE_NEW* flag.
  static let namespaceFlags: UInt64 = UInt64(
    CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
  static let writeAndExecute = UInt64(PROT_WRITE | PROT_EXEC)
  /// SHM_EXEC of linux/shm.h, which glibc declares only under _GNU_SOURCE.
  static let shmExecute: UInt64 = 0o100000

  static func errno(_ code: Int32) -> UInt32 { 0x0005_0000 | (UInt32(code) & 0xffff) }

  /// A rule: `action` for `name` when every comparison holds.
  struct Rule {
    var name: String
    var action: UInt32 = SCMP_ACT_ALLOW
    var comparisons: [scmp_arg_cmp] = []
  }

  static func argument(_ index: UInt32, masked mask: UInt64, equals value: UInt64) -> scmp_arg_cmp {
    scmp_arg_cmp(arg: index, op: SCMP_CMP_MASKED_EQ, datum_a: mask, datum_b: value)
  }

  static func argument(_ index: UInt32, equals value: UInt64) -> scmp_arg_cmp {
    scmp_arg_cmp(arg: index, op: SCMP_CMP_EQ, datum_a: value, datum_b: 0)
  }

  /// The calls allowed only with some arguments, each rule one way to be allowed.
  static var conditionalRules: [Rule] {
    var rules: [Rule] = []
    // RestrictAddressFamilies=AF_UNIX AF_NETLINK: the journal, the channel, the udev monitor.
    for family in [AF_UNIX, AF_NETLINK] {
      rules.append(Rule(name: "socket", comparisons: [argument(0, equals: UInt64(family))]))
    }
    // Threads, never a namespace. clone3's flags are in memory a filter cannot read, so it
    // fails as if the kernel lacked it and glibc falls back to clone.
    rules.append(Rule(name: "clone", comparisons: [argument(0, masked: namespaceFlags, equals: 0)]))
    rules.append(Rule(name: "clone3", action: errno(ENOSYS)))
    // MemoryDenyWriteExecute=yes: no mapping both writable and executable, no page made
    // executable later.
    for name in ["mmap", "mmap2"] {
      for allowed in [0, UInt64(PROT_WRITE), UInt64(PROT_EXEC)] {
        rules.append(Rule(name: name, comparisons: [argument(2, masked: writeAndExecute, equals: allowed)]))
      }
    }
    for name in ["mprotect", "pkey_mprotect"] {
      rules.append(Rule(name: name, comparisons: [argument(2, masked: UInt64(PROT_EXEC), equals: 0)]))
    }
    rules.append(Rule(name: "shmat", comparisons: [argument(2, masked: shmExecute, equals: 0)]))
    // LockPersonality=yes: only asking which personality it has, or keeping Linux's.
    for persona: UInt64 in [0xffff_ffff, 0] {
      rules.append(Rule(name: "personality", comparisons: [argument(0, equals: persona)]))
    }
    return rules
  }

  /// Installs the filter on every thread of the process (for good: a filter cannot be
  /// removed). Calls not allowed fail with EPERM; a call of another architecture kills.
  public static func confineSystemCalls() throws(SystemError) {
    guard let filter = seccomp_init(refusal) else {
      throw SystemError(operation: "seccomp_init", errno: Errno(rawValue: ENOMEM))
    }
    defer { seccomp_release(filter) }
    func check(_ result: Int32, _ operation: String) throws(SystemError) {
      if result < 0 { throw SystemError(operation: "\(operation)", errno: Errno(rawValue: -result)) }
    }
    try check(seccomp_attr_set(filter, SCMP_FLTATR_CTL_TSYNC, 1), "seccomp_attr_set TSYNC")
    for name in allowedSystemCalls {
      let number = seccomp_syscall_resolve_name(name)
      // Negative: a name this architecture does not have.
      guard number >= 0 else { continue }
      try check(seccomp_rule_add_array(filter, SCMP_ACT_ALLOW, number, 0, nil), "seccomp_rule_add \(name)")
    }
    for rule in conditionalRules {
      let number = seccomp_syscall_resolve_name(rule.name)
      guard number >= 0 else { continue }
      let result = rule.comparisons.withUnsafeBufferPointer {
        seccomp_rule_add_array(filter, rule.action, number, UInt32($0.count), $0.baseAddress)
      }
      try check(result, "seccomp_rule_add \(rule.name)")
    }
    try check(seccomp_load(filter), "seccomp_load")
  }

  /// Whether the root mount is read-only here: false when the launcher could not make it so
  /// (a kernel without mount namespaces) or when not started by the launcher.
  public static var rootIsReadOnly: Bool {
    var status = statvfs()
    return statvfs("/", &status) == 0 && status.f_flag & UInt(ST_RDONLY) != 0
  }
}
