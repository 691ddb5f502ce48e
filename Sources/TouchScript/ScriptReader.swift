import GestureCore

/// What a primitive does to its finger.
enum TouchAction: String {
  case down, move, up
}

/// `at T down|move|up F [X Y]`.
struct Primitive {
  var line: Int
  var time: Microseconds
  var action: TouchAction
  var label: String
  var point: ScriptPoint?
}

/// `tap` and `hold`: fingers side by side that land, rest (or slide by `move`) and lift.
struct TapMacro {
  var line: Int
  var at: Microseconds
  var position: ScriptPoint
  var fingers = 1
  var stagger: Microseconds = 0
  var spacing = 15.0
  var duration: Microseconds
  var move = (0.0, 0.0)
  var taps = 1
  var gap: Microseconds = 150_000
}

/// `swipe` and `drag`: fingers side by side moving in a straight line.
struct SwipeMacro {
  var line: Int
  var at: Microseconds
  var from: ScriptPoint
  /// Either an end point or a displacement in millimetres.
  var to: ScriptPoint?
  var by = (0.0, 0.0)
  var fingers = 1
  var stagger: Microseconds = 0
  var spacing = 15.0
  var duration: Microseconds
}

/// `pinch` and `rotate`: two fingers whose distance and angle change together.
struct TransformMacro {
  var line: Int
  var at: Microseconds
  var center: ScriptPoint
  var startSpan: Double
  var endSpan: Double
  /// Direction from finger 1 to finger 2 at the start, degrees clockwise from +x.
  var startAngle = 0.0
  /// Degrees turned, clockwise positive (screen coordinates, y down).
  var turn = 0.0
  /// 0: both fingers move around the center; 1 or 2: that finger stays where it landed.
  var still = 0
  var stagger: Microseconds = 0
  var duration: Microseconds
}

enum TouchCommand {
  case primitive(Primitive)
  case tap(TapMacro)
  case swipe(SwipeMacro)
  case transform(TransformMacro)
}

/// Reads a script line by line; `finish` turns what it read into a `TouchScript`.
struct ScriptReader {
  var panel: Panel?
  var seed: UInt64 = 1
  var jitter = 0.0
  var rate = 100.0
  var end: Microseconds?
  var configuration: String?
  var commands: [TouchCommand] = []
  var expectations: [Expectation] = []
  var expectNothingLine = 0
  var streamExpectations: [StreamExpectation] = []
  var expectNoStreamLine = 0
  var seen: [String: Int] = [:]

  static let commandNames = [
    "panel", "seed", "jitter", "rate", "config", "end", "at", "tap", "hold", "swipe", "drag",
    "pinch", "rotate", "expect",
  ]

  mutating func read(_ line: ScriptLine) throws(TouchScriptError) {
    guard let command = line.words.first else { return }
    let rest = line.words.dropFirst()
    let n = line.number
    func once() throws(TouchScriptError) {
      if let first = seen[command] {
        throw TouchScriptError(
          line: n, message: "second '\(command)' line (the first is on line \(first))")
      }
      seen[command] = n
    }
    func single(_ what: String) throws(TouchScriptError) -> String {
      guard rest.count == 1, let word = rest.first else {
        throw TouchScriptError(line: n, message: "\(command): expected one value, \(what)")
      }
      return word
    }
    switch command {
    case "panel":
      try once()
      panel = try readPanel(line)
    case "seed":
      try once()
      let word = try single("e.g. seed 42")
      guard let value = UInt64(word) else {
        throw TouchScriptError(line: n, message: "seed: expected a whole number, found '\(word)'")
      }
      seed = value
    case "jitter":
      try once()
      let word = try single("e.g. jitter 0.3mm")
      guard let value = ScriptValue.length(word), value >= 0, value <= 10 else {
        throw TouchScriptError(
          line: n, message: "jitter: expected a length from 0 to 10mm (e.g. 0.3mm), found '\(word)'"
        )
      }
      jitter = value
    case "rate":
      try once()
      let word = try single("e.g. rate 100hz")
      guard let value = ScriptValue.rate(word) else {
        throw TouchScriptError(
          line: n, message: "rate: expected samples per second from 1hz to 10000hz, found '\(word)'"
        )
      }
      rate = value
    case "config":
      try once()
      configuration = try single("the config file, e.g. config taps.yaml")
    case "end":
      try once()
      let word = try single("e.g. end 3s")
      guard let value = ScriptValue.duration(word) else {
        throw TouchScriptError(line: n, message: "end: expected a time such as 3s, found '\(word)'")
      }
      end = value
    case "at":
      commands.append(.primitive(try readPrimitive(line)))
    case "tap", "hold":
      commands.append(.tap(try readTap(line, hold: command == "hold")))
    case "swipe", "drag":
      commands.append(.swipe(try readSwipe(line, drag: command == "drag")))
    case "pinch", "rotate":
      commands.append(.transform(try readTransform(line, rotate: command == "rotate")))
    case "expect":
      try readExpectation(line)
    default:
      throw TouchScriptError(
        line: n,
        message:
          "unknown command '\(command)'; expected one of \(Self.commandNames.joined(separator: ", "))"
      )
    }
  }

