import CGesturedShim
import CSeccomp
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured __confinement-check`: what the recognizer's confinement lets it see and do,
/// measured from inside. The launcher's tests and the VM suite start it as the launcher
/// starts the recognizer and read its lines; an operator can run it the same way (the
/// docs say how). It reports the file system first, then installs the recognizer's
/// system-call filter and tries, one per line, what the filter must refuse and what the
/// recognizer needs.
public enum ConfinementCheck {
  public static func run(output: any OutputSink) -> ExitCode {
    output.write("root read-only: \(RecognizerSandbox.rootIsReadOnly ? "yes" : "no")\n")
    for directory in ["/home", "/tmp"] {
      output.write("\(directory) entries: \(entries(of: directory).map { "\($0.count)" } ?? "unreadable")\n")
    }
    output.write("/dev/uinput: \(uinputNode())\n")
    let processes = entries(of: "/proc")?.filter { $0.allSatisfy(\.isNumber) }.count
    output.write("processes visible: \(processes.map { "\($0)" } ?? "unreadable")\n")
    do {
      try RecognizerSandbox.confineSystemCalls()
    } catch {
      output.write("system-call filter: \(error)\n")
      return .systemError
    }
    output.write("system-call filter: installed\n")
    for (name, attempt) in attempts {
      let outcome = attempt()
      output.write("\(name): \(outcome == 0 ? "allowed" : "refused (\(symbol(outcome)))")\n")
    }
    return .success
  }

  /// Each returns 0 when the call succeeded, else its errno.
  static let attempts: [(String, @Sendable () -> Int32)] = [
    ("socket AF_UNIX", { openSocket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0) }),
    ("socket AF_NETLINK", { openSocket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue), 15) }),
    ("socket AF_INET", { openSocket(AF_INET, Int32(SOCK_STREAM.rawValue), 0) }),
    ("socket AF_INET6", { openSocket(AF_INET6, Int32(SOCK_DGRAM.rawValue), 0) }),
    ("socket AF_PACKET", { openSocket(AF_PACKET, Int32(SOCK_DGRAM.rawValue), 0) }),
    ("thread", startThread),
    ("unshare user namespace", { -gestured_unshare(Int32(CLONE_NEWUSER)) }),
    ("unshare network namespace", { -gestured_unshare(Int32(CLONE_NEWNET)) }),
    ("mmap writable and executable", { mapPage(protection: PROT_READ | PROT_WRITE | PROT_EXEC) }),
    ("mprotect executable", makeExecutable),
    ("execve", execute),
    ("setpriority", keepPriority),
  ]

  static func openSocket(_ family: Int32, _ type: Int32, _ protocolNumber: Int32) -> Int32 {
    let descriptor = socket(family, type | Int32(SOCK_CLOEXEC.rawValue), protocolNumber)
    guard descriptor >= 0 else { return errno }
    close(descriptor)
    return 0
  }

  static func startThread() -> Int32 {
    var thread = pthread_t()
    let result = pthread_create(&thread, nil, { _ in nil }, nil)
    if result == 0 { pthread_join(thread, nil) }
    return result
  }

  static func mapPage(protection: Int32) -> Int32 {
    let page = mmap(nil, 4096, protection, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let page, page != MAP_FAILED else { return errno }
    munmap(page, 4096)
    return 0
  }

  static func makeExecutable() -> Int32 {
    let page = mmap(nil, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    guard let page, page != MAP_FAILED else { return errno }
    defer { munmap(page, 4096) }
    return mprotect(page, 4096, PROT_READ | PROT_EXEC) == 0 ? 0 : errno
  }

  /// A path that does not exist: allowed, execve fails with ENOENT and the check goes on.
  static func execute() -> Int32 {
    let path = "/nonexistent/gestured-confinement-check"
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup(path), nil]
    defer { free(argv[0]) }
    var envp: [UnsafeMutablePointer<CChar>?] = [nil]
    execve(path, &argv, &envp)
    return errno == ENOENT ? 0 : errno
  }

  /// Setting the nice value it already has is always allowed by the kernel: only the filter
  /// (the unit's ~@resources) refuses it.
  static func keepPriority() -> Int32 {
    errno = 0
    let nice = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    guard errno == 0 else { return errno }
    return setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice) == 0 ? 0 : errno
  }

  static func symbol(_ code: Int32) -> String {
    switch code {
    case EPERM: "EPERM"
    case ENOSYS: "ENOSYS"
    case EACCES: "EACCES"
    case EAFNOSUPPORT: "EAFNOSUPPORT"
    default: "errno \(code)"
    }
  }

  static func entries(of path: String) -> [String]? {
    guard let directory = opendir(path) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    // d_name is read through a pointer: a record may end before the tuple's 256 bytes.
    let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name)!
    while let entry = readdir(directory) {
      let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  static func uinputNode() -> String {
    var status = stat()
    guard stat("/dev/uinput", &status) == 0 else { return errno == ENOENT ? "absent" : "unreadable" }
    var nullStatus = stat()
    if stat("/dev/null", &nullStatus) == 0, status.st_rdev == nullStatus.st_rdev { return "/dev/null" }
    return "the uinput device"
  }
}
