/// Cuts an action's output into log lines.
///
/// A line longer than `maximumLineBytes` is cut there (back to the last whole UTF-8
/// character) and the rest of it, up to the next newline, is dropped, so a child writing
/// megabytes without a newline costs the daemon 4 KiB. A trailing CR is removed (CRLF output).
struct OutputLineSplitter {
  static let maximumLineBytes = 4096

  private var line: [UInt8] = []
  /// Inside the dropped rest of a cut line.
  private var discarding = false

  init() { line.reserveCapacity(Self.maximumLineBytes) }

  /// Feeds `bytes`; `emit` gets every finished line and whether it was cut.
  mutating func append(_ bytes: UnsafeRawBufferPointer, emit: (_ line: String, _ cut: Bool) -> Void) {
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        if discarding {
          discarding = false
        } else {
          if line.last == UInt8(ascii: "\r") { line.removeLast() }
          emit(String(decoding: line, as: UTF8.self), false)
        }
        line.removeAll(keepingCapacity: true)
      } else if discarding {
        continue
      } else if line.count == Self.maximumLineBytes {
        emit(String(decoding: line[..<Self.wholeCharacterEnd(of: line)], as: UTF8.self), true)
        line.removeAll(keepingCapacity: true)
        discarding = true
      } else {
        line.append(byte)
      }
    }
  }

  /// Emits a last line that has no newline (at end of file, or when the process exits).
  mutating func finish(emit: (_ line: String, _ cut: Bool) -> Void) {
    if !discarding && !line.isEmpty {
      if line.last == UInt8(ascii: "\r") { line.removeLast() }
      emit(String(decoding: line, as: UTF8.self), false)
    }
    line.removeAll(keepingCapacity: true)
    discarding = false
  }

  /// Where `bytes` ends without a UTF-8 character split in two: a cut mid-character would
  /// otherwise show up as a replacement character.
  static func wholeCharacterEnd(of bytes: [UInt8]) -> Int {
    var start = bytes.count
    // Back over at most three continuation bytes (10xxxxxx) to the last lead byte.
    while start > 0 && bytes.count - start < 4 {
      start -= 1
      if bytes[start] & 0xC0 != 0x80 { break }
    }
    guard start < bytes.count else { return bytes.count }
    let lead = bytes[start]
    let length =
      lead < 0x80
      ? 1 : lead & 0xE0 == 0xC0 ? 2 : lead & 0xF0 == 0xE0 ? 3 : lead & 0xF8 == 0xF0 ? 4 : 1
    return start + length <= bytes.count ? bytes.count : start
  }
}