  // MARK: panel

  func readPanel(_ line: ScriptLine) throws(TouchScriptError) -> Panel {
    let words = line.words.dropFirst()
    guard let kindWord = words.first else {
      throw TouchScriptError(
        line: line.number,
        message:
          "panel: expected a kind first: \(PanelKind.allCases.map(\.rawValue).joined(separator: ", "))"
      )
    }
    guard let kind = PanelKind(rawValue: kindWord) else {
      throw TouchScriptError(
        line: line.number,
        message:
          "panel: unknown kind '\(kindWord)'; expected \(PanelKind.allCases.map(\.rawValue).joined(separator: ", "))"
      )
    }
    var panel = Panel(kind: kind)
    var arguments = try Arguments(line: line.number, command: "panel", words: words.dropFirst())
    let known = [
      "name", "bus", "vendor", "product", "version", "x", "y", "resolution", "x-resolution",
      "y-resolution", "slots", "direct", "pointer", "size", "touch-major", "major-resolution", "tool-type",
    ]
    if let name = arguments.take("name") {
      guard !name.isEmpty, !name.contains(where: { $0.isNewline }) else {
        throw arguments.error("name must be one non-empty line")
      }
      panel.name = name
    }
    for (key, keyPath) in [
      ("bus", \Panel.bus), ("vendor", \.vendor), ("product", \.product), ("version", \.version),
    ] {
      if let text = arguments.take(key) {
        guard let value = ScriptValue.integer(text, in: 0...0xFFFF) else {
          throw arguments.error("\(key) must be 0..0xffff, found '\(text)'")
        }
        panel[keyPath: keyPath] = UInt16(value)
      }
    }
    for (key, keyPath) in [("x", \Panel.xAxis), ("y", \.yAxis)] {
      if let text = arguments.take(key) {
        guard let (low, high) = ScriptValue.range(text) else {
          throw arguments.error(
            "\(key) must be a range MIN..MAX with MIN < MAX, e.g. 0..4095; found '\(text)'")
        }
        panel[keyPath: keyPath].minimum = low
        panel[keyPath: keyPath].maximum = high
      }
    }
    func resolution(_ key: String) throws(TouchScriptError) -> Int32? {
      var arguments = arguments
      guard let text = arguments.take(key) else { return nil }
      guard let value = ScriptValue.integer(text, in: 0...100_000) else {
        throw arguments.error("\(key) must be units per millimetre, 0..100000; found '\(text)'")
      }
      return Int32(value)
    }
    if let both = try resolution("resolution") {
      panel.xAxis.resolution = both
      panel.yAxis.resolution = both
    }
    if let x = try resolution("x-resolution") { panel.xAxis.resolution = x }
    if let y = try resolution("y-resolution") { panel.yAxis.resolution = y }
    _ = arguments.take("resolution")
    _ = arguments.take("x-resolution")
    _ = arguments.take("y-resolution")
    if let text = arguments.take("slots") {
      guard kind == .multitouchB else { throw arguments.error("slots only applies to mt-b panels") }
      guard let value = ScriptValue.integer(text, in: 1...64) else {
        throw arguments.error("slots must be 1..64, found '\(text)'")
      }
      panel.slots = Int(value)
    }
    if let text = arguments.take("touch-major") {
      guard kind == .multitouchB else { throw arguments.error("touch-major only applies to mt-b panels") }
      guard let (low, high) = ScriptValue.range(text) else {
        throw arguments.error("touch-major must be a range MIN..MAX with MIN < MAX, e.g. 0..255; found '\(text)'")
      }
      panel.touchMajor = AxisInfo(minimum: low, maximum: high)
    }
    if let major = try resolution("major-resolution") {
      guard panel.touchMajor != nil else { throw arguments.error("major-resolution needs touch-major") }
      panel.touchMajor?.resolution = major
    }
    _ = arguments.take("major-resolution")
    for (key, keyPath) in [("direct", \Panel.direct), ("pointer", \.pointerEmulation), ("tool-type", \.toolType)] {
      if let text = arguments.take(key) {
        guard text == "yes" || text == "no" else {
          throw arguments.error("\(key) must be yes or no, found '\(text)'")
        }
        panel[keyPath: keyPath] = text == "yes"
      }
    }
    if panel.toolType && kind != .multitouchB { throw arguments.error("tool-type only applies to mt-b panels") }
    if panel.pointerEmulation && !kind.isMultitouch {
      panel.pointerEmulation = false
    }
    if let text = arguments.take("size") {
      guard let size = ScriptValue.size(text) else {
        throw arguments.error("size must be WIDTHxHEIGHTmm, e.g. 344x194mm; found '\(text)'")
      }
      panel.declaredSize = size
    }
    try arguments.rejectUnused(known: known)
    return panel
  }

