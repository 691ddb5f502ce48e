import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Who an action runs as when its binding sets `user:`: looked up when the config is loaded
/// (`ResolvedUsers`), because the child between vfork and exec may not touch the user
/// database and the event loop must not wait for it (NSS may ask a network service).
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

  /// A `user:` action's umask: files it makes are readable by all, writable by the user.
  public static let fileModeMask: mode_t = 0o022

  /// Where a `user:` action starts: the home directory, `/` when the user has none.
  public var startingDirectory: String { home.isEmpty ? "/" : home }

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
      if result != 0 { throw .lookupFailed(name, SystemError(operation: "getpwnam_r", errno: Errno(rawValue: result))) }
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
        let failure = Errno.current.rawValue == 0 ? Errno.invalidArgument : .current
        throw .lookupFailed(name, SystemError(operation: "getgrouplist", errno: failure))
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
  /// getpwnam_r or getgrouplist failed.
  case lookupFailed(String, SystemError)

  public var description: String {
    switch self {
    case .noSuchUser(let name): return "no user named \"\(name)\""
    case .lookupFailed(let name, let failure):
      return "looking up user \"\(name)\": \(failure.errno)"
    }
  }
}

/// The `user:` names of a config, each looked up once when the config is loaded and kept
/// until the next load: starting an action looks nothing up.
public struct ResolvedUsers: Sendable {
  private var entries: [String: Result<UserIdentity, UserLookupError>] = [:]

  public init() {}

  /// Looks up every name given.
  public init(names: some Sequence<String>) {
    for name in names where entries[name] == nil {
      entries[name] = Result { () throws(UserLookupError) in try UserIdentity(lookingUp: name) }
    }
  }

  /// Looks up every `user:` of the profiles and their bindings.
  public init(actions: [ProfileActions]) {
    self.init(
      names: actions.flatMap { profile in [profile.user].compactMap { $0 } + profile.bindings.compactMap(\.user) })
  }

  /// The lookup's outcome for `name`; nil for a name that was not looked up.
  public subscript(name: String) -> Result<UserIdentity, UserLookupError>? { entries[name] }

  /// Names that could not be resolved, in name order, with the reason.
  public var failures: [(name: String, error: UserLookupError)] {
    entries.compactMap { name, result in
      guard case .failure(let error) = result else { return nil }
      return (name, error)
    }.sorted { $0.name < $1.name }
  }
}
