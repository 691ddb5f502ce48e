/// What a firing does (`run:`, `key:`, `wheel:`, `hwheel:`): read here for bindings, and for
/// any other entry that takes an action the same way.
extension ConfigValidator {
  static let actionKeys = ["run", "key", "wheel", "hwheel"]
  /// Keys in one chord, and chords in one `key:` list.
  static let maximumChordKeys = 8
  static let maximumKeySequence = 32
  /// Wheel clicks per firing or step.
  static let maximumWheelClicks = 100

  /// The one action among `keys` that `fields` holds (one of the map of `item`); nil, with
  /// the error reported, when there is none, more than one, or it is not valid.
  mutating func firingAction(
    in fields: Fields, of item: Value, allowing keys: [String] = ConfigValidator.actionKeys
  ) -> FiringAction? {
    let given = fields.entries.filter { keys.contains($0.name) }
    let choices = keys.map { "'\($0)'" }.joined(separator: ", ")
    guard let value = given.first else {
      reader.error(
        item, "\(item.key == nil ? "a \(item.name)" : "'\(item.name)'") needs one of \(choices): what it does",
        hint: "e.g. run: \"systemctl restart kiosk\", key: alt+left or wheel: 1")
      return nil
    }
    guard given.count == 1 else {
      reader.error(
        given[1], "'\(given[1].name)' cannot be combined with '\(value.name)'",
        hint: "keep one: \(choices) each say what a firing does")
      return nil
    }
    switch value.name {
    case "run": return reader.string(value).map { .run($0) }
    case "key": return chords(value).map { .input(.keys($0)) }
    case "wheel": return wheelClicks(value).map { .input(.wheel($0)) }
    default: return wheelClicks(value).map { .input(.horizontalWheel($0)) }
    }
  }

  /// `key: ctrl+l` (one chord) or `key: [ctrl+l, F5]` (chords one after another).
  private mutating func chords(_ value: Value) -> [KeyChord]? {
    if case .sequence = value.node.content {
      guard let items = reader.list(value, itemName: "key") else { return nil }
      guard !items.isEmpty else {
        reader.error(value, "'key' is an empty list", hint: "e.g. key: [ctrl+l, F5]")
        return nil
      }
      guard items.count <= Self.maximumKeySequence else {
        reader.error(
          value, "'key' lists \(items.count) chords, more than \(Self.maximumKeySequence)",
          hint: "bind a command that types the rest")
        return nil
      }
      var chords: [KeyChord] = []
      for item in items {
        if let chord = chord(item) { chords.append(chord) }
      }
      return chords.count == items.count ? chords : nil
    }
    return chord(value).map { [$0] }
  }

  /// `ctrl+shift+t`: names joined by `+`, each a `KEY_` name without the prefix or an alias.
  private mutating func chord(_ value: Value) -> KeyChord? {
    guard let text = reader.string(value) else { return nil }
    let written = text.trimmingSpaces()
    let names = written.split(separator: "+", omittingEmptySubsequences: false).map {
      String($0).trimmingSpaces()
    }
    guard !names.contains(where: \.isEmpty) else {
      reader.error(
        value, "'\(written)' is not a chord: a key name is missing around '+'",
        hint: "key names joined by '+', e.g. ctrl+shift+t")
      return nil
    }
    guard names.count <= Self.maximumChordKeys else {
      reader.error(value, "'\(written)' holds \(names.count) keys, more than \(Self.maximumChordKeys)")
      return nil
    }
    var codes: [UInt16] = []
    for name in names {
      guard let code = KeyNames.code(of: name) else {
        let hint =
          Suggestions.closest(to: name, among: KeyNames.all).map { "did you mean '\($0)'?" }
          ?? "a key is named as the kernel's KEY_ constant without 'KEY_' (f5, leftctrl, volumeup)"
          + " or ctrl, alt, shift, super"
        reader.error(value, "unknown key '\(name)' in '\(written)'", hint: hint)
        return nil
      }
      guard !codes.contains(code) else {
        reader.error(value, "'\(written)' names the key '\(name)' twice", hint: "a chord holds each key once")
        return nil
      }
      codes.append(code)
    }
    return KeyChord(codes: codes, written: written)
  }

  /// `wheel: N` / `hwheel: N`: whole clicks, not zero; negative turns the other way.
  private mutating func wheelClicks(_ value: Value) -> Int? {
    guard let clicks = reader.integer(value) else { return nil }
    guard clicks != 0, abs(clicks) <= Self.maximumWheelClicks else {
      let way = value.name == "wheel" ? "positive scrolls down, negative up" : "positive scrolls right, negative left"
      reader.error(
        value, "'\(value.name)' must be 1 to \(Self.maximumWheelClicks) clicks either way, not \(clicks)",
        hint: way)
      return nil
    }
    return clicks
  }
}