  // MARK: touches

  func readPrimitive(_ line: ScriptLine) throws(TouchScriptError) -> Primitive {
    let words = Array(line.words.dropFirst())
    let n = line.number
    let usage = "expected at TIME down|move|up FINGER [X Y], e.g. at 80ms down 1 0.5 0.5"
    guard words.count >= 3 else { throw TouchScriptError(line: n, message: "at: \(usage)") }
    guard let time = ScriptValue.duration(words[0]) else {
      throw TouchScriptError(
        line: n, message: "at: expected a time such as 80ms or 1.5s, found '\(words[0])'")
    }
    guard let action = TouchAction(rawValue: words[1]) else {
      throw TouchScriptError(line: n, message: "at: expected down, move or up, found '\(words[1])'")
    }
    let label = words[2]
    var point: ScriptPoint? = nil
    switch words.count {
    case 3:
      if action != .up {
        throw TouchScriptError(
          line: n, message: "at: \(action.rawValue) needs a position: \(usage)")
      }
    case 5:
      guard let x = ScriptValue.coordinate(words[3][...]),
        let y = ScriptValue.coordinate(words[4][...])
      else {
        throw TouchScriptError(
          line: n,
          message:
            "at: expected a position such as 0.5 0.25 or 0.5+8mm 0.25, found '\(words[3]) \(words[4])'"
        )
      }
      point = ScriptPoint(x: x, y: y)
    default:
      throw TouchScriptError(line: n, message: "at: \(usage)")
    }
    return Primitive(line: n, time: time, action: action, label: label, point: point)
  }

  static func require<T>(
    _ arguments: inout Arguments, _ key: String, _ what: String, _ read: (String) -> T?
  ) throws(TouchScriptError) -> T {
    guard let text = arguments.take(key) else { throw arguments.error("missing \(key)= (\(what))") }
    guard let value = read(text) else {
      throw arguments.error("\(key) must be \(what), found '\(text)'")
    }
    return value
  }

  static func optional<T>(
    _ arguments: inout Arguments, _ key: String, _ what: String, _ read: (String) -> T?
  ) throws(TouchScriptError) -> T? {
    guard let text = arguments.take(key) else { return nil }
    guard let value = read(text) else {
      throw arguments.error("\(key) must be \(what), found '\(text)'")
    }
    return value
  }

  static func fingers(_ text: String) -> Int? {
    ScriptValue.integer(text, in: 1...10).map { Int($0) }
  }

  static let durationText = "a time such as 80ms"
  static let lengthText = "a length such as 15mm"

