import GestureCore

/// A value as found under a key (or in a list), with what to call it in messages.
struct Value {
  /// The key (`run`) or a description of the list item (`binding`).
  let name: String
  /// nil for list items.
  let key: YAMLNode?
  let node: YAMLNode

  /// An empty value (`run:` with nothing after it) is reported at its key: libyaml places
  /// the empty scalar after the colon, where nothing is to be seen.
  var line: Int { isEmptyAfterKey ? key?.line ?? node.line : node.line }
  var column: Int { isEmptyAfterKey ? key?.column ?? node.column : node.column }

  private var isEmptyAfterKey: Bool {
    guard key != nil, case .scalar("", plain: true) = node.content else { return false }
    return true
  }
}

/// The entries of a YAML map whose keys were checked against the known ones.
struct Fields {
  let node: YAMLNode
  private(set) var entries: [Value] = []

  init(node: YAMLNode) { self.node = node }

  mutating func append(_ value: Value) { entries.append(value) }

  subscript(name: String) -> Value? { entries.first { $0.name == name } }
}

/// Reads typed values out of the YAML tree, reporting every problem as a diagnostic and
/// returning nil for a value that cannot be used, so validation goes on after an error.
struct ValueReader {
  let file: String
  private(set) var diagnostics: [Diagnostic] = []
  /// Kept as a count, not counted, so that checks comparing it before and after each binding
  /// stay linear in a file with thousands of errors.
  private(set) var errorCount = 0

  init(file: String) { self.file = file }

  // MARK: Reporting

  func location(line: Int, column: Int) -> SourceLocation {
    SourceLocation(file: file, line: line, column: column)
  }

  func location(of node: YAMLNode) -> SourceLocation {
    location(line: node.line, column: node.column)
  }

  func location(of value: Value) -> SourceLocation {
    location(line: value.line, column: value.column)
  }

  mutating func error(at location: SourceLocation, _ message: String, hint: String? = nil) {
    errorCount += 1
    diagnostics.append(
      Diagnostic(severity: .error, location: location, message: message, hint: hint))
  }

  mutating func warning(at location: SourceLocation, _ message: String, hint: String? = nil) {
    diagnostics.append(
      Diagnostic(severity: .warning, location: location, message: message, hint: hint))
  }

  mutating func error(_ value: Value, _ message: String, hint: String? = nil) {
    error(at: location(of: value), message, hint: hint)
  }

  private mutating func wrongKind(_ value: Value, expected: String) {
    guard !isInvalid(value.node) else { return }
    // List items have no key to quote: "expected a map for each binding".
    // The top level has neither a key nor siblings: "for the top level".
    let subject =
      value.key != nil ? "'\(value.name)'" : value.name.hasPrefix("the ") ? value.name : "each \(value.name)"
    error(value, "expected \(expected) for \(subject), got \(value.node.kindDescription)")
  }

  private func isInvalid(_ node: YAMLNode) -> Bool {
    if case .invalid = node.content { return true }
    return false
  }

  // MARK: Collections

  /// The map's entries; unknown keys are errors with a "did you mean". An empty value counts
  /// as an empty map when `emptyIsFine`.
  mutating func fields(
    _ value: Value, allowed: [String], emptyIsFine: Bool = true,
    unknownKeyHint: (String) -> String? = { _ in nil }
  ) -> Fields? {
    if emptyIsFine && value.node.isNull { return Fields(node: value.node) }
    guard case .mapping(let pairs) = value.node.content else {
      wrongKind(value, expected: "a map")
      return nil
    }
    var fields = Fields(node: value.node)
    for pair in pairs {
      guard case .scalar(let name, _) = pair.key.content else { continue }
      guard allowed.contains(name) else {
        let hint =
          unknownKeyHint(name)
          ?? Suggestions.closest(to: name, among: allowed).map { "did you mean '\($0)'?" }
          ?? "known keys here: \(allowed.joined(separator: ", "))"
        error(at: location(of: pair.key), "unknown key '\(name)' in \(value.name)", hint: hint)
        continue
      }
      fields.append(Value(name: name, key: pair.key, node: pair.value))
    }
    return fields
  }

  /// The list's items, each named `itemName` in messages. An empty value is an empty list.
  mutating func list(_ value: Value, itemName: String) -> [Value]? {
    if value.node.isNull { return [] }
    guard case .sequence(let items) = value.node.content else {
      wrongKind(value, expected: "a list")
      return nil
    }
    return items.map { Value(name: itemName, key: nil, node: $0) }
  }

  /// A map of names to strings (environment, udev properties).
  mutating func stringMap(_ value: Value, keyCheck: (String) -> String? = { _ in nil }) -> [String:
    String]?
  {
    if value.node.isNull { return [:] }
    guard case .mapping(let pairs) = value.node.content else {
      wrongKind(value, expected: "a map of names to strings")
      return nil
    }
    var result: [String: String] = [:]
    var ok = true
    for pair in pairs {
      guard case .scalar(let name, _) = pair.key.content else { continue }
      if let problem = keyCheck(name) {
        error(at: location(of: pair.key), problem)
        ok = false
      }
      if let text = string(Value(name: name, key: pair.key, node: pair.value), allowEmpty: true) {
        result[name] = text
      } else {
        ok = false
      }
    }
    return ok ? result : nil
  }

  // MARK: Scalars

