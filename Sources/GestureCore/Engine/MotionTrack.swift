/// One frame of a sequence's fingers, in the quantities whose differences are the stream's
/// values and rates.
struct MotionSample: Equatable {
  var time: Timestamp
  /// The fingers' centroid, mm from the panel's top left as the user sees it.
  var x: Double
  var y: Double
  /// The finger distance, mm (see `MotionTrack.span`).
  var span: Double
  /// Degrees turned since the track's reference, clockwise positive, unwrapped.
  var turn: Double
}

/// How fast each quantity of `MotionSample` changes, per second.
struct MotionRates: Equatable {
  var x = 0.0
  var y = 0.0
  var span = 0.0
  var turn = 0.0
}

/// A sequence's last frames in a ring of fixed capacity (allocated once), and their rates
/// over the last `window`.
///
/// A rate is the change from the quantity `window` before the newest sample to the newest,
/// divided by `window`. Between two frames more than `restGap` apart the fingers are taken
/// to have rested (a panel reports nothing while nothing moves), so the earlier frame's
/// values hold until the later; closer frames are interpolated. With no sample that old
/// (the sequence is younger, or the ring is full of faster frames) the oldest sample is the
/// start and the real time since it the divisor.
struct MotionSampler {
  static let capacity = 64
  static let window: Microseconds = 100_000
  static let restGap: Microseconds = 40_000

  private var samples: [MotionSample]
  /// Where the oldest sample is, and how many there are.
  private var first = 0
  private(set) var count = 0

  init() {
    samples = Array(
      repeating: MotionSample(time: Timestamp(microseconds: 0), x: 0, y: 0, span: 0, turn: 0), count: Self.capacity)
  }

  mutating func removeAll() {
    first = 0
    count = 0
  }

  /// Adds a sample; a sample at the newest one's time replaces it (one frame, one sample).
  mutating func append(_ sample: MotionSample) {
    if count > 0, self[count - 1].time == sample.time {
      samples[(first + count - 1) % Self.capacity] = sample
    } else if count < Self.capacity {
      samples[(first + count) % Self.capacity] = sample
      count += 1
    } else {
      samples[first] = sample
      first = (first + 1) % Self.capacity
    }
  }

  /// The `i`-th sample, oldest first.
  subscript(i: Int) -> MotionSample { samples[(first + i) % Self.capacity] }

  var newest: MotionSample? { count > 0 ? self[count - 1] : nil }

  /// The rates at the newest sample; all 0 with fewer than two samples.
  func rates() -> MotionRates {
    guard count >= 2 else { return MotionRates() }
    let now = self[count - 1]
    let windowStart = now.time + -Self.window
    // The newest sample at or before the window's start, if the ring holds one.
    var before = count - 2
    while before >= 0, self[before].time > windowStart { before -= 1 }
    let start: MotionSample
    let seconds: Double
    if before < 0 {
      start = self[0]
      seconds = Double(now.time - start.time) / 1_000_000
    } else {
      start = Self.value(at: windowStart, between: self[before], and: self[before + 1])
      seconds = Double(Self.window) / 1_000_000
    }
    guard seconds > 0 else { return MotionRates() }
    return MotionRates(
      x: (now.x - start.x) / seconds, y: (now.y - start.y) / seconds, span: (now.span - start.span) / seconds,
      turn: (now.turn - start.turn) / seconds)
  }

  /// The quantities at `time`, from the frames around it (see the type's comment).
  private static func value(at time: Timestamp, between a: MotionSample, and b: MotionSample) -> MotionSample {
    let gap = b.time - a.time
    guard gap > 0, gap <= restGap, time > a.time else { return a }
    let t = Double(time - a.time) / Double(gap)
    func lerp(_ u: Double, _ v: Double) -> Double { u + (v - u) * t }
    return MotionSample(
      time: time, x: lerp(a.x, b.x), y: lerp(a.y, b.y), span: lerp(a.span, b.span), turn: lerp(a.turn, b.turn))
  }
}

/// What the continuous measures read of one frame of the track.
struct MotionFrame {
  /// The centroid's offset from the reference, mm.
  var dx: Double
  var dy: Double
  var span: Double
  var turn: Double
}

/// Where a continuous gesture's values are measured from: the track at one moment.
struct MotionReference: Equatable {
  var centroid: Point
  var span: Double
  var turn: Double
}

/// A touch sequence's fingers followed frame by frame, measured from its reference (where
/// the fingers were when its last finger landed): the one measurement that the continuous
/// gestures' step levels, the stream's values and the swipe's release speed all read.
///
/// Only what someone reads is followed (`quantities`): a pan binding costs the centroid, a
/// pinch the span, a rotation the turn, and the rates (the sampler) are kept only for the
/// stream or `swipe-min-speed`.
struct MotionTrack {
  struct Quantities: OptionSet {
    let rawValue: UInt8
    static let centroid = Quantities(rawValue: 1)
    static let span = Quantities(rawValue: 2)
    static let turn = Quantities(rawValue: 4)
    /// The sampler: rates, and every quantity, since a sample holds them all.
    static let rates = Quantities(rawValue: 8)
    static let all: Quantities = [.centroid, .span, .turn, .rates]
  }