  func readTap(_ line: ScriptLine, hold: Bool) throws(TouchScriptError) -> TapMacro {
    let command = hold ? "hold" : "tap"
    var arguments = try Arguments(
      line: line.number, command: command, words: line.words.dropFirst())
    let at = try Self.require(&arguments, "at", Self.durationText, ScriptValue.duration)
    let x = try Self.require(&arguments, "x", "a position such as 0.5 or 0.5+8mm") {
      ScriptValue.coordinate($0[...])
    }
    let y = try Self.require(&arguments, "y", "a position such as 0.5 or 0.5+8mm") {
      ScriptValue.coordinate($0[...])
    }
    var tap = TapMacro(
      line: line.number, at: at, position: ScriptPoint(x: x, y: y),
      duration: hold ? 800_000 : 80_000)
    tap.fingers = try Self.optional(&arguments, "fingers", "1..10", Self.fingers) ?? 1
    tap.stagger =
      try Self.optional(&arguments, "stagger", Self.durationText, ScriptValue.duration) ?? 0
    tap.spacing =
      try Self.optional(&arguments, "spacing", Self.lengthText, ScriptValue.length) ?? 15
    tap.duration =
      try Self.optional(&arguments, "duration", Self.durationText, ScriptValue.duration)
      ?? tap.duration
    tap.move =
      try Self.optional(&arguments, "move", "a displacement such as 2mm,0", ScriptValue.vector) ?? (
        0, 0
      )
    tap.taps =
      try Self.optional(&arguments, "taps", "1..20") {
        ScriptValue.integer($0, in: 1...20).map { Int($0) }
      } ?? 1
    tap.gap =
      try Self.optional(&arguments, "gap", Self.durationText, ScriptValue.duration) ?? tap.gap
    try arguments.rejectUnused(known: [
      "at", "x", "y", "fingers", "stagger", "spacing", "duration", "move", "taps", "gap",
    ])
    try Self.checkLanding(
      arguments, fingers: tap.fingers, stagger: tap.stagger, duration: tap.duration)
    if tap.taps > 1 && tap.gap == 0 {
      throw arguments.error("gap must be more than 0 between taps")
    }
    return tap
  }

  /// Every finger must land before the lift.
  static func checkLanding(
    _ arguments: Arguments, fingers: Int, stagger: Microseconds, duration: Microseconds
  ) throws(TouchScriptError) {
    if duration == 0 { throw arguments.error("duration must be more than 0") }
    if stagger * Microseconds(fingers - 1) >= duration {
      throw arguments.error(
        "the last finger would land at or after the lift: stagger × (fingers − 1) must be less than duration"
      )
    }
  }

  func readSwipe(_ line: ScriptLine, drag: Bool) throws(TouchScriptError) -> SwipeMacro {
    let command = drag ? "drag" : "swipe"
    var arguments = try Arguments(
      line: line.number, command: command, words: line.words.dropFirst())
    let at = try Self.require(&arguments, "at", Self.durationText, ScriptValue.duration)
    let from = try Self.require(&arguments, "from", "a position such as 0.5,0.8", ScriptValue.point)
    var swipe = SwipeMacro(
      line: line.number, at: at, from: from, duration: drag ? 2_000_000 : 300_000)
    swipe.to = try Self.optional(&arguments, "to", "a position such as 0.5,0.2", ScriptValue.point)
    let by = try Self.optional(
      &arguments, "by", "a displacement such as 0,-40mm", ScriptValue.vector)
    if (swipe.to == nil) == (by == nil) {
      throw arguments.error(
        "give exactly one of to= (an end position) and by= (a displacement in mm)")
    }
    swipe.by = by ?? (0, 0)
    swipe.fingers = try Self.optional(&arguments, "fingers", "1..10", Self.fingers) ?? 1
    swipe.stagger =
      try Self.optional(&arguments, "stagger", Self.durationText, ScriptValue.duration) ?? 0
    swipe.spacing =
      try Self.optional(&arguments, "spacing", Self.lengthText, ScriptValue.length) ?? 15
    swipe.duration =
      try Self.optional(&arguments, "duration", Self.durationText, ScriptValue.duration)
      ?? swipe.duration
    try arguments.rejectUnused(known: [
      "at", "from", "to", "by", "fingers", "stagger", "spacing", "duration",
    ])
    try Self.checkLanding(
      arguments, fingers: swipe.fingers, stagger: swipe.stagger, duration: swipe.duration)
    return swipe
  }

