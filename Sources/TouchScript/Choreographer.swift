import GestureCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Where one contact is at one moment, in fractions of the panel as the device reports it.
struct Keyframe {
  var time: Microseconds
  var x: Double
  var y: Double
}

/// One contact from landing to lift: it moves in straight lines between its keyframes.
struct Track {
  /// The script line that made it, for errors.
  var line: Int
  /// What the script calls it, for errors: `finger 1`, `finger 2 of swipe`.
  var name: String
  /// Sorted by time; the first is the landing.
  var keyframes: [Keyframe]
  /// nil: still down when the recording ends.
  var up: Microseconds?

  var down: Microseconds { keyframes[0].time }
}

/// Turns the script's commands into contact tracks: primitives by their finger labels,
/// macros by their geometry.
struct Choreographer {
  let panel: Panel
  let samplePeriod: Microseconds
  /// Millimetres along the device's x and y axes.
  let width: Double
  let height: Double

  init(panel: Panel, samplePeriod: Microseconds) {
    self.panel = panel
    self.samplePeriod = samplePeriod
    let size = panel.millimetres
    width = size.width
    height = size.height
  }

  func tracks(for commands: [TouchCommand]) throws(TouchScriptError) -> [Track] {
    var tracks: [Track] = []
    var primitives: [Primitive] = []
    for command in commands {
      switch command {
      case .primitive(let primitive): primitives.append(primitive)
      case .tap(let tap): tracks += try self.tracks(for: tap)
      case .swipe(let swipe): tracks += try self.tracks(for: swipe)
      case .transform(let transform): tracks += try self.tracks(for: transform)
      }
    }
    tracks += try self.tracks(for: primitives)
    return tracks
  }

  // MARK: positions

  /// A script point plus an offset in millimetres → device fractions, checked to be on the
  /// panel.
  func resolve(
    _ point: ScriptPoint, dx: Double = 0, dy: Double = 0, line: Int, what: @autoclosure () -> String
  ) throws(TouchScriptError) -> (Double, Double) {
    let x = point.x.fraction + (point.x.millimetres + dx) / width
    let y = point.y.fraction + (point.y.millimetres + dy) / height
    try check(x, y, line: line, what: what())
    return (x, y)
  }

  func check(_ x: Double, _ y: Double, line: Int, what: @autoclosure () -> String)
    throws(TouchScriptError)
  {
    // A hair of slack: 0.5+64mm on a 128 mm panel must count as the edge, not beyond it.
    let slack = 1e-9
    guard x >= -slack, x <= 1 + slack, y >= -slack, y <= 1 + slack, x.isFinite, y.isFinite else {
      throw TouchScriptError(
        line: line,
        message:
          "\(what()) would be at (\(Approximate.format(x)), \(Approximate.format(y))), outside the panel (0..1)"
      )
    }
  }

  /// Finger `index` of `count` side by side along x, `spacing` mm apart, centred.
  func offset(_ index: Int, of count: Int, spacing: Double) -> Double {
    (Double(index) - Double(count - 1) / 2) * spacing
  }

  /// Ends a track at `time`, reaching `position` one sample before the lift (the lift frame
  /// itself reports no position), or halfway when the last keyframe is closer than that.
  func lift(
    _ track: inout Track, at time: Microseconds, position: (Double, Double)?, line: Int? = nil
  ) throws(TouchScriptError) {
    guard let last = track.keyframes.last,
      time > last.time || (time > track.down && position == nil)
    else {
      throw TouchScriptError(
        line: line ?? track.line,
        message: "\(track.name) lifts at \(time / 1000)ms, not after its last position")
    }
    if let (x, y) = position {
      let reach =
        time - samplePeriod > last.time ? time - samplePeriod : last.time + (time - last.time) / 2
      track.keyframes.append(Keyframe(time: reach, x: x, y: y))
    }
    track.up = time
  }

  // MARK: primitives