  var quantities: Quantities = []

  /// What the measures of `kinds` read.
  static func quantities(for kinds: GestureKindSet) -> Quantities {
    var needs = Quantities()
    if kinds.contains(.pan) { needs.insert(.centroid) }
    if kinds.contains(.pinch) { needs.insert(.span) }
    if kinds.contains(.rotate) { needs.insert(.turn) }
    return needs
  }
  /// Valid after `restart`: the reference of the sequence's continuous gestures.
  private(set) var reference = MotionReference(centroid: Point(x: 0, y: 0), span: 0, turn: 0)
  /// The fingers' centroid (each counted finger, lifted ones where they lifted), and its
  /// offset from the reference's in mm.
  private(set) var centroid = Point(x: 0, y: 0)
  private(set) var dx = 0.0
  private(set) var dy = 0.0
  /// Two fingers: the distance between them; more: their mean distance from the centroid
  /// (mm); one finger: 0.
  private(set) var span = 0.0
  /// Degrees the line from the first finger to the second has turned since the reference,
  /// clockwise positive, followed frame to frame so that turns past 180° count.
  private(set) var turn = 0.0
  /// The line from the first finger to the second (mm) when `turn` was last followed.
  private var lastLine = (dx: 0.0, dy: 0.0)
  private(set) var sampler = MotionSampler()

  /// The fingers' count changed before the count was fixed: everything is measured afresh
  /// from where they are now.
  /// Measures only what `quantities` asks for, as `follow` does.
  mutating func restart(_ fingers: SequenceFingers, geometry: PanelGeometry, at time: Timestamp) {
    guard !quantities.isEmpty else { return }
    let all = quantities.contains(.rates)
    sampler.removeAll()
    turn = 0
    dx = 0
    dy = 0
    if (all || quantities.contains(.turn)) && fingers.count >= 2 { lastLine = Self.line(fingers, geometry) }
    centroid = Self.centroid(fingers)
    span = all || quantities.contains(.span) ? Self.span(fingers, centroid: centroid, geometry: geometry) : 0
    reference = MotionReference(centroid: centroid, span: span, turn: 0)
    if all { sampler.append(sample(at: time, geometry: geometry)) }
  }

  /// Follows one frame. Inlined into the arbiter's frame, so that the geometry is read in
  /// place rather than passed.
  @inline(__always)
  mutating func follow(_ fingers: SequenceFingers, geometry: PanelGeometry, at time: Timestamp) {
    let all = quantities.contains(.rates)
    if fingers.count == 2 {
      followTwo(fingers[0].current, fingers[1].current, geometry: geometry, all: all)
    } else {
      followOthers(fingers, geometry: geometry, all: all)
    }
    if all { sampler.append(sample(at: time, geometry: geometry)) }
  }

  /// `follow` for two fingers, the most common count, each read once: the line between
  /// them is the turn's and, its length, the span (the same arithmetic as
  /// `PanelGeometry.distance`), and the centroid is their mean (`centroid`'s sums).
  @inline(__always)
  private mutating func followTwo(_ a: Point, _ b: Point, geometry: PanelGeometry, all: Bool) {
    if all || quantities.contains(.centroid) {
      centroid = Point(x: (0 + a.x + b.x) / 2, y: (0 + a.y + b.y) / 2)
      (dx, dy) = geometry.millimetres(from: reference.centroid, to: centroid)
    }
    let followsSpan = all || quantities.contains(.span)
    let followsTurn = all || quantities.contains(.turn)
    guard followsSpan || followsTurn else { return }
    let line = geometry.millimetres(from: a, to: b)
    if followsSpan { span = (line.dx * line.dx + line.dy * line.dy).squareRoot() }
    if followsTurn {
      turn += Self.degreesTurned(from: lastLine, to: line)
      lastLine = line
    }
  }

  /// `follow` for any other number of fingers.
  @inline(__always)
  private mutating func followOthers(_ fingers: SequenceFingers, geometry: PanelGeometry, all: Bool) {
    if all || quantities.contains(.centroid) || quantities.contains(.span) && fingers.count > 2 {
      centroid = Self.centroid(fingers)
      (dx, dy) = geometry.millimetres(from: reference.centroid, to: centroid)
    }
    if all || quantities.contains(.span) { span = Self.span(fingers, centroid: centroid, geometry: geometry) }
    if all || quantities.contains(.turn), fingers.count >= 2 {
      let line = Self.line(fingers, geometry)
      turn += Self.degreesTurned(from: lastLine, to: line)
      lastLine = line
    }
  }

  /// What the measures read of this frame.
  var frame: MotionFrame { MotionFrame(dx: dx, dy: dy, span: span, turn: turn) }

