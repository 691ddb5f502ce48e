import GestureCore
import Testing

@testable import GesturedConfig

@Suite("key, wheel and hwheel actions")
struct InputActionConfigTests {
  private func firing(_ binding: String, sourceLocation: Testing.SourceLocation = #_sourceLocation)
    -> FiringAction?
  {
    let result = check("bindings:\n  - \(binding)\n")
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))", sourceLocation: sourceLocation)
    return result.actions.first?.bindings.first?.firing
  }

  @Test("a chord is kernel key names joined by +, any case, with the modifier aliases")
  func chord() {
    let action = firing("{ gesture: swipe, direction: left, key: Alt+LEFT }")
    #expect(action == .input(.keys([KeyChord(codes: [56, 105], written: "Alt+LEFT")])))
    let kernelNames = firing("{ gesture: tap, key: leftctrl+kpplus }")
    #expect(kernelNames == .input(.keys([KeyChord(codes: [29, 78], written: "leftctrl+kpplus")])))
    let aliases = firing("{ gesture: tap, key: ctrl+shift+super }")
    #expect(aliases == .input(.keys([KeyChord(codes: [29, 42, 125], written: "ctrl+shift+super")])))
  }

  @Test("a list of chords is a sequence, each kept as written")
  func sequence() {
    let action = firing("{ gesture: tap, key: [ctrl + l, F5, volumeup] }")
    #expect(
      action
        == .input(
          .keys([
            KeyChord(codes: [29, 38], written: "ctrl + l"), KeyChord(codes: [63], written: "F5"),
            KeyChord(codes: [115], written: "volumeup"),
          ])))
  }

  @Test("wheel and hwheel take whole clicks either way")
  func wheel() {
    #expect(firing("{ gesture: pan, direction: down, step: 10mm, wheel: 1 }") == .input(.wheel(1)))
    #expect(firing("{ gesture: pan, direction: left, step: 10mm, hwheel: -3 }") == .input(.horizontalWheel(-3)))
    expectOneError(
      "bindings:\n  - { gesture: tap, wheel: 0 }\n", line: 2, column: 28, "'wheel' must be 1 to 100",
      hint: "positive scrolls down")
    expectOneError(
      "bindings:\n  - { gesture: tap, hwheel: 1.5 }\n", line: 2, column: 29, "'hwheel' must be a whole number")
  }

  @Test("an unknown key name is refused at its place, with the closest name")
  func unknownKey() {
    expectOneError(
      "bindings:\n  - { gesture: tap, key: ctrl+leftctl }\n", line: 2, column: 26,
      "unknown key 'leftctl' in 'ctrl+leftctl'", hint: "did you mean 'leftctrl'?")
    expectOneError(
      "bindings:\n  - { gesture: tap, key: [F5, volumup] }\n", line: 2, column: 31, "unknown key 'volumup'",
      hint: "did you mean 'volumeup'?")
    // The prefix is not part of the name, and a button is not a key.
    expectOneError("bindings:\n  - { gesture: tap, key: KEY_F5 }\n", line: 2, column: 26, "unknown key 'KEY_F5'")
    expectOneError("bindings:\n  - { gesture: tap, key: btn_left }\n", line: 2, column: 26, "unknown key 'btn_left'")
  }

  @Test("a chord with a missing or repeated name is refused")
  func malformedChord() {
    expectOneError(
      "bindings:\n  - { gesture: tap, key: ctrl+ }\n", line: 2, column: 26, "a key name is missing around '+'")
    expectOneError(
      "bindings:\n  - { gesture: tap, key: ctrl+leftctrl }\n", line: 2, column: 26, "names the key 'leftctrl' twice")
    expectOneError("bindings:\n  - { gesture: tap, key: [] }\n", line: 2, column: 26, "'key' is an empty list")
  }

  @Test("a binding has exactly one of run, key, wheel, hwheel")
  func exactlyOne() {
    expectOneError(
      "bindings:\n  - { gesture: tap, key: F5, wheel: 1 }\n", line: 2, column: 37,
      "'wheel' cannot be combined with 'key'")
    expectOneError(
      "bindings:\n  - { gesture: tap, run: x, key: F5 }\n", line: 2, column: 34, "'key' cannot be combined with 'run'")
  }

  @Test("a step binding with a key action may still run an end command")
  func stepWithEnd() {
    let result = check(
      "bindings:\n  - { gesture: pinch, direction: out, step: 10%, key: ctrl+equal, end: \"logger zoomed\" }\n")
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
    let action = result.actions.first?.bindings.first
    #expect(action?.input == .keys([KeyChord(codes: [29, 13], written: "ctrl+equal")]))
    #expect(action?.run == nil && action?.end == "logger zoomed")
  }

  @Test("what only commands take is a warning on a key or wheel binding without end")
  func commandKeysWithoutCommand() {
    let result = check("bindings:\n  - { gesture: tap, key: F5, timeout: 5s, user: kiosk }\n")
    #expect(result.errors.isEmpty)
    #expect(
      result.diagnostics.map(\.message) == [
        "'timeout' applies to commands; this binding runs none", "'user' applies to commands; this binding runs none",
      ])
    #expect(positions(result.diagnostics) == [[2, 30], [2, 43]])
    let withEnd = check(
      "bindings:\n  - { gesture: pan, direction: up, step: 5mm, wheel: -1, end: \"logger up\", timeout: 5s }\n")
    #expect(withEnd.diagnostics.isEmpty, "\(withEnd.diagnostics.map(\.description))")
  }

  @Test("the devices gestured makes follow what the bindings use")
  func devicesUsed() {
    let keys = check("bindings:\n  - { gesture: tap, key: F5 }\n  - { gesture: tap, taps: 2, run: x }\n")
    #expect(keys.actions.inputDevicesUsed == (keyboard: true, pointer: false))
    let wheel = check("bindings:\n  - { gesture: pan, direction: up, step: 5mm, wheel: -1 }\n")
    #expect(wheel.actions.inputDevicesUsed == (keyboard: false, pointer: true))
    let commands = check("bindings:\n  - { gesture: tap, run: x }\n")
    #expect(commands.actions.inputDevicesUsed == (keyboard: false, pointer: false))
  }
}
