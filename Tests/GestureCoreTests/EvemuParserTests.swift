import GestureCore
import Testing

private func parse(_ text: String) throws(RecordingError) -> Recording {
  try EvemuParser.parse(text, file: "test.evemu")
}

/// The error a text fails with, or nil when it parses.
private func failure(_ text: String) -> RecordingError? {
  do {
    _ = try parse(text)
    return nil
  } catch {
    return error
  }
}

/// 12 `B: 01` lines (KEY_MAX 0x2ff → 96 bytes) with the given key codes set.
private func keyMaskLines(_ codes: [Int]) -> String {
  var bytes = [UInt8](repeating: 0, count: 96)
  for code in codes { bytes[code / 8] |= UInt8(1 << (code % 8)) }
  return stride(from: 0, to: 96, by: 8).map { start in
    "B: 01 " + bytes[start..<start + 8].map { hexByte($0) }.joined(separator: " ")
  }.joined(separator: "\n")
}

private func hexByte(_ byte: UInt8) -> String {
  let digits = String(byte, radix: 16)
  return digits.count == 1 ? "0" + digits : digits
}

/// A protocol-B touchscreen as evemu-describe 1.3 writes it (20 lines).
private let touchscreen = """
  # EVEMU 1.3
  # Input device name: "Test Panel"
  N: Test Panel
  I: 0003 222a 0001 0110
  P: 02 00 00 00 00 00 00 00
  B: 00 0b 00 00 00 00 00 00 00
  \(keyMaskLines([Int(KeyCode.btnTouch)]))
  B: 03 03 00 00 00 00 80 60 02
  A: 00 0 1919 0 0 10
  A: 01 0 1079 0 0 10
  A: 2f 0 9 0 0 0
  A: 35 0 1919 0 0 10
  A: 36 0 1079 0 0 10
  A: 39 0 65535 0 0 0

  """
private let touchscreenLineCount = 25

@Suite("EvemuParser")
struct EvemuParserTests {
  // MARK: Description

  @Test func readsTheDescription() throws {
    let recording = try parse(touchscreen)
    let device = try #require(recording.device)
    #expect(device.name == "Test Panel")
    #expect(device.bus == 0x0003)
    #expect(device.vendor == 0x222a)
    #expect(device.product == 0x0001)
    #expect(device.version == 0x0110)
    #expect(device.properties == [InputProperty.direct])
    #expect(device.keys == [KeyCode.btnTouch])
    #expect(device.axes.keys.sorted() == [0x00, 0x01, 0x2f, 0x35, 0x36, 0x39])
    #expect(device.axes[AbsCode.mtPositionX] == AxisInfo(minimum: 0, maximum: 1919, resolution: 10))
    #expect(device.touchProtocol == .multitouchB(slots: 10))
    #expect(recording.events.isEmpty)
  }

  @Test func nameIsTheRestOfTheLineTrimmedWithHashAndUTF8Kept() throws {
    let text =
      "N:  \tAdvanced Silicon S.A. CoolTouch® System # rev 2 \t\r\nI: 0003 2575 0204 0111\n"
    let device = try #require(try parse(text).device)
    #expect(device.name == "Advanced Silicon S.A. CoolTouch® System # rev 2")
    #expect(device.vendor == 0x2575)
  }

  @Test func headerlessDescriptionWithoutMasks() throws {
    // Format 1.0 has no header; a description may stop after I: (evemu accepts that too).
    let device = try #require(try parse("N: Bare\nI: 0018 0000 0000 0000\n").device)
    #expect(device.bus == 0x18)
    #expect(device.keys.isEmpty && device.axes.isEmpty && device.properties.isEmpty)
  }

  @Test func keyMaskContinuesOverTwelveLines() throws {
    // BTN_LEFT 0x110 is on the 5th B: 01 line, BTN_TOUCH 0x14a on the 6th, KEY_MAX on the 12th.
    let text =
      "N: Keys\nI: 0003 0001 0002 0003\n"
      + keyMaskLines([0x01, Int(KeyCode.btnLeft), Int(KeyCode.btnTouch), 0x2ff]) + "\n"
    let device = try #require(try parse(text).device)
    #expect(device.keys == [0x01, KeyCode.btnLeft, KeyCode.btnTouch, 0x2ff])
  }

  @Test func maskLinesOfOneTypeContinueEvenWhenNotAdjacent() throws {
    let text = """
      N: Split
      I: 0003 0001 0002 0003
      B: 01 01 00 00 00 00 00 00 00
      B: 00 0b 00 00 00 00 00 00 00
      B: 01 01 00 00 00 00 00 00 80
      """
    let device = try #require(try parse(text).device)
    #expect(device.keys == [0, 64, 127])
  }

