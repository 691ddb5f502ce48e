import CGesturedShim

/// The C heap after start-up: parsing the config, building the system-call filter and
/// enumerating devices free most of what they took, but the freed pages stay resident
/// until malloc gives them back.
public enum HeapTrim {
  /// Gives the heap's free pages back to the kernel (malloc_trim(3)); once start-up or a
  /// reload is over, so that the daemon's resident memory is what it keeps using.
  public static func returnFreePages() {
    _ = malloc_trim(0)
  }
}