  func readTransform(_ line: ScriptLine, rotate: Bool) throws(TouchScriptError) -> TransformMacro {
    let command = rotate ? "rotate" : "pinch"
    var arguments = try Arguments(
      line: line.number, command: command, words: line.words.dropFirst())
    let at = try Self.require(&arguments, "at", Self.durationText, ScriptValue.duration)
    let center = try Self.require(
      &arguments, "center", "a position such as 0.5,0.5", ScriptValue.point)
    let positive: (String) -> Double? = { ScriptValue.length($0).flatMap { $0 > 0 ? $0 : nil } }
    let spanText = "a distance between the fingers such as 40mm"
    var transform: TransformMacro
    if rotate {
      let span = try Self.require(&arguments, "span", spanText, positive)
      let turn = try Self.require(
        &arguments, "by", "an angle such as 30deg or -30deg", ScriptValue.angle)
      let end = try Self.optional(&arguments, "to", spanText, positive) ?? span
      transform = TransformMacro(
        line: line.number, at: at, center: center, startSpan: span, endSpan: end, turn: turn,
        duration: 400_000)
    } else {
      let from = try Self.require(&arguments, "from", spanText, positive)
      let to = try Self.require(&arguments, "to", spanText, positive)
      let turn =
        try Self.optional(&arguments, "by", "an angle such as 30deg", ScriptValue.angle) ?? 0
      transform = TransformMacro(
        line: line.number, at: at, center: center, startSpan: from, endSpan: to, turn: turn,
        duration: 400_000)
    }
    transform.startAngle =
      try Self.optional(&arguments, "angle", "an angle such as 90deg", ScriptValue.angle) ?? 0
    transform.still =
      try Self.optional(&arguments, "still", "1 or 2") {
        ScriptValue.integer($0, in: 1...2).map { Int($0) }
      } ?? 0
    transform.stagger =
      try Self.optional(&arguments, "stagger", Self.durationText, ScriptValue.duration) ?? 0
    transform.duration =
      try Self.optional(&arguments, "duration", Self.durationText, ScriptValue.duration)
      ?? transform.duration
    let known =
      rotate
      ? ["at", "center", "span", "by", "to", "angle", "still", "stagger", "duration"]
      : ["at", "center", "from", "to", "by", "angle", "still", "stagger", "duration"]
    try arguments.rejectUnused(known: known)
    try Self.checkLanding(
      arguments, fingers: 2, stagger: transform.stagger, duration: transform.duration)
    return transform
  }

  // MARK: expectations

