import CEvdev

/// Key names as `key:` takes them: the kernel's `KEY_` names without the prefix, any case,
/// looked up in libevdev's table so that they follow the installed kernel headers.
enum KeyNames {
  /// Left-hand modifiers under the names people type.
  static let aliases: [String: String] = [
    "ctrl": "leftctrl", "alt": "leftalt", "shift": "leftshift", "super": "leftmeta",
  ]

  /// The key code of `name` (`F5`, `leftctrl`, `ctrl`), nil for a name the kernel lacks.
  static func code(of name: String) -> UInt16? {
    let lowercased = name.lowercased()
    let kernelName = aliases[lowercased] ?? lowercased
    // libevdev's lookup takes any string; only a name made of these can be a key's.
    guard !kernelName.isEmpty, kernelName.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
    else { return nil }
    let code = libevdev_event_code_from_name(UInt32(EV_KEY), "KEY_" + kernelName.uppercased())
    guard code > 0, code <= KEY_MAX else { return nil }
    return UInt16(code)
  }

  /// Every name `code(of:)` accepts, lowercased, for "did you mean".
  static let all: [String] = {
    var names = Array(aliases.keys).sorted()
    for code in 1...UInt32(KEY_MAX) {
      guard let name = libevdev_event_code_get_name(UInt32(EV_KEY), code).map({ String(cString: $0) }),
        name.hasPrefix("KEY_")
      else { continue }
      names.append(String(name.dropFirst(4)).lowercased())
    }
    return names
  }()
}