  @Test func propertyLinesContinueTheBitmask() throws {
    let ok =
      "N: P\nI: 0003 0001 0002 0003\nP: 03 00 00 00 00 00 00 00\nP: 00 00 00 00 00 00 00 00\n"
    #expect(try parse(ok).device?.properties == [InputProperty.pointer, InputProperty.direct])
    // The second line starts at bit 64, above INPUT_PROP_MAX: the offset was counted.
    let error = failure(
      "N: P\nI: 0003 0001 0002 0003\nP: 02 00 00 00 00 00 00 00\nP: 01 00 00 00 00 00 00 00\n")
    #expect(error?.line == 4)
    #expect(error?.message.contains("property bit 0x40") == true)
  }

  @Test func axisWithFourNumbersHasNoResolution() throws {
    let text = """
      N: Old
      I: 0003 1b96 0001 0110
      A: 00 0 9600 75 0
      A: 34 -3 4 0 1 7
      """
    let device = try #require(try parse(text).device)
    #expect(
      device.axes[AbsCode.x]
        == AxisInfo(minimum: 0, maximum: 9600, fuzz: 75, flat: 0, resolution: 0))
    #expect(device.axes[0x34] == AxisInfo(minimum: -3, maximum: 4, fuzz: 0, flat: 1, resolution: 7))
  }

  @Test func ledAndSwitchLinesAreAccepted() throws {
    let text = touchscreen + "L: 00 1\nS: 05 0 # lid\n"
    #expect(try parse(text).device?.name == "Test Panel")
  }

  @Test func protocolAAndSingleTouchDescriptions() throws {
    let protocolA = """
      N: A
      I: 0003 1b96 0001 0110
      B: 03 03 00 00 00 00 00 60 00
      A: 00 0 9600 0 0
      A: 01 0 7200 0 0
      A: 35 0 9600 0 0
      A: 36 0 7200 0 0
      """
    #expect(try parse(protocolA).device?.touchProtocol == .multitouchA)
    let elo =
      "N: Elo\nI: 0003 04e7 0020 0100\n" + keyMaskLines([Int(KeyCode.btnLeft)])
      + "\nB: 03 03 00 00 00 00 00 00 00\nA: 00 0 4095 0 0\nA: 01 0 4095 0 0\n"
    #expect(try parse(elo).device?.touchProtocol == .singleTouch(button: KeyCode.btnLeft))
  }

  // MARK: Events

  @Test func absoluteTimesAreMicrosecondExact() throws {
    let text = """
      E: 1284881103.697884 0003 0035 7411
      E: 1284881103.697884 0000 0000 0000
      E: 1284881103.700001 0001 014a 0
      """
    let events = try parse(text).events
    #expect(
      events == [
        RawEvent(
          time: Timestamp(microseconds: 1_284_881_103_697_884), type: 3, code: 0x35, value: 7411),
        RawEvent(time: Timestamp(microseconds: 1_284_881_103_697_884), type: 0, code: 0, value: 0),
        RawEvent(
          time: Timestamp(microseconds: 1_284_881_103_700_001), type: 1, code: 0x14a, value: 0),
      ])
  }

  @Test func relativeTimesAndPaddedSignedValues() throws {
    let text = """
      E: 0.000001 0003 0039 0000
      E: 0.000001 0003 0039 -001
      E: 13.865196 0003 0035 +12
      E: 14.5 0003 0036 -2147483648
      E: 15.000000 0003 0036 2147483647
      """
    let events = try parse(text).events
    #expect(events.map(\.time.microseconds) == [1, 1, 13_865_196, 14_000_005, 15_000_000])
    #expect(events.map(\.value) == [0, -1, 12, Int32.min, Int32.max])
    #expect(try parse(text).device == nil)
  }

  @Test func trailingCommentsTabsAndBlankLines() throws {
    let text = """
      ################################
      #      Waiting for events      #
      ################################

      E: 0.000001 0003 0039 0000\t# EV_ABS / ABS_MT_TRACKING_ID   0
      \tE:\t0.000002\t0003\t0035\t0307#no blank before the comment
      E: 0.000003 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms
      """
    let events = try parse(text).events
    #expect(events.map(\.code) == [0x39, 0x35, 0])
    #expect(events[1].value == 307)
  }

  @Test func crlfFileReadsLikeLF() throws {
    let lf = touchscreen + "E: 0.000001 0003 0039 0005\t# comment\nE: 0.000010 0000 0000 0000\n"
    let crlf = lf.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\r\n")
    let a = try parse(lf)
    let b = try parse(crlf)
    #expect(a.device == b.device)
    #expect(a.events == b.events)
    #expect(b.events.count == 2)
    // Line numbers count CRLF lines the same way.
    #expect(failure("# x\r\n\r\nQ: 1\r\n")?.line == 3)
  }

  @Test func lineNumbersStayExactOverLinesOfEveryLength() throws {
    // The line splitter reads eight bytes at a time: put the \n at every offset.
    var text = ""
    for length in 0..<24 {
      text += "E: 0.000001 0003 0035 \(length)"
      text += length == 0 ? "\n" : " #" + String(repeating: "x", count: length) + "\n"
    }
    let events = try parse(text).events
    #expect(events.map(\.value) == (0..<24).map { Int32($0) })
    for tail in ["", "\n", "   ", "#12345678"] {
      #expect(failure(text + "Z: bad" + tail)?.line == 25)
    }
  }

  @Test func largeFileKeepsEveryEvent() throws {
    var text = "# EVEMU 1.3\n"
    for index in 0..<50_000 {
      let seconds = index / 1000
      let micro = String(index % 1000 * 1000)
      text +=
        "E: \(seconds).\(String(repeating: "0", count: 6 - micro.count))\(micro) 0003 0035 \(index)"
      text += "\t# EV_ABS / ABS_MT_POSITION_X    \(index)\n"
    }
    let events = try parse(text).events
    #expect(events.count == 50_000)
    #expect(events.last?.time == Timestamp(seconds: 49, microseconds: 999_000))
    #expect(events.last?.value == 49_999)
  }

  @Test func descriptionFollowedByEvents() throws {
    let recording = try parse(
      touchscreen + "E: 0.000001 0003 0039 0005\nE: 0.000001 0000 0000 0000\n")
    #expect(recording.device?.name == "Test Panel")
    #expect(recording.events.count == 2)
  }

  @Test func emptyFileAndByteOrderMark() throws {
    let empty = try parse("")
    #expect(empty.device == nil && empty.events.isEmpty)
    let withMark = try EvemuParser.parse(
      [0xEF, 0xBB, 0xBF] + Array("N: M\nI: 1 2 3 4\n".utf8), file: "m")
    #expect(withMark.device?.name == "M")
  }

  @Test func errorDescriptionNamesFileAndLine() {
    let error = failure("# EVEMU 1.3\n\nE: 1.000000 0003 0000 1 extra\n")
    #expect(error?.description.hasPrefix("test.evemu:3: ") == true)
    #expect(error?.file == "test.evemu")
  }

  // MARK: Bad lines

  struct Bad: CustomTestStringConvertible, Sendable {
    let text: String
    let line: Int
    /// A part of the message that says what is wrong.
    let says: String
    var testDescription: String { says }
  }

  static let badLines: [Bad] = [
    Bad(text: "# c\nX: 1 2\n", line: 2, says: "unknown line kind 'X:'"),
    Bad(text: "\n\nhello world\n", line: 3, says: "unexpected line starting 'hello world'"),
    Bad(text: "e: 0.000001 0000 0000 0\n", line: 1, says: "unknown line kind 'e:'"),
    // E: lines
    Bad(
      text: "E: 0.000001 0000 0000 0\nE: 12 0003 0000 1\n", line: 2, says: "SECONDS.MICROSECONDS"),
    Bad(text: "E: 1.2.3 0003 0000 1\n", line: 1, says: "found '1.2.3'"),
    Bad(text: "E: -1.000000 0003 0000 1\n", line: 1, says: "SECONDS.MICROSECONDS"),
    Bad(
      text: "E: 1.1000000 0003 0000 1\n", line: 1, says: "microseconds '1000000' must be 0...999999"
    ),
    Bad(text: "E: 99999999999999.000000 0003 0000 1\n", line: 1, says: "too large"),
    Bad(text: "E: 0.000001 0020 0000 1\n", line: 1, says: "event type '0020' is above EV_MAX"),
    Bad(text: "E: 0.000001 00g3 0000 1\n", line: 1, says: "expected the event type (hex"),
    Bad(text: "E: 0.000001 0001 0300 1\n", line: 1, says: "event code '0300' is above"),
    Bad(
      text: "E: 0.000001 0003\n", line: 1,
      says: "expected the event code (hex, e.g. 0035), found the end of the line"),
    Bad(text: "E: 0.000001 0003 0000\n", line: 1, says: "expected the event value"),
    Bad(text: "E: 0.000001 0003 0000 1x\n", line: 1, says: "found '1x'"),
    Bad(
      text: "E: 0.000001 0003 0000 2147483648\n", line: 1, says: "does not fit in a signed 32-bit"),
    Bad(
      text: "E: 0.000001 0003 0000 -2147483649\n", line: 1, says: "does not fit in a signed 32-bit"),
    Bad(text: "E: 0.000001 0003 0000 1 2\n", line: 1, says: "unexpected '2' after the event value"),
    Bad(
      text: "E: 2.000000 0003 0000 1\n# c\nE: 1.999999 0003 0000 1\n", line: 3,
      says: "time goes backwards: 1.999999 is before 2.000000 on line 1"),
    // Description lines
    Bad(
      text: "E: 0.000001 0003 0000 1\nN: late\n", line: 2,
      says: "N: line after the first event (line 1)"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nE: 0.000001 0 0 0\nA: 00 0 1 0 0\n", line: 4,
      says: "A: line after the first event"),
    Bad(text: "N: a\nN: b\n", line: 2, says: "second N: line (the first is on line 1)"),
    Bad(text: "N:   \t\n", line: 1, says: "without a device name"),
    Bad(text: "I: 0003 0001 0002 0003\n", line: 1, says: "I: line before the N: line"),
    Bad(text: "N: a\nI: 1 2 3 4\nI: 1 2 3 4\n", line: 3, says: "second I: line"),
    Bad(text: "N: a\nI: 0003 0001 0002\n", line: 2, says: "expected the version (hex"),
    Bad(text: "N: a\nI: 0003 10000 0002 0003\n", line: 2, says: "vendor '10000' is above 0xffff"),
    Bad(text: "N: a\nI: 1 2 3 4 5\n", line: 2, says: "unexpected '5'"),
    Bad(text: "N: a\nP: 00 00 00 00 00 00 00 00\n", line: 2, says: "P: line before the I: line"),
    Bad(text: "N: a\n# c\nE: 0.000001 0 0 0\n", line: 3, says: "has no I: line"),
    Bad(text: "N: a\n\n", line: 2, says: "has no I: line"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nP: 00 00 00 00 00 00 00\n", line: 3,
      says: "P: line has 7 mask bytes; expected 8"),
    Bad(text: "N: a\nI: 1 2 3 4\nP: 00 00 00 00 00 00 00 100\n", line: 3, says: "found '100'"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nP: 00 00 00 00 00 00 00 00 00\n", line: 3, says: "after 8 mask bytes"
    ),
    Bad(text: "N: a\nI: 1 2 3 4\nP: 00 00 00 00 01 00 00 00\n", line: 3, says: "property bit 0x20"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nB: 20 00 00 00 00 00 00 00 00\n", line: 3,
      says: "event type '20' is above EV_MAX"),
    Bad(text: "N: a\nI: 1 2 3 4\nB: 01 00 00\n", line: 3, says: "B: line has 2 mask bytes"),
    Bad(
      text: "N: a\nI: 1 2 3 4\n" + keyMaskLines([]) + "\nB: 01 01 00 00 00 00 00 00 00\n", line: 15,
      says: "code 0x300 of event type 0x01 is above 0x2ff; too many B: 01 lines"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nB: 03 00 00 00 00 00 00 00 00\nB: 03 01 00 00 00 00 00 00 00\n",
      line: 4, says: "code 0x40"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nB: 01 00 00 00 00 00 00 00 00\nP: 00 00 00 00 00 00 00 00\n",
      line: 4, says: "P: line after B: lines"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nA: 00 0 1 0 0\nB: 03 01 00 00 00 00 00 00 00\n", line: 4,
      says: "B: line after A: lines"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nA: 00 0 1 0\n", line: 3,
      says: "A: line has 3 numbers after the code; expected 4 or 5"),
    Bad(text: "N: a\nI: 1 2 3 4\nA: 00 0 1 0 0 0 0\n", line: 3, says: "more than 5 numbers"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nA: 00 0 x 0 0\n", line: 3,
      says: "expected the max (decimal), found 'x'"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nA: 40 0 1 0 0\n", line: 3, says: "axis code '40' is above ABS_MAX"),
    Bad(text: "N: a\nI: 1 2 3 4\nA: 00 10 5 0 0\n", line: 3, says: "min 10 is greater than max 5"),
    Bad(text: "N: a\nI: 1 2 3 4\nA: 00 0 5 0 0 -1\n", line: 3, says: "resolution -1 is negative"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nA: 00 0 5 0 0\nA: 00 0 6 0 0\n", line: 4,
      says: "second A: line for axis 0x00 (the first is on line 3)"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nB: 03 01 00 00 00 00 00 00 00\nA: 00 0 5 0 0\nA: 01 0 5 0 0\n",
      line: 5,
      says: "A: line for axis 0x01, but its bit is not set in the B: 03 mask"),
    Bad(
      text: "N: a\nI: 1 2 3 4\nB: 03 03 00 00 00 00 00 00 00\nA: 00 0 5 0 0\n# end\n", line: 3,
      says: "axis 0x01 is set in this B: 03 mask but no A: line"),
    Bad(text: "N: a\nI: 1 2 3 4\nL: 00\n", line: 3, says: "expected the state"),
    Bad(
      text: touchscreen + "X: 1\n", line: touchscreenLineCount + 1, says: "unknown line kind 'X:'"),
  ]

  @Test(arguments: badLines)
  func badLineNamesItsLine(_ bad: Bad) throws {
    let error = try #require(failure(bad.text), "expected an error")
    #expect(error.line == bad.line, "\(error)")
    #expect(error.message.contains(bad.says), "\(error)")
  }

  @Test func invalidUTF8NameIsAnError() {
    let bytes = Array("# c\nN: bad ".utf8) + [0xC3, 0x28] + Array("\nI: 1 2 3 4\n".utf8)
    #expect(
      throws: RecordingError(file: "b", line: 2, message: "the device name is not valid UTF-8")
    ) {
      try EvemuParser.parse(bytes, file: "b")
    }
  }

  @Test func binaryGarbageIsAnErrorWithPrintableMessage() throws {
    let bytes: [UInt8] = [0x00, 0x01, 0x3A, 0xFF, 0x0A]
    do {
      _ = try EvemuParser.parse(bytes, file: "g")
      Issue.record("garbage parsed")
    } catch {
      #expect(error.line == 1)
      #expect(!error.message.unicodeScalars.contains { $0.value < 0x20 })
    }
  }

  /// Random damage to a valid file must end in a recording or a RecordingError, never a trap.
  @Test func mutatedFilesNeverTrap() {
    let original = Array(
      (touchscreen + "E: 0.000001 0003 0039 0005\t# c\nE: 0.000002 0000 0000 0000\n").utf8)
    let alphabet =
      Array("0123456789abcdefABCDEF:#.-+ \t\r\nEINPBALSx\u{7f}".utf8) + [0x00, 0xC3, 0xFF]
    var random = SplitMix64(seed: 0x5eed)
    var failures = 0
    for _ in 0..<3000 {
      var bytes = original
      for _ in 0...(random.next() % 4) {
        let index = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 3 {
        case 0: bytes[index] = alphabet[Int(random.next() % UInt64(alphabet.count))]
        case 1: bytes.remove(at: index)
        default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
        }
      }
      do {
        _ = try EvemuParser.parse(bytes, file: "m")
      } catch {
        failures += 1
        #expect(error.line >= 1 && error.line <= bytes.count + 1)
      }
    }
    // Most damage is caught; some (a digit in a value, a blank) is still a valid file.
    #expect(failures > 1000)
  }

  /// Lines in evemu-record's exact layout are read by a fast path; a second blank after
  /// `E:` sends the same line through the field scanners. Damaged or not, both must give the
  /// same events, or the same error on the same line: at the end of the file, before more
  /// lines (the fast path reads whole words, so it needs the bytes after the line), and
  /// after the undamaged line (the fast path reuses the time of a line that starts with the
  /// same bytes).
  @Test func theRecordedLayoutReadsLikeTheFieldScannersDo() {
    let lines = [
      "E: 0.000001 0003 0039 0005\t# EV_ABS / ABS_MT_TRACKING_ID   5",
      "E: 12.345678 0003 0035 -001", "E: 999999999999.999999 001f 02ff 2147483647\t#",
      "E: 1.000000 0001 014A -2147483648 # x", "E: 3.000002 0000 0000 0000\r",
      "E: 98765.432100 0003 0036 1234567 #", "E: 1700000000.000250 0003 002f -12345678\t# absolute",
      "E: 123456.000001 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +16ms",
    ]
    let alphabet = Array("0123456789abcdefABCDEF:#.-+ \t\r\nEx\u{7f}".utf8) + [0x00, 0xFF, 0x10, 0x47, 0x67]
    var random = SplitMix64(seed: 0x5eed)
    func parsed(_ body: [UInt8]) -> Result<[RawEvent], RecordingError> {
      do {
        // Events only: no description to read again for every line.
        return .success(try EvemuParser.parse(body, file: "r").events)
      } catch {
        return .failure(error)
      }
    }
    let earlier = Array("E: 0.000000 0000 0000 0000\n".utf8)
    let more = Array("\n# more lines after this one, long enough for the words the fast path reads\n".utf8)
    var agreed = 0
    for round in 0..<4000 {
      let line = Array(lines[round % lines.count].utf8)
      var bytes = line
      for _ in 0..<(round < lines.count ? 0 : 1 + random.next() % 3) {
        let index = 3 + Int(random.next() % UInt64(bytes.count - 3))
        switch random.next() % 3 {
        case 0: bytes[index] = alphabet[Int(random.next() % UInt64(alphabet.count))]
        case 1: bytes.remove(at: index)
        default: bytes.insert(alphabet[Int(random.next() % UInt64(alphabet.count))], at: index)
        }
      }
      for before in [earlier, earlier + line + [0x0A]] {
        for ending in [[], [0x0A], more] as [[UInt8]] {
          let fast = parsed(before + bytes + ending)
          let scanned = parsed(before + Array(bytes[..<2]) + [0x20] + Array(bytes[2...]) + ending)
          switch (fast, scanned) {
          case (.success(let a), .success(let b)):
            #expect(a == b, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            agreed += 1
          case (.failure(let a), .failure(let b)):
            // Quoted tokens may differ by the blank; the line and the kind of error may not.
            #expect(a.line == b.line, "\(String(decoding: bytes, as: UTF8.self).debugDescription)")
            #expect(
              a.message.prefix(12) == b.message.prefix(12), "\(String(decoding: bytes, as: UTF8.self).debugDescription)"
            )
          default:
            Issue.record(
              "fast path and scanners disagree on \(String(decoding: bytes, as: UTF8.self).debugDescription)")
          }
        }
      }
    }
    #expect(agreed > 6000)
  }
}