  mutating func readExpectation(_ line: ScriptLine) throws(TouchScriptError) {
    let words = line.words.dropFirst()
    let n = line.number
    guard let first = words.first else {
      throw TouchScriptError(
        line: n,
        message:
          "expect: expected a gesture (\(GestureKind.allCases.map(\.rawValue).joined(separator: ", "))) or nothing"
      )
    }
    if first == "stream" {
      try readStreamExpectation(line)
      return
    }
    if first == "nothing" {
      guard words.count == 1 else {
        throw TouchScriptError(line: n, message: "expect nothing: takes no keys")
      }
      if !expectations.isEmpty || expectNothingLine != 0 {
        throw TouchScriptError(
          line: n, message: "expect nothing: cannot be combined with other expect lines")
      }
      expectNothingLine = n
      return
    }
    if expectNothingLine != 0 {
      throw TouchScriptError(
        line: n, message: "expect: line \(expectNothingLine) already says expect nothing")
    }
    guard let gesture = GestureKind(rawValue: first) else {
      throw TouchScriptError(
        line: n,
        message:
          "expect: unknown gesture '\(first)'; expected \(GestureKind.allCases.map(\.rawValue).joined(separator: ", ")) or nothing"
      )
    }
    var expectation = Expectation(line: n, gesture: gesture)
    var arguments = try Arguments(line: n, command: "expect", words: words.dropFirst())
    expectation.binding = arguments.take("binding")
    expectation.profile = arguments.take("profile")
    if let region = arguments.take("region") {
      expectation.region = .some(region == "none" ? nil : region)
    }
    let count: (String) -> Int? = { ScriptValue.integer($0, in: 1...100).map { Int($0) } }
    expectation.fingers = try Self.optional(&arguments, "fingers", "a count such as 2", count)
    expectation.taps = try Self.optional(&arguments, "taps", "a count such as 2", count)
    expectation.direction = try Self.optional(
      &arguments, "direction", Direction.allCases.map(\.rawValue).joined(separator: ", "),
      Direction.init(rawValue:))
    let seconds: (String) -> Double? = { text in
      if let micros = ScriptValue.duration(text), text.hasSuffix("s") {
        return Double(micros) / 1_000_000
      }
      return ScriptValue.number(text)
    }
    expectation.time = try Self.optional(
      &arguments, "time", "seconds such as 0.38±0.02 or 380ms±20ms"
    ) {
      ScriptValue.approximate($0, defaultTolerance: Expectation.defaultTimeTolerance, read: seconds)
    }
    expectation.step = try Self.optional(&arguments, "step", "a count such as 2", count)
    expectation.steps = try Self.optional(&arguments, "steps", "a count such as 4", count)
    expectation.end = try Self.optional(&arguments, "end", "yes or no") { ["yes": true, "no": false][$0] }
    for (key, keyPath, tolerance) in [
      ("x", \Expectation.x, Expectation.defaultPositionTolerance),
      ("y", \.y, Expectation.defaultPositionTolerance),
      ("scale", \.scale, Expectation.defaultScaleTolerance),
      ("dx", \.dx, Expectation.defaultOffsetTolerance),
      ("dy", \.dy, Expectation.defaultOffsetTolerance),
    ] {
      expectation[keyPath: keyPath] = try Self.optional(
        &arguments, key, "a number such as 0.5±0.01"
      ) {
        ScriptValue.approximate($0, defaultTolerance: tolerance, read: ScriptValue.number)
      }
    }
    expectation.angle = try Self.optional(&arguments, "angle", "degrees such as 15±3") {
      ScriptValue.approximate($0, defaultTolerance: Expectation.defaultAngleTolerance) {
        ScriptValue.angle($0) ?? ScriptValue.number($0)
      }
    }
    try arguments.rejectUnused(known: [
      "binding", "profile", "region", "fingers", "taps", "direction", "time", "x", "y", "scale",
      "angle", "step", "steps", "end", "dx", "dy",
    ])
    expectations.append(expectation)
  }

