import Glibc
import Testing

@testable import GesturedSystem

/// The daemon's log never waits for its reader: lines a full stream cannot take are dropped,
/// counted, and reported once it takes lines again.
@Suite("Non-blocking log")
struct NonBlockingLogTests {
  /// Everything readable on `descriptor` now (it is non-blocking).
  func readAll(_ descriptor: Int32) -> String {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      guard count > 0 else { break }
      bytes += buffer[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  /// Logs into `writeEnd` until it is full and beyond, then drains `readEnd` and logs once
  /// more: every line is either read or counted in the report, which comes first.
  func expectDropsCountedAndReported(readEnd: Int32, writeEnd: Int32, journalPrefixes: Bool) throws {
    #expect(fcntl(readEnd, F_SETFL, O_NONBLOCK) == 0)
    let sink = try #require(NonBlockingLogSink(fileDescriptor: writeEnd))
    let logger = Logger(sink: sink, journalPrefixes: journalPrefixes)
    let line = String(repeating: "x", count: 100)
    let written = 5000  // about 500 KB: more than any pipe or socket buffer holds
    for index in 0..<written { logger.info("line \(index) \(line)") }
    // Nobody read: the writes did not wait (this test would hang), and the rest was counted.
    #expect(logger.droppedLines > 0)
    let dropped = logger.droppedLines
    var received = readAll(readEnd).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    // A stream socket may have taken part of a line: that line counts as dropped.
    let whole = received.filter { $0.hasSuffix(line) }.count
    #expect(whole + dropped == written)
    logger.notice("after")
    #expect(logger.droppedLines == 0)
    received = readAll(readEnd).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
    let warning = journalPrefixes ? "<4>" : ""
    let notice = journalPrefixes ? "<5>" : ""
    let report = "\(warning)gestured: \(dropped) log lines dropped: the log could not take them at once"
    #expect(Array(received.suffix(2)) == [Substring(report), Substring("\(notice)after")])
  }

  @Test func aPipeNobodyReadsDropsAndCountsLinesAndTheCountIsReportedLater() throws {
    var ends: [Int32] = [-1, -1]
    #expect(pipe(&ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    try expectDropsCountedAndReported(readEnd: ends[0], writeEnd: ends[1], journalPrefixes: false)
    // The descriptor given keeps its flags: the sink writes through an open file of its own.
    #expect(fcntl(ends[1], F_GETFL) & O_NONBLOCK == 0)
  }

  @Test func aJournalStreamSocketNobodyReadsDropsAndCountsLines() throws {
    var ends: [Int32] = [-1, -1]
    #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
    defer {
      close(ends[0])
      close(ends[1])
    }
    try expectDropsCountedAndReported(readEnd: ends[0], writeEnd: ends[1], journalPrefixes: true)
    #expect(fcntl(ends[1], F_GETFL) & O_NONBLOCK == 0)
  }
}
