import GestureCore
import Testing

@testable import GesturedConfig

@Suite("Config diagnostics")
struct ConfigDiagnosticsTests {
  // MARK: Keys

  @Test("an unknown key is reported at the key, with a did-you-mean")
  func unknownKey() {
    expectOneError(
      """
      bindings:
        - gesture: tap
          fingres: 2
          run: x
      """, line: 3, column: 5, "unknown key 'fingres' in binding", hint: "did you mean 'fingers'?")
  }

  @Test("a NUL in a command or an environment value is rejected: C strings end there")
  func nulCharacter() {
    expectOneError(
      "bindings: [{ gesture: tap, run: \"echo a\\0b\" }]\n", line: 1, column: 33,
      "'run' cannot contain a NUL character")
    expectOneError(
      "bindings: [{ gesture: tap, run: x, environment: { DISPLAY: \":0\\0\" } }]\n", line: 1,
      column: 60, "'DISPLAY' cannot contain a NUL character")
  }

  @Test("an unknown threshold key suggests the closest one")
  func unknownThreshold() {
    expectOneError(
      "thresholds: { long_press: 400ms }\nbindings: [{ gesture: tap, run: x }]\n", line: 1,
      column: 15,
      "unknown key 'long_press' in thresholds", hint: "did you mean 'long-press'?")
  }

  @Test("a per-device key at the top level says where it belongs")
  func deviceKeyAtTopLevel() {
    expectOneError(
      "rotation: 90\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 1,
      "unknown key 'rotation'",
      hint: "put it in an entry under 'devices:'")
  }

  @Test("an unknown key far from every known one lists the known keys")
  func unknownKeyWithoutSuggestion() {
    expectOneError(
      "regions:\n  - { name: a, colour: red }\nbindings: [{ gesture: tap, run: x }]\n", line: 2,
      column: 16,
      "unknown key 'colour' in region", hint: "known keys here: name, area")
  }

  // MARK: Types

  @Test("a map where a list belongs is reported at the value")
  func mapInsteadOfList() {
    expectOneError(
      "bindings: { gesture: tap, run: x }\n", line: 1, column: 11,
      "expected a list for 'bindings', got a map")
  }

  @Test("a list where a string belongs is reported at the value")
  func listInsteadOfString() {
    expectOneError(
      "bindings:\n  - gesture: tap\n    run: [a, b]\n", line: 3, column: 10,
      "expected a string for 'run', got a list")
  }

  @Test("a word where a number belongs")
  func wordInsteadOfNumber() {
    expectOneError(
      "bindings:\n  - { gesture: tap, taps: two, run: x }\n", line: 2, column: 27,
      "'taps' must be a whole number, not 'two'")
  }

  @Test("an empty value is reported at its key, where it can be seen")
  func emptyValue() {
    expectOneError(
      "bindings:\n  - gesture: tap\n    run:\n", line: 3, column: 5, "'run' needs a value")
  }

  @Test("a non-boolean grab")
  func badBoolean() {
    expectOneError(
      "devices:\n  - grab: maybe\n    bindings: [{ gesture: tap, run: x }]\n", line: 2, column: 11,
      "'grab' must be true or false")
  }