// MARK: - Real recordings

/// Facts about the real recordings, taken from `shared/fixtures/real/SOURCES.md`
/// (frames = number of SYN_REPORT events).
struct EvemuRealFile: CustomTestStringConvertible, Sendable {
  let path: String
  /// nil for events-only files.
  let device: String?
  let events: Int
  let frames: Int
  var testDescription: String { path }
}

private let realRecordings: [EvemuRealFile] = [
  EvemuRealFile(
    path: "evemu/3m.event", device: "3M-3M-MicroTouch-USB-controller Virtual Device", events: 43466,
    frames: 3422),
  EvemuRealFile(
    path: "evemu/wetab.event", device: "eGalax-Inc.-USB-TouchController Virtual Device",
    events: 170, frames: 42),
  EvemuRealFile(
    path: "evemu/ntrig-dell-xt2.event", device: "N-Trig-MultiTouch-Virtual-Device", events: 146,
    frames: 8),
  EvemuRealFile(path: "evemu/ntrig-xt2-1-tap.event", device: nil, events: 28, frames: 4),
  EvemuRealFile(path: "evemu/ntrig-xt2-2-tap.event", device: nil, events: 88, frames: 8),
  EvemuRealFile(path: "evemu/ntrig-xt2-3-tap.event", device: nil, events: 118, frames: 8),
  EvemuRealFile(path: "evemu/ntrig-xt2-4-tap.event", device: nil, events: 146, frames: 8),
  EvemuRealFile(
    path: "evemu-devices/Atmel_maXTouch_Touchscreen.1-finger-fast-taps.events",
    device: "Atmel maXTouch Touchscreen", events: 84, frames: 18),
  EvemuRealFile(
    path: "evemu-devices/EP0430M09.4-finger-drag-down.events", device: "EP0430M09", events: 1091,
    frames: 104),
  EvemuRealFile(
    path: "evemu-devices/N-Trig_MultiTouch.2-fingers-touch-release.events", device: nil,
    events: 2203, frames: 219),
  EvemuRealFile(
    path: "evemu-devices/QUANTA_OpticalTouchScreen.events", device: nil, events: 2832, frames: 738),
  EvemuRealFile(
    path: "evemu-devices/Wacom_ISDv4_E6_Finger.single-tap-center.events", device: nil, events: 10,
    frames: 2),
  EvemuRealFile(
    path: "evemu-devices/Wacom_ISDv4_E6_Finger.double-tap-center.events", device: nil, events: 20,
    frames: 4),
  EvemuRealFile(
    path: "evemu-devices/Wacom_Cintiq_13HD_touch_Finger.events",
    device: "Wacom Cintiq 13HD touch Finger", events: 33, frames: 5),
  EvemuRealFile(
    path: "evemu-devices/Wacom_Cintiq_22HDT_Finger.events", device: "Wacom Cintiq 22HDT Finger",
    events: 0, frames: 0),
  EvemuRealFile(
    path: "evemu-devices/Wacom_DTH2242_Finger.events", device: "Wacom DTH2242 Finger",
    events: 16593, frames: 2025),
  EvemuRealFile(
    path: "evemu-devices/dell_canvas_touch.evemu",
    device: "Advanced Silicon S.A. CoolTouch® System", events: 5363, frames: 450),
  EvemuRealFile(
    path: "evemu-devices/eGalax_Inc._USB_TouchController.events", device: nil, events: 1200,
    frames: 405),
  EvemuRealFile(path: "xorg-integration-tests/n4.events", device: nil, events: 4953, frames: 577),
  EvemuRealFile(
    path: "tslib/Atmel_maXTouch_Touchscreen.ts-verify-1.events",
    device: "Atmel maXTouch Touchscreen", events: 5941, frames: 1289),
]

