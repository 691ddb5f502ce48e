import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Journal stream detection")
struct JournalTests {
  /// An open temporary file and its "device:inode", as systemd would put it in
  /// `$JOURNAL_STREAM`.
  struct OpenFile: ~Copyable {
    let fileDescriptor: Int32
    let device: UInt64
    let inode: UInt64

    init() throws {
      var template = Array("/tmp/gestured-journal-XXXXXX".utf8CString)
      fileDescriptor = template.withUnsafeMutableBufferPointer { buffer in
        guard let base = buffer.baseAddress else { return -1 }
        let descriptor = mkstemp(base)
        // Only the open descriptor matters; the name can go at once.
        if descriptor >= 0 { unlink(base) }
        return descriptor
      }
      try #require(fileDescriptor >= 0, "mkstemp: errno \(errno)")
      var status = stat()
      try #require(fstat(fileDescriptor, &status) == 0)
      device = UInt64(status.st_dev)
      inode = UInt64(status.st_ino)
    }

    deinit { close(fileDescriptor) }

    var journalStream: String { "\(device):\(inode)" }
  }

  @Test func matchingDeviceAndInodeIsTheJournal() throws {
    let file = try OpenFile()
    #expect(JournalStream.matches(file.journalStream, fileDescriptor: file.fileDescriptor))
  }

  @Test func anotherInodeOrDeviceIsNot() throws {
    let file = try OpenFile()
    #expect(
      !JournalStream.matches(
        "\(file.device):\(file.inode &+ 1)", fileDescriptor: file.fileDescriptor))
    #expect(
      !JournalStream.matches(
        "\(file.device &+ 1):\(file.inode)", fileDescriptor: file.fileDescriptor))
    // The variable names this file, but the descriptor is another one (a different inode).
    let other = try OpenFile()
    #expect(!JournalStream.matches(file.journalStream, fileDescriptor: other.fileDescriptor))
  }

  @Test(arguments: [
    "", ":", "12", "12:", ":34", "12:34:56", "a:b", "-1:5", "12 :34", "1:99999999999999999999999",
  ])
  func malformedValuesAreNotTheJournal(value: String) throws {
    let file = try OpenFile()
    #expect(!JournalStream.matches(value, fileDescriptor: file.fileDescriptor))
  }

  @Test func unsetOrBadDescriptorIsNotTheJournal() throws {
    let file = try OpenFile()
    #expect(!JournalStream.matches(nil, fileDescriptor: file.fileDescriptor))
    #expect(!JournalStream.matches(file.journalStream, fileDescriptor: -1))
  }

  @Test func stderrIsCheckedAgainstTheEnvironment() throws {
    var status = stat()
    try #require(fstat(2, &status) == 0, "this test needs an open stderr")
    let stderrStream = "\(UInt64(status.st_dev)):\(UInt64(status.st_ino))"
    #expect(JournalStream.stderrIsJournal(environment: ["JOURNAL_STREAM": stderrStream]))
    #expect(
      !JournalStream.stderrIsJournal(environment: [
        "JOURNAL_STREAM": "\(UInt64(status.st_dev)):\(UInt64(status.st_ino) &+ 1)"
      ]))
    #expect(!JournalStream.stderrIsJournal(environment: [:]))
  }

  @Test func theLoggerPrefixesOnlyWhenToldTheStreamIsTheJournal() throws {
    let file = try OpenFile()
    for isJournal in [
      JournalStream.matches(file.journalStream, fileDescriptor: file.fileDescriptor),
      JournalStream.matches("0:0", fileDescriptor: file.fileDescriptor),
    ] {
      let output = CapturedOutput()
      Logger(sink: output, journalPrefixes: isJournal).warning("panel gone")
      #expect(output.text == (isJournal ? "<4>panel gone\n" : "panel gone\n"))
    }
  }
}
