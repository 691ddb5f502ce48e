#if canImport(Glibc)
  import Glibc
#endif

/// The daemon runs as root and runs the config's commands (as root unless a binding sets
/// `user:`), so whoever can change the config can run anything as root. Like sshd's
/// StrictModes, a root daemon therefore refuses a config that anyone but root could change:
///
/// - the file must be owned by root and not writable by its group or others;
/// - every directory on the way to it must be owned by root and not writable by group or
///   others, because whoever can write a directory can rename another file over the config.
///   A sticky directory (like /tmp, mode 1777) is accepted: the kernel lets nobody but the
///   owner of an entry (root, as required here) rename or remove it;
/// - symbolic links are followed component by component, so the directories of each link's
///   target are checked too, and a link inside a sticky directory must itself be root's.
///
/// The loader opens the file by path afterwards. That is safe because the whole chain is
/// root's: no other user can swap the file between this check and the open.
///
/// Mode bits are enough even with POSIX ACLs: an ACL that grants a group or another user write
/// access shows as the group write bit (the ACL mask).
public enum ConfigPermissions {
  /// Nil when the config may be used: the daemon is not root (then it can only run commands
  /// as the user who could edit the file anyway), the file is safe, or it cannot be found (the
  /// loader then reports that, with its own exit code). Otherwise a message saying what is
  /// wrong and what to run; the caller prints it after the path and exits 78 (EX_CONFIG).
  public static func check(path: String) -> String? {
    check(path: path, effectiveUserID: geteuid())
  }

  static func check(path: String, effectiveUserID: uid_t) -> String? {
    guard effectiveUserID == 0 else { return nil }
    var status = stat()
    guard stat(path, &status) == 0 else { return nil }
    var walk = Walk(path: path)
    return walk.run()
  }

  /// More links than this in one path is a loop (the kernel's own limit, MAXSYMLINKS).
  static let maximumSymlinks = 40

  private static let groupWrite: mode_t = 0o020
  private static let otherWrite: mode_t = 0o002
  private static let sticky: mode_t = 0o1000
  private static let typeMask: mode_t = 0o170000
  private static let directoryType: mode_t = 0o040000
  private static let symlinkType: mode_t = 0o120000

  /// Resolves a path like the kernel does, one component at a time, checking every directory
  /// an entry is looked up in.
  private struct Walk {
    let path: String
    /// Components still to resolve, last one first (a stack).
    var pending: [Substring] = []
    /// The directories resolved so far, "/" first; each one has been checked.
    var chain: [(path: String, sticky: Bool)] = []
    var symlinksFollowed = 0

    init(path: String) { self.path = path }

    mutating func run() -> String? {
      var absolute = path
      if !path.hasPrefix("/") {
        guard let directory = getcwd(nil, 0) else {
          return "refusing the config: cannot resolve a relative path (\(Errno.current))"
        }
        absolute = String(cString: directory) + "/" + path
        free(directory)
      }
      if let problem = enterDirectory("/") { return problem }
      push(absolute)

      while let name = pending.popLast() {
        if name.isEmpty || name == "." { continue }
        if name == ".." {
          // The parent of a resolved directory is already in the chain, checked.
          if chain.count > 1 { chain.removeLast() }
          continue
        }
        let directory = chain[chain.count - 1]
        let entry = directory.path == "/" ? "/" + name : directory.path + "/" + name
        var status = stat()
        guard lstat(entry, &status) == 0 else {
          return "refusing the config: cannot check who can change \(entry): \(Errno.current)"
        }
        let type = status.st_mode & typeMask
        if type == symlinkType {
          if let problem = follow(link: entry, status: status, in: directory) { return problem }
        } else if type == directoryType {
          if let problem = enterDirectory(entry, status: status) { return problem }
        } else {
          // The file itself. Anything left to resolve after a non-directory cannot be opened;
          // the loader reports that.
          if pending.contains(where: { !$0.isEmpty }) { return nil }
          return checkFile(entry, status: status)
        }
      }
      // The path names a directory: the loader reports that it cannot read it.
      return nil
    }

    mutating func push(_ path: String) {
      pending.append(
        contentsOf: path.split(separator: "/", omittingEmptySubsequences: true).reversed())
    }

