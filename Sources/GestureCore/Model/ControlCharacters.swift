extension StringProtocol {
  /// The text with every control character but the tab written as an escape (`\n`, `\r`,
  /// `\u{1b}`), for text from a device, a file or a config echoed into a log line or a
  /// terminal: a device named "x\n<3>forged" then stays on its own line and cannot fake a
  /// second record or send escape sequences. C0, DEL and C1 (which includes the 8-bit CSI
  /// that terminals honour) are escaped; a tab, which can do neither, and everything else,
  /// including non-ASCII text, is kept.
  public func escapingControlCharacters() -> String {
    // Most text has no control character: a byte scan answers that without decoding. In
    // UTF-8 a C0 control or DEL is its own byte and a C1 control starts with 0xC2 (which
    // also starts U+00A0–U+00BF; those go the slow way and are kept there).
    // The scan runs over the bytes in place where the text has them contiguous (String and
    // Substring do): the generic UTF8View's iterator is far slower per byte.
    func mayStartControl(_ byte: UInt8) -> Bool { byte < 0x20 && byte != 0x09 || byte == 0x7F || byte == 0xC2 }
    let mayHaveControls =
      utf8.withContiguousStorageIfAvailable { $0.contains(where: mayStartControl) }
      ?? utf8.contains(where: mayStartControl)
    guard mayHaveControls else { return String(self) }
    var out = ""
    out.reserveCapacity(utf8.count + 8)
    for scalar in unicodeScalars {
      switch scalar {
      case "\n": out += "\\n"
      case "\t": out += "\t"
      case "\r": out += "\\r"
      case _ where scalar.isControlCharacter:
        out += "\\u{\(String(scalar.value, radix: 16))}"
      default: out.unicodeScalars.append(scalar)
      }
    }
    return out
  }
}

extension Unicode.Scalar {
  /// C0 controls, DEL and the C1 controls (U+0080–U+009F).
  var isControlCharacter: Bool { value < 0x20 || (value >= 0x7F && value <= 0x9F) }
}