  func tracks(for primitives: [Primitive]) throws(TouchScriptError) -> [Track] {
    // Labels in order of first use; each label's commands in time order (stable, so two at
    // the same time keep their order in the file).
    var labels: [String] = []
    var byLabel: [String: [Primitive]] = [:]
    for primitive in primitives {
      if byLabel[primitive.label] == nil { labels.append(primitive.label) }
      byLabel[primitive.label, default: []].append(primitive)
    }
    var tracks: [Track] = []
    for label in labels {
      let sequence = stableSorted(byLabel[label] ?? []) { $0.time < $1.time }
      var current: Track? = nil
      for primitive in sequence {
        let name = "finger \(label)"
        var position: (Double, Double)? = nil
        if let point = primitive.point {
          position = try resolve(point, line: primitive.line, what: name)
        }
        switch primitive.action {
        case .down:
          if let open = current {
            throw TouchScriptError(
              line: primitive.line,
              message:
                "\(name) lands again at \(primitive.time / 1000)ms while down since line \(open.line)"
            )
          }
          guard let (x, y) = position else { continue }
          current = Track(
            line: primitive.line, name: name,
            keyframes: [Keyframe(time: primitive.time, x: x, y: y)])
        case .move:
          guard var track = current, let (x, y) = position else {
            throw TouchScriptError(
              line: primitive.line,
              message: "\(name) moves at \(primitive.time / 1000)ms but is not down")
          }
          track.keyframes.append(Keyframe(time: primitive.time, x: x, y: y))
          current = track
        case .up:
          guard var track = current else {
            throw TouchScriptError(
              line: primitive.line,
              message: "\(name) lifts at \(primitive.time / 1000)ms but is not down")
          }
          try lift(&track, at: primitive.time, position: position, line: primitive.line)
          tracks.append(track)
          current = nil
        }
      }
      if let open = current { tracks.append(open) }
    }
    return tracks
  }

  // MARK: macros

  func tracks(for tap: TapMacro) throws(TouchScriptError) -> [Track] {
    var tracks: [Track] = []
    for round in 0..<tap.taps {
      let start = tap.at + Microseconds(round) * (tap.duration + tap.gap)
      for finger in 0..<tap.fingers {
        let name = "finger \(finger + 1) of tap \(round + 1)"
        let dx = offset(finger, of: tap.fingers, spacing: tap.spacing)
        let (x, y) = try resolve(tap.position, dx: dx, line: tap.line, what: name)
        var track = Track(
          line: tap.line, name: name,
          keyframes: [Keyframe(time: start + Microseconds(finger) * tap.stagger, x: x, y: y)])
        var end: (Double, Double)? = nil
        if tap.move != (0, 0) {
          end = try resolve(
            tap.position, dx: dx + tap.move.0, dy: tap.move.1, line: tap.line,
            what: name + " after its move")
        }
        try lift(&track, at: start + tap.duration, position: end)
        tracks.append(track)
      }
    }
    return tracks
  }

  func tracks(for swipe: SwipeMacro) throws(TouchScriptError) -> [Track] {
    var tracks: [Track] = []
    let moveStart = swipe.at + Microseconds(swipe.fingers - 1) * swipe.stagger
    for finger in 0..<swipe.fingers {
      let name = "finger \(finger + 1) of swipe"
      let dx = offset(finger, of: swipe.fingers, spacing: swipe.spacing)
      let (x, y) = try resolve(swipe.from, dx: dx, line: swipe.line, what: name)
      let end: (Double, Double)
      if let to = swipe.to {
        end = try resolve(to, dx: dx, line: swipe.line, what: name + " at its end")
      } else {
        end = try resolve(
          swipe.from, dx: dx + swipe.by.0, dy: swipe.by.1, line: swipe.line,
          what: name + " at its end")
      }
      let landing = swipe.at + Microseconds(finger) * swipe.stagger
      var track = Track(
        line: swipe.line, name: name, keyframes: [Keyframe(time: landing, x: x, y: y)])
      // Early fingers rest until the last one has landed, then all move together.
      if moveStart > landing { track.keyframes.append(Keyframe(time: moveStart, x: x, y: y)) }
      try lift(&track, at: swipe.at + swipe.duration, position: end)
      tracks.append(track)
    }
    return tracks
  }

