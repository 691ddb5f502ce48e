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

  /// In a child process, which has one thread: the test runner's other threads would map
  /// their code back meanwhile (and other tests unmap it too).
  @Test func theExecutablesPagesLeaveTheResidentSetUntilUsed() throws {
    let code = try #require(executableCode(), "no executable code mapping in /proc/self/maps")
    let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
    let pages = Int((code.upperBound - code.lowerBound + 1) / page)
    let descriptor = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)
    try #require(descriptor >= 0)
    defer { close(descriptor) }
    let entries = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: pages)
    defer { entries.deallocate() }
    // Only C calls and a loop in the child: no allocation after fork.
    func mapped() -> Int {
      let wanted = pages * 8
      guard pread(descriptor, entries.baseAddress, wanted, off_t(code.lowerBound / page * 8)) == wanted else {
        return -1
      }
      var count = 0
      for entry in entries where entry & (1 << 63) != 0 { count += 1 }
      return count
    }
    let child = fork()
    if child == 0 {
      let before = mapped()
      let unmapped = gestured_unmap_executable_image()
      let after = mapped()
      // Its own few steps since map back what they run (a whole folio at a fault on kernels
      // with large folios for files, so the drop itself is measured in the VM: make bench-vm's
      // RSS row), never more than was mapped.
      _exit(unmapped > 1 << 20 && after >= 0 && after <= before ? 0 : 1)
    }
    try #require(child > 0)
    var status: Int32 = 0
    try #require(waitpid(child, &status, 0) == child)
    #expect(status == 0, "the child found no code to unmap, or mapped more of it (wait status \(status))")
  }

  /// The address range of this executable's code: the first executable mapping of
  /// /proc/self/exe's file in /proc/self/maps.
  func executableCode() -> ClosedRange<UInt>? {
    var path = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &path, path.count - 1)
    guard length > 0 else { return nil }
    let name = String(decoding: path[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let maps = try? InputFile.read(path: "/proc/self/maps", maximumSize: 1 << 22) else { return nil }
    for line in String(decoding: maps, as: UTF8.self).split(separator: "\n") {
      let fields = line.split(separator: " ", omittingEmptySubsequences: true)
      guard fields.count >= 6, fields[1].hasPrefix("r-x"), fields[5] == name else { continue }
      let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
      guard bounds.count == 2, bounds[1] > bounds[0] else { continue }
      return bounds[0]...(bounds[1] - 1)
    }
    return nil
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
