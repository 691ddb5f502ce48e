/// fnmatch(3)-style globbing without flags: `*`, `?`, `[abc]`, `[a-z]`, `[!a]`, and `\` to
/// quote. Case-sensitive. Pure Swift so replay matches exactly as the daemon does.
public enum Glob {
  public static func matches(pattern: String, name: String) -> Bool {
    matches(Array(pattern.unicodeScalars)[...], Array(name.unicodeScalars)[...])
  }

  private static func matches(_ pattern: ArraySlice<Unicode.Scalar>, _ text: ArraySlice<Unicode.Scalar>) -> Bool {
    var p = pattern.startIndex
    var t = text.startIndex
    // Position to resume from after the last `*`: classic backtracking with one star.
    var starP: Int? = nil
    var starT = 0
    while t < text.endIndex {
      if p < pattern.endIndex {
        switch pattern[p] {
        case "*":
          starP = p
          starT = t
          p += 1
          continue
        case "?":
          p += 1
          t += 1
          continue
        case "[":
          if let (matched, next) = matchClass(pattern, from: p, scalar: text[t]) {
            if matched {
              p = next
              t += 1
              continue
            }
          } else if text[t] == "[" {
            // An unterminated class is a literal '['.
            p += 1
            t += 1
            continue
          }
        case "\\" where p + 1 < pattern.endIndex:
          if pattern[p + 1] == text[t] {
            p += 2
            t += 1
            continue
          }
        default:
          if pattern[p] == text[t] {
            p += 1
            t += 1
            continue
          }
        }
      }
      guard let star = starP else { return false }
      p = star + 1
      starT += 1
      t = starT
    }
    while p < pattern.endIndex, pattern[p] == "*" { p += 1 }
    return p == pattern.endIndex
  }

  /// Matches one bracket expression starting at `start` ('['). Returns nil when unterminated.
  private static func matchClass(
    _ pattern: ArraySlice<Unicode.Scalar>, from start: Int, scalar: Unicode.Scalar
  ) -> (Bool, Int)? {
    var i = start + 1
    var negated = false
    if i < pattern.endIndex, pattern[i] == "!" || pattern[i] == "^" {
      negated = true
      i += 1
    }
    var matched = false
    var first = true
    while i < pattern.endIndex {
      if pattern[i] == "]" && !first { return (matched != negated, i + 1) }
      first = false
      var low = pattern[i]
      if low == "\\", i + 1 < pattern.endIndex {
        i += 1
        low = pattern[i]
      }
      if i + 2 < pattern.endIndex, pattern[i + 1] == "-", pattern[i + 2] != "]" {
        let high = pattern[i + 2]
        if low.value <= scalar.value && scalar.value <= high.value { matched = true }
        i += 3
      } else {
        if low == scalar { matched = true }
        i += 1
      }
    }
    return nil
  }
}