  /// Where the fingers are now, as a reference for a gesture measured from a later moment
  /// (a long press's drag: from where the fingers were when it fired).
  var here: MotionReference { MotionReference(centroid: centroid, span: span, turn: turn) }

  /// The centroid's offset from `reference`, mm, right and down positive.
  func offset(from reference: MotionReference, geometry: PanelGeometry) -> (dx: Double, dy: Double) {
    geometry.millimetres(from: reference.centroid, to: centroid)
  }

  /// The stream's values measured from `reference`, with the rates of the last
  /// `MotionSampler.window` (0 unless `.rates` is followed).
  func values(from reference: MotionReference, geometry: PanelGeometry) -> StreamValues {
    let (dx, dy) = offset(from: reference, geometry: geometry)
    let clamped = centroid.clamped
    let rates = sampler.rates()
    let hasSpan = reference.span > 0
    return StreamValues(
      cx: clamped.x, cy: clamped.y, dx: dx, dy: dy, scale: hasSpan ? span / reference.span : 1,
      angle: turn - reference.turn, vx: rates.x, vy: rates.y, vscale: hasSpan ? rates.span / reference.span : 0,
      vangle: rates.turn)
  }

  /// The centroid's speed along `direction` (up, down, left, right) over the last
  /// `MotionSampler.window`, mm/s; 0 unless `.rates` is followed.
  func speed(along direction: Direction) -> Double {
    let rates = sampler.rates()
    switch direction {
    case .right: return rates.x
    case .left: return -rates.x
    case .down: return rates.y
    case .up: return -rates.y
    case .in, .out, .clockwise, .counterclockwise: return 0
    }
  }

  private func sample(at time: Timestamp, geometry: PanelGeometry) -> MotionSample {
    MotionSample(
      time: time, x: centroid.x * geometry.width, y: centroid.y * geometry.height, span: span, turn: turn)
  }

  /// The mean of the fingers' current positions, as `PanMeasure` takes it.
  @inline(__always)  // Into `follow`, so that the geometry is read where it is.
  static func centroid(_ fingers: SequenceFingers) -> Point {
    var x = 0.0
    var y = 0.0
    // Two fingers, the most common count, without the loop's set-up: the same sums.
    if fingers.count == 2 {
      x += fingers[0].current.x
      y += fingers[0].current.y
      x += fingers[1].current.x
      y += fingers[1].current.y
      return Point(x: x / 2, y: y / 2)
    }
    for finger in fingers {
      x += finger.current.x
      y += finger.current.y
    }
    let n = Double(max(1, fingers.count))
    return Point(x: x / n, y: y / n)
  }

  @inline(__always)  // Into `follow`, so that the geometry is read where it is.
  static func span(_ fingers: SequenceFingers, centroid: Point, geometry: PanelGeometry) -> Double {
    switch fingers.count {
    case 0, 1: return 0
    case 2: return geometry.distance(fingers[0].current, fingers[1].current)
    default:
      var sum = 0.0
      for finger in fingers { sum += geometry.distance(finger.current, centroid) }
      return sum / Double(fingers.count)
    }
  }

  @inline(__always)  // Into `follow`, so that the geometry is read where it is.
  static func line(_ fingers: SequenceFingers, _ geometry: PanelGeometry) -> (dx: Double, dy: Double) {
    geometry.millimetres(from: fingers[0].current, to: fingers[1].current)
  }

  /// Degrees from line `a` to line `b`, clockwise positive, -180...180. A frame turns the
  /// line a little: then the arctangent of the tangent between the two lines is a short
  /// series, cheaper than the headings' `atan2`; otherwise it is the headings' difference.
  @inline(__always)
  static func degreesTurned(from a: (dx: Double, dy: Double), to b: (dx: Double, dy: Double)) -> Double {
    let cross = a.dx * b.dy - a.dy * b.dx
    let dot = a.dx * b.dx + a.dy * b.dy
    // Strict, so that a line of no length (both products 0) takes the headings.
    if abs(cross) < dot * smallTangent {
      return arctangentOfSmall(cross / dot) * 180 / Double.pi
    }
    var delta = atan2Degrees(b.dy, b.dx) - atan2Degrees(a.dy, a.dx)
    if delta > 180 { delta -= 360 }
    if delta < -180 { delta += 360 }
    return delta
  }

  /// The tangents up to which `arctangentOfSmall` is within an ulp or so of the arctangent.
  static let smallTangent = 0.0625

  /// atan(t) for |t| ≤ `smallTangent`, by its Taylor series, whose first term left out is
  /// far below an ulp of the sum there.
  @inline(__always)
  static func arctangentOfSmall(_ t: Double) -> Double {
    let t2 = t * t
    var sum = 1.0 / 13
    sum = sum * t2 - 1.0 / 11
    sum = sum * t2 + 1.0 / 9
    sum = sum * t2 - 1.0 / 7
    sum = sum * t2 + 1.0 / 5
    sum = sum * t2 - 1.0 / 3
    return t + t * t2 * sum
  }
}
