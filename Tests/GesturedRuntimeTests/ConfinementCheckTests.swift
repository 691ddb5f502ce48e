import GesturedRuntime
import GesturedSystem
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured __confinement-check` started as the launcher starts the recognizer: the lines
/// it writes are what the confinement lets it see and do.
@Suite("The recognizer's confinement, measured from inside")
struct ConfinementCheckTests {
  /// The built `gestured`, beside this test bundle in the build directory.
  static var gesturedPath: String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    var path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    while !path.hasSuffix("/") && !path.isEmpty { path.removeLast() }
    while let last = path.split(separator: "/").last, last.hasSuffix(".xctest") || last == "Contents" || last == "MacOS"
    {
      path = "/" + path.split(separator: "/").dropLast().joined(separator: "/") + "/"
    }
    let candidate = path + "gestured"
    return access(candidate, X_OK) == 0 ? candidate : nil
  }

  /// Runs the check with its stdout on a socket, under `credentials` and, when asked, in the
  /// recognizer's read-only file system; returns its lines by name.
  static func check(credentials: ChildCredentials?, readOnlyFileSystem: Bool) throws -> [String: String] {
    let gestured = try #require(gesturedPath, "gestured is built beside the test bundle")
    let (parent, child) = try SeqPacketSocket.pair()
    defer { parent.close() }
    let process = try ChildProcess.spawn(
      path: "/bin/sh", arguments: ["sh", "-c", "exec \"$0\" __confinement-check >&3", gestured],
      environment: ["PATH=/usr/bin:/bin"], inherited: [child.descriptor], credentials: credentials,
      noNewPrivileges: true, readOnlyFileSystem: readOnlyFileSystem
    ).get()
    child.close()
    #expect(try process.waitForExit() == .exited(0))
    var text = ""
    while case .message(let bytes) = try parent.receive(maximumLength: 4096) {
      text += String(decoding: bytes, as: UTF8.self)
    }
    var lines: [String: String] = [:]
    for line in text.split(separator: "\n") {
      guard let colon = line.firstIndex(of: ":") else { continue }
      lines[String(line[..<colon])] = String(line[line.index(after: colon)...].dropFirst())
    }
    return lines
  }

  @Test func theFilterRefusesWhatTheRecognizerUnitRefusesAndAllowsWhatItNeeds() throws {
    let lines = try Self.check(credentials: nil, readOnlyFileSystem: false)
    #expect(lines["system-call filter"] == "installed")
    for allowed in ["socket AF_UNIX", "socket AF_NETLINK", "thread"] {
      #expect(lines[allowed] == "allowed", "\(allowed)")
    }
    for refused in [
      "socket AF_INET", "socket AF_INET6", "socket AF_PACKET", "unshare user namespace", "unshare network namespace",
      "mmap writable and executable", "mprotect executable", "execve", "setpriority",
    ] {
      #expect(lines[refused] == "refused (EPERM)", "\(refused)")
    }
  }

  @Test(.enabled(if: geteuid() == 0, "needs root to make a mount namespace (run as root in CI and the VM)"))
  func theRecognizerSeesAReadOnlyFileSystemWithoutHomesTemporaryFilesOrOtherProcesses() throws {
    let nobody = ChildCredentials(uid: 65534, gid: 65534, groups: [])
    let lines = try Self.check(credentials: nobody, readOnlyFileSystem: true)
    #expect(lines["root read-only"] == "yes")
    #expect(lines["/home entries"] == "0")
    #expect(lines["/tmp entries"] == "0")
    #expect(["absent", "/dev/null"].contains(lines["/dev/uinput"]))
    // Its own shell and itself at most: hidepid=invisible hides every other user's process.
    let visible = try #require(lines["processes visible"].flatMap { Int($0) })
    #expect((1...2).contains(visible))
  }
}