/// Events-only files and the description they were recorded from.
private let realPairs: [(events: String, description: String)] = [
  ("evemu/ntrig-xt2-4-tap.event", "evemu/ntrig-xt2.device"),
  ("evemu/wetab.event", "evemu/wetab.prop"),
  // Not ELAN_CANDO_Windows7: its events also carry ABS 0x1d, which its .desc does not list
  // (see eventsMayCarryCodesTheDescriptionLacks).
  (
    "evemu-devices/N-Trig_MultiTouch.1-finger-drag-NW-SE.events",
    "evemu-devices/N-Trig_MultiTouch.desc"
  ),
  (
    "evemu-devices/QUANTA_OpticalTouchScreen.touch-hover.events",
    "evemu-devices/QUANTA_OpticalTouchScreen.desc"
  ),
  (
    "evemu-devices/Wacom_ISDv4_E6_Finger.double-center-circle.events",
    "evemu-devices/Wacom_ISDv4_E6_Finger.desc"
  ),
  (
    "evemu-devices/eGalax_Inc._USB_TouchController.events",
    "evemu-devices/eGalax_Inc._USB_TouchController.desc"
  ),
  (
    "evemu-devices/eGalax_eMPIA_Technology_Inc._PCAP_MultiTouch_Controller.tap.events",
    "evemu-devices/eGalax_eMPIA_Technology_Inc._PCAP_MultiTouch_Controller.desc"
  ),
  ("xorg-integration-tests/n4.events", "xorg-integration-tests/n4.desc"),
]

