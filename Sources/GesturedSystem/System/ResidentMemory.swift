import CGesturedShim

/// The resident set after start-up: parsing the config, building the system-call filter and
/// enumerating devices free most of the heap they took, but the freed pages stay resident
/// until malloc gives them back; and start-up maps far more of the executable's code than
/// the event loop runs (`ExecutableImage`).
public enum ResidentMemory {
  /// Gives the heap's free pages back to the kernel (malloc_trim(3)) and unmaps the code
  /// and constants not in use; once start-up or a reload is over, so that the daemon's
  /// resident memory is what it keeps using.
  public static func returnUnusedPages() {
    _ = malloc_trim(0)
    ExecutableImage.unmapUnusedPages()
  }
}
