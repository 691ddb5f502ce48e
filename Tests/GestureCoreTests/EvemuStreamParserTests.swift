import GestureCore
import Testing

/// The streaming parser (what `gestured replay` reads files with) against the whole-file
/// one: any piece size gives the same description, events and numbered errors.
@Suite("EvemuStreamParser")
struct EvemuStreamParserTests {
  static let recording = """
    \u{FEFF}# EVEMU 1.3
    N: Stream Panel
    I: 0003 222a 0001 0110
    P: 02 00 00 00 00 00 00 00
    B: 03 03 00 00 00 00 00 00 00
    A: 00 0 1919 0 0 10
    A: 01 0 1079 0 0 10
    E: 0.000000 0003 0000 0100\t# EV_ABS / ABS_X 100
    E: 0.000000 0003 0001 0200
    E: 0.000000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms

    E: 0.010000 0003 0000 0110
    E: 0.010000 0000 0000 0000
    """

  /// `text` fed in pieces of `size` bytes.
  static func stream(_ text: String, pieces size: Int) throws(RecordingError) -> Recording {
    let bytes = Array(text.utf8)
    var parser = EvemuStreamParser(file: "stream.evemu")
    var events: [RawEvent] = []
    var start = 0
    while start < bytes.count {
      let end = min(start + size, bytes.count)
      let piece = Array(bytes[start..<end])
      try piece.withUnsafeBufferPointer { (buffer) throws(RecordingError) in
        try parser.feed(buffer) { events += $0 }
      }
      start = end
    }
    let device = try parser.finish { events += $0 }
    return Recording(device: device, events: events)
  }

  @Test("every piece size reads like the whole file", arguments: [1, 2, 3, 5, 17, 64, 4096])
  func piecesReadLikeTheWholeFile(size: Int) throws {
    let whole = try EvemuParser.parse(Self.recording, file: "stream.evemu")
    let streamed = try Self.stream(Self.recording, pieces: size)
    #expect(streamed.device == whole.device)
    #expect(streamed.device?.name == "Stream Panel")
    #expect(streamed.events == whole.events)
    #expect(streamed.events.count == 5)
  }

  @Test("a bad line is named by its number whatever the pieces", arguments: [1, 4, 9, 4096])
  func errorsKeepTheirLineNumbers(size: Int) {
    let bad = Self.recording + "\nE: 0.020000 0003 0000 01x0\n"
    let expected = #expect(throws: RecordingError.self) {
      try EvemuParser.parse(bad, file: "stream.evemu")
    }
    let streamed = #expect(throws: RecordingError.self) { try Self.stream(bad, pieces: size) }
    #expect(expected?.line == 14)
    #expect(streamed == expected)
  }

  @Test func aLineWithoutEndIsRefusedAtTheLimit() {
    let endless = String(repeating: "#", count: EvemuStreamParser.maximumLineLength + 10)
    let error = #expect(throws: RecordingError.self) { try Self.stream(endless, pieces: 1 << 16) }
    #expect(error?.line == 1)
    #expect(error?.message.hasPrefix("line longer than") == true)
  }
}