private func parseReal(_ path: String) throws -> Recording {
  let bytes = try #require(SharedFixtures.bytes(path), "missing \(path)")
  return try EvemuParser.parse(bytes, file: path)
}

private func count(_ events: [RawEvent], type: UInt16, code: UInt16) -> Int {
  events.reduce(0) { $0 + ($1.type == type && $1.code == code ? 1 : 0) }
}

/// Runs only when `../shared/fixtures/real` is beside the package (CI puts it there); the
/// runner reports these tests as skipped, with this comment, when it is absent.
@Suite(
  "EvemuParser over real recordings",
  .enabled(
    if: SharedFixtures.root != nil, "../shared/fixtures/real is not beside the package"))
struct EvemuParserRealRecordingTests {
  static let folders = ["evemu", "evemu-devices", "xorg-integration-tests", "tslib", "derived"]

  @Test func everyFolderHasFiles() {
    for folder in Self.folders {
      #expect(!SharedFixtures.files(in: [folder]).isEmpty, "\(folder) is empty or missing")
    }
  }

  @Test(arguments: SharedFixtures.files(in: folders))
  func everyFileParses(_ path: String) throws {
    let recording = try parseReal(path)
    #expect(recording.device != nil || !recording.events.isEmpty, "nothing in \(path)")
    if let device = recording.device {
      #expect(!device.name.isEmpty)
      // Every real description is a touchscreen this project can read.
      #expect(device.touchProtocol != nil, "\(path): no touch protocol")
    }
  }