    mutating func enterDirectory(_ directory: String) -> String? {
      var status = stat()
      guard lstat(directory, &status) == 0 else {
        return "refusing the config: cannot check who can change \(directory): \(Errno.current)"
      }
      return enterDirectory(directory, status: status)
    }

    mutating func enterDirectory(_ directory: String, status: stat) -> String? {
      if status.st_uid != 0 {
        return
          "refusing the config: directory \(directory) is owned by \(userText(status.st_uid)), "
          + "who could replace the file, and gestured runs as root. Keep the config in a "
          + "root-owned directory such as /etc/gestured, or run: chown root:root \(shellQuoted(directory))"
      }
      let isSticky = status.st_mode & sticky != 0
      if !isSticky, let who = writers(status.st_mode) {
        return "refusing the config: directory \(directory) is writable by \(who) "
          + "(mode \(modeText(status.st_mode))), who could replace the file, and gestured runs as "
          + "root. Run: chmod go-w \(shellQuoted(directory))"
      }
      chain.append((directory, isSticky))
      return nil
    }

    mutating func follow(link: String, status: stat, in directory: (path: String, sticky: Bool))
      -> String?
    {
      // In a sticky directory the link's owner may replace it; elsewhere only the directory's
      // owner (root, checked) can.
      if directory.sticky && status.st_uid != 0 {
        return
          "refusing the config: symbolic link \(link) in the sticky directory \(directory.path) "
          + "is owned by \(userText(status.st_uid)), who could point it elsewhere. Point --config "
          + "at a file in a root-owned directory such as /etc/gestured"
      }
      symlinksFollowed += 1
      if symlinksFollowed > maximumSymlinks {
        return "refusing the config: cannot check who can change it: too many symbolic links"
      }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
      let count = readlink(link, &buffer, buffer.count)
      guard count > 0, count < buffer.count else {
        let reason = count < 0 ? Errno.current.description : "the link's target is too long"
        return "refusing the config: cannot check who can change it: readlink \(link): \(reason)"
      }
      let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if target.hasPrefix("/") { chain.removeSubrange(1...) }
      push(target)
      return nil
    }

    func checkFile(_ file: String, status: stat) -> String? {
      if status.st_uid != 0 {
        return "refusing a config owned by \(userText(status.st_uid)): gestured runs as root and "
          + "would run whatever that user writes into it. Run: chown root:root "
          + "\(shellQuoted(file)); chmod 644 \(shellQuoted(file))"
      }
      if let who = writers(status.st_mode) {
        return "refusing a config writable by \(who) (mode \(modeText(status.st_mode))): "
          + "gestured runs as root and would run whatever they write into it. Run: chmod go-w "
          + shellQuoted(file)
      }
      return nil
    }
  }

  /// Who besides the owner may write, by mode bits; nil when nobody.
  static func writers(_ mode: mode_t) -> String? {
    switch (mode & groupWrite != 0, mode & otherWrite != 0) {
    case (true, true): "its group and everyone"
    case (true, false): "its group"
    case (false, true): "everyone"
    case (false, false): nil
    }
  }

  /// Permission bits as `chmod` takes them, e.g. "0664", "1777".
  static func modeText(_ mode: mode_t) -> String {
    let digits = String(mode & 0o7777, radix: 8)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// "uid 1000 (kiosk)", or just the number when the user database has no name for it.
  static func userText(_ uid: uid_t) -> String {
    var entry = passwd()
    var result: UnsafeMutablePointer<passwd>?
    var buffer = [CChar](repeating: 0, count: 4096)
    if getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, let result,
      let name = result.pointee.pw_name
    {
      return "uid \(uid) (\(String(cString: name)))"
    }
    return "uid \(uid)"
  }

  /// `text` as one shell word, for the commands the messages suggest.
  static func shellQuoted(_ text: String) -> String {
    let plain = text.utf8.allSatisfy { byte in
      switch byte {
      case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"):
        true
      default: "/._-+:@,%=".utf8.contains(byte)
      }
    }
    if plain && !text.isEmpty { return text }
    return "'" + text.replacing("'", with: "'\\''") + "'"
  }
}