  /// A string; numbers and words are taken as written. Nothing (`run:`) is an error.
  mutating func string(_ value: Value, allowEmpty: Bool = false) -> String? {
    guard case .scalar(let text, let plain) = value.node.content else {
      wrongKind(value, expected: "a string")
      return nil
    }
    if plain && value.node.isNull {
      let hint = allowEmpty ? "write \"\" for an empty string" : nil
      error(value, "'\(value.name)' needs a value", hint: hint)
      return nil
    }
    if !allowEmpty && text.trimmingSpaces().isEmpty {
      error(value, "'\(value.name)' is empty")
      return nil
    }
    // Commands, names and environment values become C strings, which end at a NUL.
    if text.utf8.contains(0) {
      error(value, "'\(value.name)' cannot contain a NUL character (\\0)")
      return nil
    }
    return text
  }

  /// A scalar's text for unit parsing; reports maps, lists and nothing.
  private mutating func scalarText(_ value: Value, expected: String) -> String? {
    guard case .scalar(let text, _) = value.node.content, !value.node.isNull else {
      if value.node.isNull {
        error(value, "'\(value.name)' needs a value", hint: "write e.g. \(expected)")
      } else {
        wrongKind(value, expected: expected)
      }
      return nil
    }
    return text
  }

  mutating func integer(_ value: Value) -> Int? {
    guard let text = scalarText(value, expected: "a whole number") else { return nil }
    guard let number = Units.integer(text.trimmingSpaces()) else {
      error(value, "'\(value.name)' must be a whole number, not '\(text)'")
      return nil
    }
    return number
  }

  mutating func number(_ value: Value) -> Double? {
    guard let text = scalarText(value, expected: "a number") else { return nil }
    guard let number = Units.number(text.trimmingSpaces()) else {
      let hint = text.hasSuffix("%") ? "write a plain number: 80% is 0.8" : nil
      error(value, "'\(value.name)' must be a number, not '\(text)'", hint: hint)
      return nil
    }
    return number
  }

  mutating func bool(_ value: Value) -> Bool? {
    guard let text = scalarText(value, expected: "true or false") else { return nil }
    switch text {
    case "true", "True", "TRUE": return true
    case "false", "False", "FALSE": return false
    default:
      error(value, "'\(value.name)' must be true or false, not '\(text)'")
      return nil
    }
  }

  /// A duration; zero is allowed only with `allowZero`.
  mutating func duration(_ value: Value, allowZero: Bool = false) -> Microseconds? {
    guard let text = scalarText(value, expected: "a duration such as 300ms") else { return nil }
    do {
      let micro = try Units.duration(text)
      if micro == 0 && !allowZero {
        error(value, ConfigRules.zeroDuration(value.name))
        return nil
      }
      return micro
    } catch {
      self.error(value, "'\(value.name)': \(error.message)", hint: error.hint)
      return nil
    }
  }

  /// A distance more than zero.
  /// `allowZero`: 0 is a value of its own (a check turned off).
  mutating func distance(_ value: Value, allowPercent: Bool = true, allowZero: Bool = false) -> Distance? {
    guard let text = scalarText(value, expected: "a distance such as 3mm") else { return nil }
    do {
      let distance = try Units.distance(text, allowPercent: allowPercent)
      if !(allowZero && distance.millimetres(diagonal: 1) == 0),
        let problem = ConfigRules.distance(distance, key: value.name)
      {
        error(value, problem)
        return nil
      }
      return distance
    } catch {
      self.error(value, "'\(value.name)': \(error.message)", hint: error.hint)
      return nil
    }
  }

  /// A speed in mm/s, 0 or more.
  mutating func speed(_ value: Value) -> Double? {
    guard let text = scalarText(value, expected: "a speed such as 300mm/s") else { return nil }
    do {
      return try Units.speed(text)
    } catch {
      self.error(value, "'\(value.name)': \(error.message)", hint: error.hint)
      return nil
    }
  }

  mutating func angle(_ value: Value) -> Double? {
    guard let text = scalarText(value, expected: "an angle such as 25deg") else { return nil }
    do {
      return try Units.angle(text)
    } catch {
      self.error(value, "'\(value.name)': \(error.message)", hint: error.hint)
      return nil
    }
  }

  /// One of a fixed set of words (gesture names, directions, edges), with a "did you mean".
  mutating func word<Word: RawRepresentable>(_ value: Value, among choices: [Word], what: String)
    -> Word?
  where Word.RawValue == String {
    guard let text = string(value) else { return nil }
    if let word = choices.first(where: { $0.rawValue == text }) { return word }
    let names = choices.map(\.rawValue)
    let hint =
      Suggestions.closest(to: text, among: names).map { "did you mean '\($0)'?" }
      ?? "one of \(names.joined(separator: ", "))"
    error(value, "'\(text)' is not \(what)", hint: hint)
    return nil
  }
}

/// "Did you mean": the closest known word by edit distance, for typos in keys and names.
enum Suggestions {
  static func closest(to word: String, among candidates: [String]) -> String? {
    let normalizedWord = normalized(word)
    if let exact = candidates.first(where: { normalized($0) == normalizedWord }) { return exact }
    let allowed = max(1, min(3, word.count / 3))
    var best: (candidate: String, distance: Int)? = nil
    for candidate in candidates {
      let distance = editDistance(normalizedWord, normalized(candidate))
      if distance <= allowed, distance < best?.distance ?? .max { best = (candidate, distance) }
    }
    return best?.candidate
  }

  /// Case and `_` vs `-` are the commonest slips; they never count as distance.
  private static func normalized(_ word: String) -> [Character] {
    Array(word.lowercased().map { $0 == "_" || $0 == " " ? "-" : $0 })
  }

  /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
  /// neighbours each cost 1 ("gesutre" is one step from "gesture").
  static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previousPrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          current[j] = min(current[j], previousPrevious[j - 2] + 1)
        }
      }
      (previousPrevious, previous, current) = (previous, current, previousPrevious)
    }
    return previous[b.count]
  }
}