  @Test(arguments: realRecordings)
  func countsMatchSources(_ file: EvemuRealFile) throws {
    let recording = try parseReal(file.path)
    #expect(recording.device?.name == file.device)
    #expect(recording.events.count == file.events)
    #expect(count(recording.events, type: EventType.syn, code: SynCode.report) == file.frames)
  }

  @Test(arguments: realPairs.map { "\($0.events) + \($0.description)" })
  func eventsUseOnlyWhatTheirDescriptionDeclares(_ pair: String) throws {
    let parts = pair.split(separator: " + ").map(String.init)
    let events = try parseReal(parts[0]).events
    let device = try #require(try parseReal(parts[1]).device)
    #expect(!events.isEmpty)
    for event in events {
      switch event.type {
      case EventType.abs: #expect(device.axes[event.code] != nil, "\(parts[0]): ABS \(event.code)")
      case EventType.key:
        #expect(device.keys.contains(event.code), "\(parts[0]): KEY \(event.code)")
      default: break
      }
    }
  }

  /// Real data is not always consistent: the reader keeps such events, and the frame
  /// assembler must ignore codes it does not know.
  @Test func eventsMayCarryCodesTheDescriptionLacks() throws {
    let device = try #require(try parseReal("evemu-devices/ELAN_CANDO_Windows7.desc").device)
    let events = try parseReal("evemu-devices/ELAN_CANDO_Windows7.1-finger-drag-up-down.events")
      .events
    #expect(device.axes.count == 12)
    #expect(device.axes[0x1d] == nil)
    #expect(count(events, type: EventType.abs, code: 0x1d) == 322)
  }

