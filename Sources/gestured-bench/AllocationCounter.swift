#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Heap allocations counted by the malloc-counting preload (Tests/Benchmarks/malloc-count.c,
/// built by `make bench`), found by name at run time: without the preload, nil.
enum AllocationCounter {
  nonisolated(unsafe) private static let counter: UnsafeMutablePointer<UInt64>? = {
    // RTLD_DEFAULT: every object loaded, the preload first.
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gestured_bench_allocations") else {
      return nil
    }
    return symbol.assumingMemoryBound(to: UInt64.self)
  }()

  static var isAvailable: Bool { counter != nil }

  /// Allocations so far (malloc, calloc, realloc, posix_memalign, aligned_alloc, memalign).
  static var count: UInt64 { counter?.pointee ?? 0 }
}
