import CGesturedShim

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon runs as root and runs the config's commands (as root unless a binding sets
/// `user:`), so whoever can change the config can run anything as root. Like sshd's
/// StrictModes, a process running as root (the daemon, `check`, `replay --run-actions`)
/// therefore refuses a config that anyone but root could change:
///
/// - the file must be owned by root and not writable by its group or others;
/// - every directory on the way to it must be owned by root and not writable by group or
///   others, because whoever can write a directory can rename another file over the config.
///   A sticky directory (like /tmp, mode 1777) is accepted: the kernel lets nobody but the
///   owner of an entry (root, as required here) rename or remove it;
/// - symbolic links are followed component by component, so the directories of each link's
///   target are checked too, and a link inside a sticky directory must itself be root's.
///
/// The check cannot be raced: the path is resolved here, one component at a time, each one
/// opened (`O_PATH | O_NOFOLLOW`) relative to the directory descriptor checked before it and
/// checked through its own descriptor (fstat), links read through theirs (readlinkat); the
/// file is opened from its checked directory's descriptor, its owner and mode are checked on
/// the descriptor that is then read, and nothing is opened by path again. Swapping a name
/// between two steps changes nothing, because every object checked is the one used next.
///
/// Mode bits are enough even with POSIX ACLs: an ACL that grants a group or another user write
/// access shows as the group write bit (the ACL mask).
public enum ConfigPermissions {
  /// Why the config was not read.
  public enum ReadError: Error, Equatable, Sendable {
    /// Someone other than root could change it, and the caller runs as root: what is wrong
    /// and what to run. The caller prints it after the path and exits 78 (EX_CONFIG).
    case unsafe(String)
    /// It cannot be opened or read (exit 66, EX_NOINPUT).
    case unreadable(FileReadError)
  }

  /// The config's bytes. As root, only from a file nobody but root could have changed, read
  /// from the very descriptor that was checked; as anyone else, as `InputFile.read` reads
  /// (such a process can only run commands as the user who could edit the file anyway).
  public static func read(path: String, maximumSize: Int) throws(ReadError) -> [UInt8] {
    try read(path: path, maximumSize: maximumSize, effectiveUserID: geteuid())
  }

  package static func read(
    path: String, maximumSize: Int, effectiveUserID: uid_t
  ) throws(ReadError) -> [UInt8] {
    guard effectiveUserID == 0 else {
      do {
        return try InputFile.read(path: path, maximumSize: maximumSize)
      } catch {
        throw .unreadable(error)
      }
    }
    let walk = Walk(path: path)
    let (descriptor, status) = try walk.run()
    defer { close(descriptor) }
    do {
      return try InputFile.read(
        descriptor: descriptor, status: status, path: path, maximumSize: maximumSize)
    } catch {
      throw .unreadable(error)
    }
  }

  /// The config open for reading (close-on-exec), checked as `read` checks it as root: the
  /// launcher hands it to its recognizer, whose own mount namespace may not show the path
  /// (a config in /tmp or a home). The caller closes it.
  public static func openChecked(path: String) throws(ReadError) -> Int32 {
    try Walk(path: path).run().descriptor
  }

  /// What refuses the file as root, nil when it is safe or cannot be read.
  static func check(path: String, effectiveUserID: uid_t = 0) -> String? {
    do {
      _ = try read(path: path, maximumSize: Int.max, effectiveUserID: effectiveUserID)
      return nil
    } catch {
      if case .unsafe(let problem) = error { return problem }
      return nil
    }
  }

  /// More links than this in one path is a loop (the kernel's own limit, MAXSYMLINKS): ELOOP.
  static let maximumSymlinks = 40

  private static let groupWrite: mode_t = 0o020
  private static let otherWrite: mode_t = 0o002
  private static let sticky: mode_t = 0o1000

  /// Resolves a path like the kernel does, one component at a time, from descriptors of the
  /// directories already checked; owns every descriptor it opens but the file's.
  private final class Walk {
    struct Directory {
      var descriptor: Int32
      var path: String
      var sticky: Bool
    }

    let path: String
    /// Components still to resolve, last one first (a stack).
    var pending: [Substring] = []
    /// The directories resolved so far, "/" first, each open and checked.
    var chain: [Directory] = []
    var symlinksFollowed = 0

    init(path: String) { self.path = path }

    deinit {
      for directory in chain { close(directory.descriptor) }
    }

    func unreadable(_ errno: Errno) -> ReadError {
      .unreadable(FileReadError(path: path, reason: .system(errno: errno)))
    }

