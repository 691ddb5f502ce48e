import CGesturedShim

/// The read-only segments (code and constants) of the executable and its libraries (glibc's)
/// in the resident set. At each page fault on a file the kernel also maps the neighbouring
/// pages it has cached (fault-around), so after start-up most of them count as resident
/// though the event loop uses a small part. Once start-up is over they are unmapped: what
/// the loop uses is mapped again at its first use, with its neighbours. The pages stay in the
/// page cache, shared with the other process and any later start, so mapping one again costs
/// a minor fault, not a read.
public enum ExecutableImage {
  /// Unmaps those segments; returns how many bytes it unmapped (0 when none was found or the
  /// kernel refused).
  @discardableResult
  public static func unmapUnusedPages() -> Int { Int(gestured_unmap_executable_image()) }
}