  @Test("forward implies grab; grab: false beside it is an error at the grab value")
  func forwardAndGrab() throws {
    expectOneError(
      "devices:\n  - forward: true\n    grab: false\n    bindings: [{ gesture: tap, run: x }]\n", line: 3,
      column: 11, "'grab: false' contradicts 'forward: true'", hint: "remove 'grab'")
    let forwarded = try #require(
      expectValid("devices:\n  - forward: true\n    bindings: [{ gesture: tap, run: x }]\n"))
    #expect(forwarded.profiles[0].forward && forwarded.profiles[0].grab)
    let both = try #require(
      expectValid("devices:\n  - forward: true\n    grab: true\n    bindings: [{ gesture: tap, run: x }]\n"))
    #expect(both.profiles[0].forward && both.profiles[0].grab)
    let off = try #require(
      expectValid("devices:\n  - forward: false\n    grab: false\n    bindings: [{ gesture: tap, run: x }]\n"))
    #expect(!off.profiles[0].forward && !off.profiles[0].grab)
    expectOneError(
      "devices:\n  - forward: yes please\n    bindings: [{ gesture: tap, run: x }]\n", line: 2, column: 14,
      "'forward' must be true or false")
  }

  // MARK: Units

  @Test("a duration without a unit says how to write it")
  func bareDuration() {
    expectOneError(
      "thresholds:\n  tap-max-duration: 300\nbindings: [{ gesture: tap, run: x }]\n", line: 2,
      column: 21,
      "'tap-max-duration': '300' needs a unit", hint: "write 300ms")
  }

  @Test("a distance in an unknown unit")
  func unknownDistanceUnit() {
    expectOneError(
      "thresholds: { tap-slop: 12px }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 25,
      "unknown unit 'px'", hint: "mm, cm or %")
  }

  @Test("a percentage is no physical size")
  func percentSize() {
    expectOneError(
      "devices:\n  - size: { width: 30%, height: 194mm }\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2,
      column: 20, "'width': '30%' cannot be a percentage here")
  }

  @Test("zero and negative durations where they make no sense")
  func zeroAndNegativeDurations() {
    expectOneError(
      "thresholds: { long-press: 0ms }\nbindings: [{ gesture: tap, run: x }]\n", line: 1,
      column: 27,
      "'long-press' must be longer than 0")
    expectOneError(
      "bindings: [{ gesture: tap, run: x, timeout: -1s }]\n", line: 1, column: 45,
      "'timeout': '-1s' is negative")
  }

  @Test("threshold values outside their range")
  func thresholdRanges() {
    expectOneError(
      "thresholds: { swipe-angle: 50deg }\nbindings: [{ gesture: tap, run: x }]\n", line: 1,
      column: 28,
      "'swipe-angle' must be more than 0deg and at most 45deg")
    expectOneError(
      "thresholds: { pinch-in: 1.2 }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 25,
      "'pinch-in' must be between 0 and 1")
    expectOneError(
      "thresholds: { pinch-out: 0.9 }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 26,
      "'pinch-out' must be more than 1")
    expectOneError(
      "thresholds: { rotate-angle: 180deg }\nbindings: [{ gesture: tap, run: x }]\n", line: 1,
      column: 29,
      "'rotate-angle' must be more than 0deg and less than 180deg")
    expectOneError(
      "thresholds: { tap-slop: 0mm }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 25,
      "'tap-slop' must be more than 0")
  }

  // MARK: Impossible values

  @Test("taps 0 is impossible")
  func zeroTaps() {
    expectOneError(
      "bindings:\n  - gesture: tap\n    taps: 0\n    run: x\n", line: 3, column: 11,
      "'taps' must be 1 to 100, not 0",
      hint: "a single tap is taps: 1")
  }

  @Test("six fingers are more than gestured follows")
  func sixFingers() {
    expectOneError(
      "bindings:\n  - { gesture: swipe, direction: up, fingers: 6, run: x }\n", line: 2, column: 47,
      "'fingers' must be 1 to 5, not 6")
  }

  @Test("pinch and rotate take exactly two fingers")
  func pinchFingers() {
    expectOneError(
      "bindings:\n  - { gesture: pinch, direction: in, fingers: 3, run: x }\n", line: 2, column: 47,
      "'fingers' must be 2 for pinch")
  }

  @Test("rotation 45 is no quarter turn")
  func rotation45() {
    expectOneError(
      "devices:\n  - rotation: 45\n    bindings: [{ gesture: tap, run: x }]\n", line: 2, column: 15,
      "rotation 45 is not a quarter turn", hint: "one of 0, 90, 180, 270")
  }

  @Test("an area reaching past the panel's edge is reported at its size")
  func areaOutsidePanel() {
    expectOneError(
      """
      regions:
        - name: strip
          area: { x: 0.8, y: 0, width: 0.3, height: 1 }
      bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 34, "x + width is 1.1", hint: "make width at most 0.2")
  }

  @Test("area fractions must lie in 0..1, and all four are needed")
  func areaFractions() {
    expectOneError(
      "regions:\n  - { name: a, area: { x: -0.1, y: 0, width: 0.5, height: 0.5 } }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 27, "'x' must be at least 0 and less than 1")
    expectOneError(
      "regions:\n  - { name: a, area: { x: 0, y: 0, width: 0, height: 0.5 } }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 43, "'width' must be more than 0 and at most 1")
    expectOneError(
      "regions:\n  - { name: a, area: { x: 0, y: 0 } }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 22,
      "missing: width, height")
    expectOneError(
      "regions:\n  - { name: a, area: { x: 10%, y: 0, width: 0.5, height: 0.5 } }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 27, "'x' must be a number, not '10%'", hint: "80% is 0.8")
  }

  @Test("vendor ids beyond 16 bits")
  func vendorOutOfRange() {
    expectOneError(
      "devices:\n  - match: { vendor: 0x10000 }\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 22,
      "'vendor' must be 0 to 0xffff, not 65536")
  }

  @Test("calibration needs six numbers and an invertible matrix")
  func calibration() {
    expectOneError(
      "devices:\n  - calibration: [1, 0, 0, 0, 1]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 18,
      "'calibration' needs 6 numbers, not 5")
    expectOneError(
      "devices:\n  - calibration: [1, 2, 0, 2, 4, 0]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 18,
      "onto a line")
  }

  // MARK: Gestures

  @Test("an unknown gesture suggests the closest")
  func unknownGesture() {
    expectOneError(
      "bindings:\n  - { gesture: longpress, run: x }\n", line: 2, column: 16,
      "'longpress' is not a gesture",
      hint: "did you mean 'long-press'?")
  }

  @Test("swipes need a direction; taps must not have one; pinches take in or out")
  func directions() {
    expectOneError(
      "bindings:\n  - { gesture: swipe, run: x }\n", line: 2, column: 5,
      "a swipe binding needs a 'direction'",
      hint: "one of up, down, left, right")
    expectOneError(
      "bindings:\n  - { gesture: tap, direction: up, run: x }\n", line: 2, column: 32,
      "'direction' does not apply to tap")
    expectOneError(
      "bindings:\n  - { gesture: pinch, direction: up, run: x }\n", line: 2, column: 34,
      "'up' is not a pinch direction",
      hint: "one of in, out")
  }

  @Test("edge only on swipes, and taps only on taps")
  func gestureSpecificKeys() {
    expectOneError(
      "bindings:\n  - { gesture: tap, edge: left, run: x }\n", line: 2, column: 27,
      "'edge' applies only to swipe")
    expectOneError(
      "bindings:\n  - { gesture: long-press, taps: 2, run: x }\n", line: 2, column: 34,
      "'taps' applies only to tap")
  }

  @Test("a binding without run, key, wheel or hwheel")
  func missingRun() {
    expectOneError(
      "bindings:\n  - gesture: tap\n    taps: 2\n", line: 2, column: 5,
      "a binding needs one of 'run', 'key', 'wheel', 'hwheel'")
    expectOneError(
      "bindings:\n  - { gesture: tap, run: \"  \" }\n", line: 2, column: 26, "'run' is empty")
  }

  @Test("an unknown region suggests the closest one")
  func unknownRegion() {
    expectOneError(
      """
      regions:
        - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.1 } }
      bindings:
        - { gesture: tap, taps: 5, region: cornr, run: x }
      """, line: 4, column: 38, "unknown region 'cornr'", hint: "did you mean 'corner'?")
  }

  @Test("a region name used when the profile has no regions")
  func regionWithoutRegions() {
    expectOneError(
      "bindings:\n  - { gesture: tap, region: main, run: x }\n", line: 2, column: 29,
      "unknown region 'main'",
      hint: "defines no regions")
  }

  @Test(
    "tap, swipe and long-press cannot be simultaneous, and the message says why",
    arguments: [
      ("tap", "only known once the sequence has ended"),
      ("swipe", "only known once the sequence has ended"),
      ("long-press", "needs fingers that rest"),
    ])
  func simultaneousRefusals(gesture: String, why: String) {
    expectOneError(
      "devices:\n  - simultaneous: [[pinch, \(gesture)]]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 28,
      "\(gesture) cannot be in a 'simultaneous' group: a", hint: "two or three of pan, pinch, rotate")
    let result = check(
      "devices:\n  - simultaneous: [[pinch, \(gesture)]]\n    bindings: [{ gesture: tap, run: x }]\n")
    #expect(result.errors.first?.message.contains(why) == true)
  }

  @Test("one simultaneous group per entry, of two or three gestures")
  func simultaneousShape() {
    expectOneError(
      "devices:\n  - simultaneous: [[pinch, rotate], [pan, pinch]]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 37, "one group per device entry")
    expectOneError(
      "devices:\n  - simultaneous: [[pinch]]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 20, "needs two or three gestures")
    expectOneError(
      "devices:\n  - simultaneous: [pinch, rotate]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 19, "a list of groups", hint: "[[pan, pinch, rotate]]")
    expectOneError(
      "devices:\n  - simultaneous: [[pinch, pinch]]\n    bindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 28, "pinch is in the group twice")
    let valid = check(
      """
      devices:
        - simultaneous: [[pan, pinch, rotate]]
          bindings:
            - { gesture: pan, fingers: 2, direction: right, step: 10mm, run: x }
            - { gesture: pinch, direction: out, step: 10%, run: x }
            - { gesture: rotate, direction: clockwise, step: 15deg, run: x }
      """)
    #expect(valid.diagnostics.isEmpty, "\(valid.diagnostics.map(\.description))")
    #expect(valid.configuration?.profiles.first?.simultaneous == GestureKindSet([.pan, .pinch, .rotate]))
  }

  @Test("a group whose bindings can never share a sequence: a warning at the group")
  func simultaneousFingerMismatch() {
    let result = check(
      """
      devices:
        - simultaneous: [[pan, pinch]]
          bindings:
            - { gesture: pan, direction: right, step: 10mm, run: x }
            - { gesture: pinch, direction: out, step: 10%, run: x }
      """)
    #expect(result.errors.isEmpty)
    #expect(result.warnings.count == 1)
    let warning = result.warnings.first
    #expect(positions(result.warnings) == [[2, 20]])
    #expect(warning?.message.contains("pan and pinch can never share a sequence") == true)
    #expect(warning?.hint?.contains("fingers: 2") == true)
  }

  // MARK: Steps

  @Test("a pan needs a direction and a step")
  func panNeedsDirectionAndStep() {
    expectOneError(
      "bindings:\n  - { gesture: pan, step: 10mm, run: x }\n", line: 2, column: 5,
      "a pan binding needs a 'direction'", hint: "up, down, left, right")
    expectOneError(
      "bindings:\n  - { gesture: pan, direction: up, run: x }\n", line: 2, column: 5,
      "a pan binding needs a 'step'", hint: "step: 10mm")
  }

  @Test(
    "a step of the wrong unit names both units",
    arguments: [
      ("pinch, direction: in, step: 10mm", "is a distance, but a pinch step is a percentage", "10%"),
      ("pan, direction: up, step: 5%", "is a percentage, but a pan step is a distance", "10mm"),
      ("rotate, direction: clockwise, step: 1cm", "is a distance, but a rotate step is an angle", "15deg"),
      ("pinch, direction: in, step: 10", "needs a unit", "10%"),
      ("pinch, direction: in, step: 10px", "unknown unit 'px'", "10%"),
    ])
  func stepUnits(binding: String, message: String, hint: String) {
    let yaml = "bindings:\n  - { gesture: \(binding), run: x }\n"
    // The error points at the step's value.
    let bytes = Array(binding.utf8)
    let needle = Array("step: ".utf8)
    let offset = (0...(bytes.count - needle.count)).first { Array(bytes[$0..<($0 + needle.count)]) == needle } ?? 0
    let column = "  - { gesture: ".utf8.count + offset + needle.count + 1
    expectOneError(yaml, line: 2, column: column, message, hint: hint)
  }

  @Test(
    "a step out of its range",
    arguments: [
      ("pinch, direction: in, step: 100%", "more than 0% and less than 100%"),
      ("pinch, direction: out, step: 0%", "more than 0% and less than 100%"),
      ("rotate, direction: clockwise, step: 180deg", "more than 0deg and less than 180deg"),
      ("pan, direction: up, step: 501mm", "more than 0mm and at most 500mm"),
      ("pan, direction: up, step: -1cm", "more than 0mm and at most 500mm"),
    ])
  func stepRanges(binding: String, message: String) {
    let result = check("bindings:\n  - { gesture: \(binding), run: x }\n")
    #expect(result.errors.count == 1, "\(result.errors.map(\.description))")
    #expect(result.errors.first?.message.contains(message) == true, "\(result.errors.map(\.description))")
    #expect(result.errors.first?.location.line == 2)
  }

  @Test("pan steps take mm or cm; the widest step is 50cm")
  func panStepUnits() throws {
    let configuration = try #require(
      expectValid(
        """
        bindings:
          - { gesture: pan, direction: up, step: 1.5cm, run: x }
          - { gesture: pan, direction: down, step: 500mm, run: x }
          - { gesture: pinch, direction: out, step: 12.5%, run: x }
          - { gesture: rotate, direction: clockwise, step: 15deg, run: x }
        """))
    #expect(configuration.profiles.first?.bindings.map(\.step) == [15, 500, 12.5, 15])
  }

  @Test("'step' only on pan, pinch and rotate; 'end' only with 'step'")
  func stepAndEndPlacement() {
    expectOneError(
      "bindings:\n  - { gesture: swipe, direction: up, step: 10mm, run: x }\n", line: 2, column: 44,
      "'step' applies only to long-press, pan, pinch, rotate, not to swipe")
    expectOneError(
      "bindings:\n  - { gesture: pinch, direction: in, end: y, run: x }\n", line: 2, column: 43,
      "'end' needs 'step'")
    expectOneError(
      "bindings:\n  - { gesture: tap, end: y, run: x }\n", line: 2, column: 26,
      "'end' applies only to step bindings, not to tap")
    let result = check("bindings:\n  - { gesture: pinch, direction: in, step: 10%, end: y, run: x }\n")
    #expect(result.diagnostics.isEmpty)
    #expect(result.actions.first?.bindings.first?.end == "y")
  }

  @Test("a step binding and a one-shot binding of the same trigger are duplicates")
  func stepAndOneShotCollide() {
    expectOneError(
      """
      bindings:
        - { gesture: pinch, direction: in, step: 10%, run: a }
        - { gesture: pinch, direction: in, run: b }
      """, line: 3, column: 5, "this binding repeats the one at line 2", hint: "a step binding and a one-shot")
  }

  @Test("environment variable names cannot contain '='")
  func environmentName() {
    expectOneError(
      "bindings:\n  - { gesture: tap, run: x, environment: { \"A=B\": c } }\n", line: 2, column: 44,
      "'A=B' cannot be an environment variable name")
  }

  // MARK: Several gestures at once

  @Test("an independent region needs an area of its own")
  func independentWithoutArea() {
    expectOneError(
      "regions:\n  - { name: left, independent: true }\nbindings: [{ gesture: tap, run: x }]\n", line: 2,
      column: 32, "an independent region needs an 'area'", hint: "e.g. area: { x: 0, y: 0, width: 0.5, height: 1 }")
    expectOneError(
      "regions:\n  - { name: left, area: null, independent: true }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 44, "an independent region needs an 'area'")
    expectOneError(
      "regions:\n  - { name: left, independent: yes please }\nbindings: [{ gesture: tap, run: x }]\n",
      line: 2, column: 32, "'independent' must be true or false")
  }

  @Test("independent regions are read; 'independent: false' is the default")
  func independentRegions() throws {
    let configuration = try #require(
      expectValid(
        """
        regions:
          - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }
          - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 }, independent: false }
          - { name: strip, area: { x: 0, y: 0, width: 1, height: 0.1 } }
        bindings: [{ gesture: tap, region: left, run: x }]
        """))
    let regions = try #require(configuration.profiles.first?.regions)
    #expect(regions.map(\.independent) == [true, false, false])
    #expect(regions.first?.area == Area(x: 0, y: 0, width: 0.5, height: 1))
  }

  @Test("a forwarding profile may have independent regions")
  func forwardWithIndependentRegion() {
    let result = check(
      """
      devices:
        - forward: true
          regions: [{ name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }]
          bindings: [{ gesture: tap, run: x }]
      """)
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
    #expect(result.configuration?.profiles.first?.forward == true)
  }

  @Test("forward-fingers and wake are read on a forwarding entry")
  func forwardingPolicies() throws {
    let result = check(
      """
      thresholds: { palm-size: 0mm }
      devices:
        - name: other
          match: { name: "Other*" }
          bindings: [{ gesture: tap, run: x }]
        - forward: true
          forward-fingers: 1
          wake: { after: 60s, run: "xset dpms force on" }
          thresholds: { palm-size: 25mm }
          bindings: [{ gesture: tap, run: x }]
      """)
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
    let profiles = try #require(result.configuration?.profiles)
    #expect(profiles[1].forwardFingers == 1)
    #expect(profiles[1].wakeAfter == 60_000_000)
    #expect(profiles[1].thresholds.palmSize == .millimetres(25))
    #expect(profiles[0].thresholds.palmSize == .millimetres(0))
    #expect(result.actions.last?.wake?.run == "xset dpms force on")
    #expect(profiles[0].forwardFingers == nil && profiles[0].wakeAfter == nil)
  }

  @Test("wake presses keys with key:, read as a binding's key, and needs the keyboard")
  func wakeWithKeys() throws {
    let result = check(
      """
      devices:
        - forward: true
          wake: { after: 30s, key: leftshift }
          bindings: [{ gesture: tap, run: x }]
      """)
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
    let wake = try #require(result.actions.last?.wake)
    #expect(wake.run == nil)
    #expect(wake.input?.usesKeyboard == true)
    #expect(result.actions.inputDevicesUsed.keyboard, "a wake key alone makes the virtual keyboard")
    expectOneError(
      """
      devices:
        - forward: true
          wake: { after: 30s, key: leftshift, run: x }
          bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 46, "cannot be combined with")
    expectOneError(
      """
      devices:
        - forward: true
          wake: { after: 30s, key: leftshfit }
          bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 30, "unknown key 'leftshfit'", hint: "did you mean 'leftshift'?")
  }

  @Test("forward-fingers and wake without forward: true are errors at their value")
  func policiesNeedForward() {
    expectOneError(
      """
      devices:
        - forward-fingers: 1
          bindings: [{ gesture: tap, run: x }]
      """, line: 2, column: 22, "'forward-fingers' applies only to a device entry with 'forward: true'",
      hint: "add 'forward: true'")
    expectOneError(
      """
      devices:
        - forward: false
          wake: { after: 60s }
          bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 11, "'wake' applies only to a device entry with 'forward: true'")
    expectOneError(
      """
      devices:
        - forward: true
          wake: { run: x }
          bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 11, "'wake' needs 'after'", hint: "wake: { after: 60s }")
    expectOneError(
      """
      devices:
        - forward: true
          forward-fingers: 0
          bindings: [{ gesture: tap, run: x }]
      """, line: 3, column: 22, "'forward-fingers' must be 1 to")
    expectOneError(
      """
      thresholds: { palm-size: -2mm }
      bindings: [{ gesture: tap, run: x }]
      """, line: 1, column: 26, "palm-size")
  }

  @Test("the 256-region limit holds for independent regions too")
  func independentRegionLimit() {
    var yaml = "regions:\n"
    for index in 0...ConfigRules.maximumRegions {
      yaml += "  - { name: r\(index), area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }\n"
    }
    yaml += "bindings: [{ gesture: tap, run: x }]\n"
    let result = check(yaml)
    #expect(result.errors.map(\.message) == [ConfigRules.tooManyRegions.message])
    #expect(result.errors.first?.location.line == ConfigRules.maximumRegions + 2)
  }

  @Test("swipe-min-speed takes mm/s or cm/s, globally and per entry")
  func swipeMinSpeed() throws {
    let configuration = try #require(
      expectValid(
        """
        thresholds: { swipe-min-speed: 250mm/s }
        devices:
          - { name: a, match: { name: A }, thresholds: { swipe-min-speed: 40cm/s }, bindings: [{ gesture: tap, run: x }] }
          - { name: b, bindings: [{ gesture: tap, run: x }] }
        """))
    #expect(configuration.profiles.map(\.thresholds.swipeMinSpeed) == [400, 250])
    #expect(Thresholds().swipeMinSpeed == 0)
    expectOneError(
      "thresholds: { swipe-min-speed: 300 }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 32,
      "'swipe-min-speed': '300' needs a unit", hint: "write 300mm/s")
    expectOneError(
      "thresholds: { swipe-min-speed: 2km/s }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 32,
      "'swipe-min-speed': '2km/s' has an unknown unit 'km/s'", hint: "speeds take mm/s or cm/s")
    expectOneError(
      "thresholds: { swipe-min-speed: 20000mm/s }\nbindings: [{ gesture: tap, run: x }]\n", line: 1, column: 32,
      "'swipe-min-speed': '20000mm/s' is faster than 10 m/s")
  }

  @Test("a long press may drag: direction and step together, as a pan's")
  func longPressHoldAndDrag() throws {
    let result = check(
      """
      bindings:
        - { gesture: long-press, run: menu }
        - { gesture: long-press, direction: up, step: 1cm, run: louder, end: done }
        - { gesture: long-press, direction: down, step: 5mm, run: softer }
      """)
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    let bindings = try #require(result.configuration?.profiles.first?.bindings)
    #expect(bindings.map(\.direction) == [nil, .up, .down])
    #expect(bindings.map(\.step) == [nil, 10, 5])
    #expect(result.actions.first?.bindings.map(\.end) == [nil, "done", nil])
  }

  @Test("a long press with direction but no step, or the reverse, is half a drag")
  func longPressHalfADrag() {
    expectOneError(
      "bindings:\n  - { gesture: long-press, direction: up, run: x }\n", line: 2, column: 39,
      "a long-press 'direction' needs a 'step'", hint: "e.g. step: 10mm")
    expectOneError(
      "bindings:\n  - { gesture: long-press, step: 10mm, run: x }\n", line: 2, column: 34,
      "a long-press 'step' needs a 'direction'", hint: "one of up, down, left, right")
    expectOneError(
      "bindings:\n  - { gesture: long-press, direction: in, step: 10mm, run: x }\n", line: 2, column: 39,
      "'in' is not a long-press direction", hint: "one of up, down, left, right")
    expectOneError(
      "bindings:\n  - { gesture: long-press, direction: up, step: 10%, run: x }\n", line: 2, column: 49,
      "but a long-press step is a distance")
    expectOneError(
      "bindings:\n  - { gesture: long-press, end: y, run: x }\n", line: 2, column: 33, "'end' needs 'step'")
  }

  // MARK: Uniqueness and order

  @Test("two bindings for the same trigger: the second names the first one's line")
  func duplicateBinding() {
    expectOneError(
      """
      bindings:
        - { gesture: tap, taps: 2, run: a }
        - { gesture: swipe, direction: up, run: b }
        - { gesture: tap, taps: 2, fingers: 1, run: c }
      """, line: 4, column: 5, "this binding repeats the one at line 2")
  }

  @Test("the same gesture in different regions or with another finger count is no duplicate")
  func notDuplicates() {
    let configuration = expectValid(
      """
      regions: [{ name: a, area: { x: 0, y: 0, width: 0.5, height: 1 } }, { name: b }]
      bindings:
        - { gesture: tap, run: any }
        - { gesture: tap, region: a, run: a }
        - { gesture: tap, region: b, run: b }
        - { gesture: tap, fingers: 2, run: two }
        - { gesture: swipe, direction: up, run: up }
        - { gesture: swipe, direction: up, edge: bottom, run: edge }
      """)
    #expect(configuration?.profiles.first?.bindings.count == 6)
  }

  @Test("binding names and region names are unique within a profile")
  func duplicateNames() {
    expectOneError(
      "bindings:\n  - { name: go, gesture: tap, run: a }\n  - { name: go, gesture: long-press, run: b }\n",
      line: 3,
      column: 5, "binding name 'go' is already used at line 2")
    expectOneError(
      "regions: [{ name: a }, { name: a }]\nbindings: [{ gesture: tap, run: x }]\n", line: 1,
      column: 32,
      "region 'a' is already defined at line 1")
  }

  @Test("profile names are unique")
  func duplicateProfileNames() {
    expectOneError(
      """
      devices:
        - { name: lobby, match: { name: "A*" }, bindings: [{ gesture: tap, run: x }] }
        - { name: lobby, bindings: [{ gesture: tap, run: x }] }
      """, line: 3, column: 13, "profile name 'lobby' is already used at line 2")
  }

  @Test("an entry after the default profile can never match")
  func unreachableAfterDefault() {
    expectOneError(
      """
      devices:
        - name: everything
          bindings: [{ gesture: tap, run: x }]
        - name: lobby
          match: { name: "ILITEK*" }
          bindings: [{ gesture: tap, run: y }]
      """, line: 4, column: 5,
      "profile 'lobby' can never match: the default profile 'everything' at line 2 comes first",
      hint: "move the entry without 'match' to the end")
  }

  @Test("two default profiles are an error")
  func twoDefaults() {
    expectOneError(
      """
      devices:
        - { name: a, bindings: [{ gesture: tap, run: x }] }
        - { name: b, bindings: [{ gesture: tap, run: x }] }
      """, line: 3, column: 5, "a second default profile: 'a' at line 2")
  }

  @Test("an entry with the same match as an earlier one can never match")
  func sameMatchTwice() {
    expectOneError(
      """
      devices:
        - { name: a, match: { vendor: 0x222a }, bindings: [{ gesture: tap, run: x }] }
        - { name: b, match: { vendor: 8746 }, bindings: [{ gesture: tap, run: x }] }
      """, line: 3, column: 5,
      "profile 'b' can never match: profile 'a' at line 2 has the same match")
  }

  @Test("an empty match would take every device, so it is refused")
  func emptyMatch() {
    expectOneError(
      "devices:\n  - { match: {}, bindings: [{ gesture: tap, run: x }] }\n", line: 2, column: 14,
      "'match' is empty",
      hint: "remove 'match'")
  }

  @Test("match: virtual is a boolean")
  func virtualMustBeABoolean() {
    expectOneError(
      "devices:\n  - { match: { virtual: maybe }, bindings: [{ gesture: tap, run: x }] }\n",
      line: 2, column: 25, "'virtual' must be true or false, not 'maybe'")
  }

  @Test("virtual: false and true parse into the match, without the key nil")
  func virtualParses() throws {
    let result = check(
      """
      devices:
        - { name: real, match: { virtual: false }, bindings: [{ gesture: tap, run: x }] }
        - { name: demo, match: { name: "gestured-touch*", virtual: true }, bindings: [{ gesture: tap, run: y }] }
        - { name: rest, bindings: [{ gesture: tap, run: z }] }
      """)
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    let profiles = try #require(result.configuration).profiles
    #expect(
      profiles.map(\.match) == [
        DeviceMatch(virtual: false), DeviceMatch(name: "gestured-touch*", virtual: true), nil,
      ])
  }

  @Test("devices and top-level bindings together are an error with a hint")
  func devicesAndShorthand() {
    expectOneError(
      """
      bindings: [{ gesture: tap, run: x }]
      devices:
        - { bindings: [{ gesture: tap, run: x }] }
      """, line: 1, column: 1, "top-level 'bindings' cannot be combined with 'devices:'",
      hint: "move 'bindings' into a device entry")
  }

  // MARK: Several errors

  @Test("every error of a file is reported, in file order")
  func severalErrors() throws {
    let result = check(
      """
      thresholds:
        long-press: 500
        tap-slp: 3mm
      regions:
        - { name: corner, area: { x: 0.95, y: 0, width: 0.1, height: 0.1 } }
      bindings:
        - gesture: tap
          taps: 0
          region: cornr
          run: a
        - gesture: swipe
          fingers: 6
          run: b
        - { gesture: pinch, direction: out, run: c }
        - { gesture: pinch, direction: out, run: d }
      """)
    #expect(result.configuration == nil)
    #expect(result.warnings.isEmpty)
    #expect(
      positions(result.errors) == [
        [2, 15], [3, 3], [5, 51], [8, 11], [9, 13], [11, 5], [12, 14], [15, 5],
      ],
      "\(result.errors.map(\.description))")
    let messages = result.errors.map(\.message)
    #expect(messages[0].contains("needs a unit"))
    #expect(messages[1].contains("unknown key 'tap-slp'"))
    #expect(messages[2].contains("x + width"))
    #expect(messages[3].contains("'taps' must be 1 to 100"))
    #expect(messages[4].contains("unknown region 'cornr'"))
    #expect(messages[5].contains("needs a 'direction'"))
    #expect(messages[6].contains("'fingers' must be 1 to 5"))
    #expect(messages[7].contains("repeats the one at line 14"))
  }

  @Test("diagnostics print as FILE:LINE:COL: error: message, with the hint below")
  func descriptionFormat() throws {
    let error = try #require(
      expectOneError(
        "bindings:\n  - { gesture: tapp, run: x }\n", line: 2, column: 16, "'tapp' is not a gesture"
      ))
    #expect(
      error.description
        == "test.yaml:2:16: error: 'tapp' is not a gesture\n  hint: did you mean 'tap'?")
  }

  // MARK: Warnings

  @Test("a profile without bindings is valid, with a warning at the entry")
  func profileWithoutBindings() throws {
    let result = check("devices:\n  - name: quiet\n")
    #expect(result.configuration != nil)
    #expect(result.errors.isEmpty)
    #expect(positions(result.warnings) == [[2, 5]])
    #expect(result.warnings.first?.message.contains("profile 'quiet' has no bindings") == true)
    #expect(result.warnings.first?.description.hasPrefix("test.yaml:2:5: warning: ") == true)
  }

  @Test("a region inside an earlier one can never be reached: a warning")
  func shadowedRegion() throws {
    let result = check(
      """
      regions:
        - { name: all }
        - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.1 } }
      bindings: [{ gesture: tap, region: corner, run: x }]
      """)
    #expect(result.configuration != nil)
    #expect(positions(result.warnings) == [[3, 5]])
    #expect(result.warnings.first?.message.contains("region 'corner' lies inside 'all'") == true)
  }

  @Test("an edge swipe towards its own edge: a warning at the edge")
  func edgeSwipeOffPanel() {
    let result = check("bindings:\n  - { gesture: swipe, direction: down, edge: bottom, run: x }\n")
    #expect(result.configuration != nil)
    #expect(positions(result.warnings) == [[2, 46]])
  }
}