  @Test func ntrigIsProtocolAWithoutDirect() throws {
    for path in [
      "evemu/ntrig-xt2.device", "evemu/ntrig-dell-xt2.prop", "evemu-devices/N-Trig_MultiTouch.desc",
    ] {
      let device = try #require(try parseReal(path).device)
      #expect(device.touchProtocol == .multitouchA, "\(path)")
      #expect(!device.isDirect)
      #expect(device.vendor == 0x1b96 && device.product == 0x0001)
      #expect(device.axes[AbsCode.mtPositionX]?.maximum == 9600)
      #expect(device.keys.contains(KeyCode.btnTouch))
    }
    // The newer dump also declares BTN_TOOL_DOUBLETAP (0x14d): `B: 01 00 24` on the 6th line.
    let newer = try #require(try parseReal("evemu-devices/N-Trig_MultiTouch.desc").device)
    #expect(newer.keys == [KeyCode.btnTouch, 0x14d])
    let tap = try parseReal("evemu/ntrig-dell-xt2.event").events
    #expect(count(tap, type: EventType.syn, code: SynCode.mtReport) == 22)
    #expect(tap.first?.time == Timestamp(seconds: 1_299_660_667, microseconds: 63_211))
  }

  @Test func wacomE6HasTwoSlots() throws {
    let device = try #require(try parseReal("evemu-devices/Wacom_ISDv4_E6_Finger.desc").device)
    #expect(device.touchProtocol == .multitouchB(slots: 2))
    #expect(device.axes[AbsCode.mtPositionX] == AxisInfo(minimum: 0, maximum: 2776))
    #expect(device.axes[AbsCode.mtPositionY] == AxisInfo(minimum: 0, maximum: 1569))
    #expect(device.axes[AbsCode.x]?.fuzz == 4)
    #expect(device.isDirect)
    #expect(device.vendor == 0x056a && device.product == 0x00e6)
  }