  func tracks(for transform: TransformMacro) throws(TouchScriptError) -> [Track] {
    let centerX = transform.center.x.fraction * width + transform.center.x.millimetres
    let centerY = transform.center.y.fraction * height + transform.center.y.millimetres
    let radians = Double.pi / 180
    // Millimetre positions of both fingers when the motion is `progress` (0...1) done.
    func fingers(at progress: Double) -> ((Double, Double), (Double, Double)) {
      let span = transform.startSpan + (transform.endSpan - transform.startSpan) * progress
      let angle = (transform.startAngle + transform.turn * progress) * radians
      let (ux, uy) = (cos(angle), sin(angle))
      let startAngle = transform.startAngle * radians
      let (sx, sy) = (cos(startAngle), sin(startAngle))
      switch transform.still {
      case 1:
        let first = (centerX - transform.startSpan / 2 * sx, centerY - transform.startSpan / 2 * sy)
        return (first, (first.0 + span * ux, first.1 + span * uy))
      case 2:
        let second = (
          centerX + transform.startSpan / 2 * sx, centerY + transform.startSpan / 2 * sy
        )
        return ((second.0 - span * ux, second.1 - span * uy), second)
      default:
        return (
          (centerX - span / 2 * ux, centerY - span / 2 * uy),
          (centerX + span / 2 * ux, centerY + span / 2 * uy)
        )
      }
    }
    let kind = transform.turn != 0 && transform.startSpan == transform.endSpan ? "rotate" : "pinch"
    let lift = transform.at + transform.duration
    let moveStart = transform.at + transform.stagger
    let moveEnd =
      lift - samplePeriod > moveStart ? lift - samplePeriod : moveStart + (lift - moveStart) / 2
    // Keyframes on every sample tick so that a turn follows its arc, not the chord.
    var times: [Microseconds] = [moveStart]
    var tick = (moveStart / samplePeriod + 1) * samplePeriod
    while tick < moveEnd {
      times.append(tick)
      tick += samplePeriod
    }
    if moveEnd > moveStart { times.append(moveEnd) }
    var first = Track(line: transform.line, name: "finger 1 of \(kind)", keyframes: [])
    var second = Track(line: transform.line, name: "finger 2 of \(kind)", keyframes: [])
    let (startFirst, startSecond) = fingers(at: 0)
    first.keyframes.append(
      Keyframe(time: transform.at, x: startFirst.0 / width, y: startFirst.1 / height))
    second.keyframes.append(
      Keyframe(time: moveStart, x: startSecond.0 / width, y: startSecond.1 / height))
    for time in times {
      let progress =
        moveEnd > moveStart ? Double(time - moveStart) / Double(moveEnd - moveStart) : 1
      let (a, b) = fingers(at: progress)
      let pa = (a.0 / width, a.1 / height)
      let pb = (b.0 / width, b.1 / height)
      try check(pa.0, pa.1, line: transform.line, what: "finger 1 of \(kind)")
      try check(pb.0, pb.1, line: transform.line, what: "finger 2 of \(kind)")
      first.keyframes.append(Keyframe(time: time, x: pa.0, y: pa.1))
      second.keyframes.append(Keyframe(time: time, x: pb.0, y: pb.1))
    }
    try self.lift(&first, at: lift, position: nil)
    try self.lift(&second, at: lift, position: nil)
    return [first, second]
  }
}

/// Sorting that keeps equal elements in their original order.
func stableSorted<T>(_ items: [T], by less: (T, T) -> Bool) -> [T] {
  items.enumerated().sorted { a, b in
    if less(a.element, b.element) { return true }
    if less(b.element, a.element) { return false }
    return a.offset < b.offset
  }.map(\.element)
}
