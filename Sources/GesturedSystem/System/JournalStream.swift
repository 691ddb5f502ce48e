#if canImport(Glibc)
  import Glibc
#endif

/// Whether the daemon's stderr is connected to journald, so log lines may carry `<N>`
/// priority prefixes (sd-daemon(3)).
///
/// systemd sets `$JOURNAL_STREAM` to "device:inode" of the stream it connects stdout/stderr
/// to. The variable alone is not enough: it is inherited by everything the service starts, so
/// a `gestured` run by hand from a shell inside some unit, with stderr redirected to a file,
/// would see it too. Only when stderr *is* that stream (same st_dev and st_ino) are prefixes
/// right; otherwise they would end up as literal `<6>` text in a file or terminal.
public enum JournalStream {
  /// True when `$JOURNAL_STREAM` names the stream on file descriptor 2.
  public static func stderrIsJournal(environment: [String: String]) -> Bool {
    matches(environment["JOURNAL_STREAM"], fileDescriptor: 2)
  }

  /// True when `value` ("device:inode", decimal) names the file open on `fileDescriptor`.
  /// False for a missing or malformed value and for a descriptor fstat(2) rejects.
  public static func matches(_ value: String?, fileDescriptor: Int32) -> Bool {
    guard let value, let (device, inode) = parse(value) else { return false }
    var status = stat()
    guard fstat(fileDescriptor, &status) == 0 else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
  }

  /// "device:inode" as systemd writes it: two unsigned decimals, nothing else.
  static func parse(_ value: String) -> (device: UInt64, inode: UInt64)? {
    let parts = value.split(separator: ":", omittingEmptySubsequences: false)
    guard parts.count == 2, let device = decimal(parts[0]), let inode = decimal(parts[1]) else {
      return nil
    }
    return (device, inode)
  }

  private static func decimal(_ text: Substring) -> UInt64? {
    guard !text.isEmpty,
      text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    return UInt64(text)
  }
}