  @Test func dellCanvasResolutionAndRelativeTimes() throws {
    let recording = try parseReal("evemu-devices/dell_canvas_touch.evemu")
    let device = try #require(recording.device)
    #expect(device.axes[AbsCode.x]?.resolution == 55)
    #expect(device.axes[AbsCode.y]?.resolution == 98)
    #expect(device.axes[AbsCode.mtPositionX]?.resolution == 55)
    #expect(device.axes[AbsCode.mtPositionY]?.resolution == 98)
    #expect(device.touchProtocol == .multitouchB(slots: 5))
    #expect(recording.events.first?.time.microseconds == 1)
    #expect(recording.events.last?.time.microseconds == 13_865_196)
  }

  @Test func eloUsesBtnLeft() throws {
    for path in ["evemu/lp-884848.prop", "derived/chromium-elo-touchsystems-2700-singletouch.desc"] {
      let device = try #require(try parseReal(path).device)
      #expect(device.keys.contains(KeyCode.btnLeft), "\(path)")
      #expect(!device.keys.contains(KeyCode.btnTouch))
      #expect(device.touchProtocol == .singleTouch(button: KeyCode.btnLeft))
      #expect(device.axes[AbsCode.x] == AxisInfo(minimum: 0, maximum: 4095))
    }
  }

  @Test func unusualDevices() throws {
    let irtouch = try #require(
      try parseReal(
        "evemu-devices/Beijing_IRTOUCHSYSTEMS_Co._LtD_IRTOUCH_InfraRed_USB_TouchScreen.desc"
      ).device)
    #expect(irtouch.keys.isEmpty)
    #expect(irtouch.touchProtocol == .multitouchB(slots: 2))

    let n4 = try #require(try parseReal("xorg-integration-tests/n4.desc").device)
    #expect(n4.keys.isEmpty)
    #expect(n4.axes[AbsCode.x] == nil)
    #expect(n4.touchProtocol == .multitouchB(slots: 10))

    let egalax = try #require(
      try parseReal("evemu-devices/eGalax_Inc._USB_TouchController.desc").device)
    #expect(egalax.touchProtocol == .singleTouch(button: KeyCode.btnTouch))
    #expect(egalax.keys.isSuperset(of: [KeyCode.btnLeft, KeyCode.btnTouch, KeyCode.btnToolPen]))
    #expect(egalax.axes[AbsCode.x] == AxisInfo(minimum: 42, maximum: 1981))

    let threeM = try #require(try parseReal("evemu/3m.prop").device)
    #expect(threeM.touchProtocol == .multitouchB(slots: 60))
    #expect(!threeM.isDirect)
  }

  @Test func absoluteTimesOfOldRecordings() throws {
    let events = try parseReal("evemu/3m.event").events
    #expect(events.first?.time == Timestamp(seconds: 1_284_881_103, microseconds: 697_884))
    #expect(events.last?.time == Timestamp(seconds: 1_284_881_132, microseconds: 796_883))
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time })
  }
}
