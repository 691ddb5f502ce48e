#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's own environment, read once at start (NOTIFY_SOCKET, WATCHDOG_USEC,
/// JOURNAL_STREAM, PATH). Actions never inherit it: `ActionEnvironment` builds theirs.
public enum ProcessEnvironment {
  public static func current() -> [String: String] {
    var variables: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
      let text = String(cString: pointer)
      if let equals = text.firstIndex(of: "=") {
        variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
      }
      entry += 1
    }
    return variables
  }
}