  /// `expect stream GESTURE PHASE key=value…` or `expect stream nothing`.
  mutating func readStreamExpectation(_ line: ScriptLine) throws(TouchScriptError) {
    let words = line.words.dropFirst(2)
    let n = line.number
    let kinds = Self.streamKinds.map(\.rawValue).joined(separator: ", ")
    let phases = GestureStreamEvent.Phase.allCases.map(\.rawValue).joined(separator: ", ")
    guard let first = words.first else {
      throw TouchScriptError(line: n, message: "expect stream: expected a gesture (\(kinds)) or nothing")
    }
    if first == "nothing" {
      guard words.count == 1 else { throw TouchScriptError(line: n, message: "expect stream nothing: takes no keys") }
      if !streamExpectations.isEmpty || expectNoStreamLine != 0 {
        throw TouchScriptError(
          line: n, message: "expect stream nothing: cannot be combined with other expect stream lines")
      }
      expectNoStreamLine = n
      return
    }
    if expectNoStreamLine != 0 {
      throw TouchScriptError(
        line: n, message: "expect stream: line \(expectNoStreamLine) already says expect stream nothing")
    }
    guard let gesture = GestureKind(rawValue: first), Self.streamKinds.contains(gesture) else {
      throw TouchScriptError(
        line: n, message: "expect stream: '\(first)' has no stream; expected \(kinds) or nothing")
    }
    let phaseWord = words.dropFirst().first
    guard let phaseWord, let phase = GestureStreamEvent.Phase(rawValue: phaseWord) else {
      throw TouchScriptError(
        line: n, message: "expect stream \(first): expected a phase (\(phases)), found '\(phaseWord ?? "")'")
    }
    var expectation = StreamExpectation(line: n, gesture: gesture, phase: phase)
    var arguments = try Arguments(line: n, command: "expect stream", words: words.dropFirst(2))
    if let region = arguments.take("region") {
      expectation.region = .some(region == "none" ? nil : region)
    }
    expectation.fingers = try Self.optional(&arguments, "fingers", "a count such as 2") {
      ScriptValue.integer($0, in: 1...100).map { Int($0) }
    }
    expectation.reason = try Self.optional(
      &arguments, "reason", EndReason.allCases.map(\.rawValue).joined(separator: ", "), EndReason.init(rawValue:))
    expectation.time = try Self.optional(&arguments, "time", "seconds such as 0.38±0.02 or 380ms±20ms") {
      ScriptValue.approximate($0, defaultTolerance: Expectation.defaultTimeTolerance, read: Self.seconds)
    }
    let numbers: [(String, WritableKeyPath<StreamExpectation, Approximate?>, Double, String)] = [
      ("cx", \.cx, Expectation.defaultPositionTolerance, "a fraction such as 0.5±0.01"),
      ("cy", \.cy, Expectation.defaultPositionTolerance, "a fraction such as 0.5±0.01"),
      ("dx", \.dx, Expectation.defaultOffsetTolerance, "millimetres such as 60±2"),
      ("dy", \.dy, Expectation.defaultOffsetTolerance, "millimetres such as 60±2"),
      ("scale", \.scale, Expectation.defaultScaleTolerance, "a number such as 2±0.05"),
      ("angle", \.angle, Expectation.defaultAngleTolerance, "degrees such as 90±3"),
      ("vx", \.vx, StreamExpectation.defaultSpeedTolerance, "mm/s such as 150±20"),
      ("vy", \.vy, StreamExpectation.defaultSpeedTolerance, "mm/s such as 150±20"),
      ("vscale", \.vscale, StreamExpectation.defaultScaleRateTolerance, "a rate per second such as 2.5±0.5"),
      ("vangle", \.vangle, StreamExpectation.defaultAngleRateTolerance, "degrees per second such as 200±30"),
    ]
    for (key, keyPath, tolerance, what) in numbers {
      expectation[keyPath: keyPath] = try Self.optional(&arguments, key, what) {
        ScriptValue.approximate($0, defaultTolerance: tolerance) { text in
          key.hasSuffix("angle") ? ScriptValue.angle(text) ?? ScriptValue.number(text) : ScriptValue.number(text)
        }
      }
    }
    expectation.count = try Self.optional(&arguments, "count", "a count such as 1 or a range such as 10..40") {
      Self.countRange($0)
    }
    try arguments.rejectUnused(known: ["region", "fingers", "reason", "time"] + numbers.map(\.0) + ["count"])
    streamExpectations.append(expectation)
  }

  /// The kinds that report a stream.
  static let streamKinds: [GestureKind] = [.pan, .pinch, .rotate, .longPress]

  /// Seconds, written `0.38` or `380ms`.
  static func seconds(_ text: String) -> Double? {
    if let micros = ScriptValue.duration(text), text.hasSuffix("s") { return Double(micros) / 1_000_000 }
    return ScriptValue.number(text)
  }

  /// `3` or `10..40`, 0 to 1000000.
  static func countRange(_ text: String) -> ClosedRange<Int>? {
    let limits: ClosedRange<Int64> = 0...1_000_000
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    if parts.count == 1 { return ScriptValue.integer(text, in: limits).map { Int($0)...Int($0) } }
    guard parts.count == 3, parts[1].isEmpty, let low = ScriptValue.integer(String(parts[0]), in: limits),
      let high = ScriptValue.integer(String(parts[2]), in: limits), low <= high
    else { return nil }
    return Int(low)...Int(high)
  }

  // MARK: finish

  func finish(file: String, lineCount: Int) throws(TouchScriptError) -> TouchScript {
    guard let panel else {
      throw TouchScriptError(
        line: 1,
        message:
          "no panel line; a script starts with e.g. panel mt-b x=0..4095 y=0..2303 resolution=16")
    }
    let period = Microseconds((1_000_000 / rate).rounded())
    let choreographer = Choreographer(panel: panel, samplePeriod: period)
    let tracks = try choreographer.tracks(for: commands)
    var emitter = KernelEmitter(
      panel: panel, samplePeriod: period, jitter: jitter, random: SplitMix64(seed: seed))
    let events = try emitter.events(for: tracks, end: end)
    return TouchScript(
      file: file, panel: panel, device: panel.device, events: events, expectations: expectations,
      expectsNothing: expectNothingLine != 0, streamExpectations: streamExpectations,
      expectsNoStream: expectNoStreamLine != 0, configuration: configuration, seed: seed, jitter: jitter,
      samplePeriod: period)
  }
}
