import CGesturedShim
import GesturedSystem
import Glibc
import Testing

/// What the daemon does once start-up or a reload is over: pages freed inside the heap go
/// back to the kernel, which free(3) does only for the heap's top, and only beyond a
/// threshold; the executable's pages leave the resident set until they are used again.
@Suite("Resident memory after start-up")
struct ResidentMemoryTests {
  /// AddressSanitizer's allocator replaces glibc's: it holds freed blocks in its quarantine,
  /// which malloc_trim(3) does not reach (`make test-asan`).
  static let mallocIsGlibcs = dlsym(nil, "__asan_init") == nil

  @Test(.enabled(if: mallocIsGlibcs, "malloc is AddressSanitizer's, not glibc's"))
  func freedPagesLeaveTheResidentSet() throws {
    // free() alone gives nothing back here, so that what leaves is the trim's doing.
    mallopt(M_TRIM_THRESHOLD, Int32.max)
    defer { mallopt(M_TRIM_THRESHOLD, 128 * 1024) }
    let blockSize = 64 * 1024 - 64  // under malloc's mmap threshold: from the heap
    var blocks: [UnsafeMutableRawPointer] = []
    for _ in 0..<256 {
      let block = try #require(malloc(blockSize))
      memset(block, 1, blockSize)
      blocks.append(block)
    }
    // In use above them, so that the freed blocks do not merge into the heap's top, which
    // a thread's heap gives back only from free().
    let above = try #require(malloc(blockSize))
    defer { free(above) }
    for block in blocks { free(block) }
    // The blocks' own pages, not the process's resident size: the other tests running at the
    // same time allocate and free too.
    let residentBefore = residentPages(of: blocks, size: blockSize)
    ResidentMemory.returnUnusedPages()
    let residentAfter = residentPages(of: blocks, size: blockSize)
    #expect(residentBefore > 1000)
    #expect(
      residentAfter * 2 < residentBefore, "\(residentBefore) pages resident before the trim, \(residentAfter) after")
  }

  @Test func theExecutablesPagesLeaveTheResidentSetUntilUsed() throws {
    let before = try #require(residentFileKiB())
    #expect(ExecutableImage.unmapUnusedPages() > 1 << 20, "this test's executable has megabytes of code")
    let after = try #require(residentFileKiB())
    // Other tests running meanwhile map back what they use, far less than the whole binary.
    #expect(after * 2 < before, "\(before) KiB of file pages resident before, \(after) KiB after")
  }

  /// RssFile of /proc/self/status.
  func residentFileKiB() -> Int? {
    let status =
      (try? InputFile.read(path: "/proc/self/status", maximumSize: 1 << 16)).map { String(decoding: $0, as: UTF8.self) }
      ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("RssFile:") }
    return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
  }

  /// How many whole pages inside the blocks are resident (mincore(2)); malloc keeps its own
  /// bookkeeping in a freed block's first bytes, so the page holding them is not counted.
  func residentPages(of blocks: [UnsafeMutableRawPointer], size: Int) -> Int {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    var resident = 0
    var vector = [UInt8](repeating: 0, count: size / page + 1)
    for block in blocks {
      let start = (Int(bitPattern: block) / page + 2) * page
      let end = (Int(bitPattern: block) + size) / page * page
      guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { continue }
      guard mincore(address, end - start, &vector) == 0 else { continue }
      resident += vector[..<((end - start) / page)].filter { $0 & 1 != 0 }.count
    }
    return resident
  }
}