    /// The config, open for reading, and its fstat.
    func run() throws(ReadError) -> (descriptor: Int32, status: stat) {
      var absolute = path
      if !path.hasPrefix("/") {
        guard let directory = getcwd(nil, 0) else {
          throw .unsafe("refusing the config: cannot resolve a relative path (\(Errno.current))")
        }
        absolute = String(cString: directory) + "/" + path
        free(directory)
      }
      let root = try lookUp(AT_FDCWD, "/")
      try enter(root.descriptor, "/", status: root.status)
      push(absolute)

      while let name = pending.popLast() {
        if name.isEmpty || name == "." { continue }
        if name == ".." {
          // The parent of a resolved directory is already in the chain, checked.
          if chain.count > 1 { close(chain.removeLast().descriptor) }
          continue
        }
        let directory = chain[chain.count - 1]
        let entry = directory.path == "/" ? "/" + name : directory.path + "/" + name
        let (descriptor, status) = try lookUp(directory.descriptor, String(name))
        switch status.st_mode & S_IFMT {
        case S_IFLNK:
          defer { close(descriptor) }
          try follow(link: descriptor, entry, status: status, in: directory)
        case S_IFDIR:
          try enter(descriptor, entry, status: status)
        default:
          close(descriptor)
          // Anything left to resolve after a file fails as the kernel would fail it.
          guard pending.allSatisfy(\.isEmpty) else { throw unreadable(.notADirectory) }
          return try openFile(String(name), entry, in: directory)
        }
      }
      throw .unreadable(FileReadError(path: path, reason: .notRegularFile(kind: "a directory")))
    }

    /// What `open` opened, with its fstat; the descriptor is closed again if fstat fails.
    func openAndStat(_ open: () -> Result<Int32, Errno>) throws(ReadError) -> (descriptor: Int32, status: stat) {
      let descriptor: Int32
      switch retryOnInterrupt(open) {
      case .success(let opened): descriptor = opened
      case .failure(let error): throw unreadable(error)
      }
      var status = stat()
      if case .failure(let error) = valueOrErrno(fstat(descriptor, &status)) {
        close(descriptor)
        throw unreadable(error)
      }
      return (descriptor, status)
    }

    /// `name` in `directory`, not following a link, for fstat and lookups only.
    func lookUp(_ directory: Int32, _ name: String) throws(ReadError) -> (descriptor: Int32, status: stat) {
      try openAndStat { valueOrErrno(negated: gestured_open_path(directory, name)) }
    }

    func push(_ path: String) {
      pending.append(
        contentsOf: path.split(separator: "/", omittingEmptySubsequences: true).reversed())
    }

    /// Checks a directory and makes it the one the next component is looked up in; closes
    /// `descriptor` if it is refused.
    func enter(_ descriptor: Int32, _ directory: String, status: stat) throws(ReadError) {
      if status.st_uid != 0 {
        close(descriptor)
        throw .unsafe(
          "refusing the config: directory \(directory) is owned by \(userText(status.st_uid)), "
            + "who could replace the file, and gestured runs as root. Keep the config in a "
            + "root-owned directory such as /etc/gestured, or run: chown root:root \(shellQuoted(directory))"
        )
      }
      let isSticky = status.st_mode & sticky != 0
      if !isSticky, let who = writers(status.st_mode) {
        close(descriptor)
        throw .unsafe(
          "refusing the config: directory \(directory) is writable by \(who) "
            + "(mode \(modeText(status.st_mode))), who could replace the file, and gestured runs as "
            + "root. Run: chmod go-w \(shellQuoted(directory))")
      }
      chain.append(Directory(descriptor: descriptor, path: directory, sticky: isSticky))
    }

    func follow(link: Int32, _ entry: String, status: stat, in directory: Directory) throws(ReadError) {
      // In a sticky directory the link's owner may replace it; elsewhere only the directory's
      // owner (root, checked) can.
      if directory.sticky && status.st_uid != 0 {
        throw .unsafe(
          "refusing the config: symbolic link \(entry) in the sticky directory \(directory.path) "
            + "is owned by \(userText(status.st_uid)), who could point it elsewhere. Point --config "
            + "at a file in a root-owned directory such as /etc/gestured")
      }
      symlinksFollowed += 1
      if symlinksFollowed > maximumSymlinks { throw unreadable(.tooManySymbolicLinks) }
      var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
      // The link itself, through its descriptor: "" with an O_PATH descriptor names it.
      let read = valueOrErrno(readlinkat(link, "", &buffer, buffer.count))
      guard case .success(let count) = read, count > 0, count < buffer.count else {
        if case .failure(let error) = read { throw unreadable(error) }
        throw unreadable(.nameTooLong)
      }
      let target = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
      if target.hasPrefix("/") {
        for directory in chain.dropFirst() { close(directory.descriptor) }
        chain.removeSubrange(1...)
      }
      push(target)
    }

    /// Opens the file from its checked directory and checks that descriptor: the one read.
    func openFile(_ name: String, _ entry: String, in directory: Directory) throws(ReadError) -> (
      descriptor: Int32, status: stat
    ) {
      let (descriptor, status) = try openAndStat {
        valueOrErrno(
          openat(directory.descriptor, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC))
      }
      let type = status.st_mode & S_IFMT
      guard type == S_IFREG else {
        close(descriptor)
        throw .unreadable(
          FileReadError(path: path, reason: .notRegularFile(kind: InputFile.kindName(type))))
      }
      if status.st_uid != 0 {
        close(descriptor)
        throw .unsafe(
          "refusing a config owned by \(userText(status.st_uid)): gestured runs as root and "
            + "would run whatever that user writes into it. Run: chown root:root "
            + "\(shellQuoted(entry)); chmod 644 \(shellQuoted(entry))")
      }
      if let who = writers(status.st_mode) {
        close(descriptor)
        throw .unsafe(
          "refusing a config writable by \(who) (mode \(modeText(status.st_mode))): "
            + "gestured runs as root and would run whatever they write into it. Run: chmod go-w "
            + shellQuoted(entry))
      }
      return (descriptor, status)
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
