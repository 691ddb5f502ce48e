import GesturedSystem
#if canImport(Glibc)
  import Glibc
#endif

/// Who an action runs as when its binding sets `user:`: looked up by the daemon before it
/// spawns, because the child between vfork and exec may not touch the user database.
public struct UserIdentity: Sendable, Hashable {
  /// The name as the user database spells it (`USER`, `LOGNAME`).
  public var name: String
  public var uid: uid_t
  public var gid: gid_t
  /// Supplementary groups as initgroups(3) would set them: every group listing the user,
  /// and the primary group.
  public var groups: [gid_t]
  /// The home directory (`HOME`).
  public var home: String

  public init(name: String, uid: uid_t, gid: gid_t, groups: [gid_t], home: String) {
    self.name = name
    self.uid = uid
    self.gid = gid
    self.groups = groups
    self.home = home
  }

  /// Looks `name` up with getpwnam_r and its groups with getgrouplist.
  public init(lookingUp name: String) throws(UserLookupError) {
    guard !name.isEmpty, !name.utf8.contains(0) else { throw .noSuchUser(name) }
    var entry = passwd()
    var found: UnsafeMutablePointer<passwd>? = nil
    var bufferSize = 1024
    var record: (name: String, uid: uid_t, gid: gid_t, home: String)?
    while record == nil {
      let result = withUnsafeTemporaryAllocation(of: CChar.self, capacity: bufferSize) {
        buffer -> Int32 in
        guard let base = buffer.baseAddress else { return ENOMEM }
        let result = getpwnam_r(name, &entry, base, buffer.count, &found)
        // The strings point into `buffer`: copy them out before it goes away.
        if result == 0, found != nil {
          record = (
            entry.pw_name.map { String(cString: $0) } ?? name, entry.pw_uid, entry.pw_gid,
            entry.pw_dir.map { String(cString: $0) } ?? "/"
          )
        }
        return result
      }
      if result == ERANGE && bufferSize < 1 << 20 {
        bufferSize *= 2
        continue
      }
      if result != 0 { throw .lookupFailed(name, errno: Errno(rawValue: result)) }
      if found == nil { throw .noSuchUser(name) }
    }
    guard let record else { throw .noSuchUser(name) }

    var groups = [gid_t](repeating: 0, count: 32)
    while true {
      var count = Int32(groups.count)
      let result = getgrouplist(record.name, record.gid, &groups, &count)
      if result >= 0 {
        groups = Array(groups.prefix(Int(max(0, count))))
        break
      }
      // Too small: `count` now says how many there are.
      guard count > Int32(groups.count), count <= 65536 else {
        throw .lookupFailed(name, errno: Errno.current.rawValue == 0 ? .invalidArgument : .current)
      }
      groups = [gid_t](repeating: 0, count: Int(count))
    }
    self.init(
      name: record.name, uid: record.uid, gid: record.gid, groups: groups, home: record.home)
  }
}

/// Why `user:` could not be resolved.
public enum UserLookupError: Error, Hashable, Sendable, CustomStringConvertible {
  case noSuchUser(String)
  case lookupFailed(String, errno: Errno)

  public var description: String {
    switch self {
    case .noSuchUser(let name): return "no user named \"\(name)\""
    case .lookupFailed(let name, let error):
      return "looking up user \"\(name)\": \(error)"
    }
  }
}
