import GesturedSystem
import Glibc
import Testing

/// What the daemon does once start-up or a reload is over: pages freed inside the heap go
/// back to the kernel, which free(3) alone does not do while a live block lies above them.
@Suite("Heap trim")
struct HeapTrimTests {
  @Test func freedPagesBelowALiveBlockLeaveTheResidentSet() throws {
    let blockSize = 64 * 1024 - 64  // under malloc's mmap threshold: from the heap
    let count = 512  // 32 MiB
    var blocks: [UnsafeMutableRawPointer] = []
    for _ in 0..<count {
      let block = try #require(malloc(blockSize))
      memset(block, 1, blockSize)
      blocks.append(block)
    }
    // Keeps the heap's top in use, so that free() cannot give the pages back itself.
    let above = try #require(malloc(1024))
    defer { free(above) }
    for block in blocks { free(block) }
    let beforeTrim = try residentBytes()
    HeapTrim.returnFreePages()
    let afterTrim = try residentBytes()
    #expect(beforeTrim - afterTrim > 16 * 1024 * 1024, "resident \(beforeTrim) before the trim, \(afterTrim) after")
  }

  /// Resident bytes of this process: /proc/self/statm's second field, in pages.
  func residentBytes() throws -> Int {
    let descriptor = open("/proc/self/statm", O_RDONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    var bytes = [UInt8](repeating: 0, count: 256)
    let count = read(descriptor, &bytes, bytes.count)
    try #require(count > 0)
    let fields = String(decoding: bytes[..<count], as: UTF8.self).split(separator: " ")
    let pages = try #require(fields.count > 1 ? Int(fields[1]) : nil)
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}
