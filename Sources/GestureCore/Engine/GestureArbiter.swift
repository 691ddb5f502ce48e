/// Runs the recognizers over one device's frames and decides which gesture a touch sequence
/// is: the first one recognized *and bound* wins, the others fail (pinch and rotate may both
/// fire when the profile groups them). A gesture no binding asks for is not recognized at
/// all, so it can never steal a sequence from one that is bound.
///
/// Pure: time comes in with frames and `advance(to:)`; `nextDeadline` is when it next needs
/// to run without a frame.
struct GestureArbiter {
  /// A contact the assembler reported as down.
  private struct Contact {
    var id: UInt32
    /// Where it last moved more than `tap-slop`, and when: stuck-contact detection.
    var anchor: Point
    var anchorTime: Timestamp
    /// Dropped as stuck: ignored until it lifts.
    var dropped = false
  }

  static let maxContacts = 64

  let profile: Profile
  let geometry: PanelGeometry
  private let thresholds: Thresholds
  private let slop: Double
  private let multiTapDistance: Double
  private let edgeWidth: Double
  /// Whether any long-press binding exists, per region index (+1 for "no region"), so an
  /// unbound long press never arms a timer.
  private let longPressBound: [Bool]

  private var contacts: [Contact] = []
  private var sequence = TouchSequence()
  private var sequenceActive = false
  private var tap = TapRecognizer()
  private var longPress = LongPressRecognizer()
  private var swipe = SwipeRecognizer()
  private var pinch = PinchRecognizer()
  private var rotate = RotateRecognizer()
  private var multiTap = MultiTapRecognizer()
  private var now = Timestamp(microseconds: 0)

  /// Recognizer transitions, as text, when `tracing` is on (the daemon's --verbose).
  var tracing = false
  var traceLines: [String] = []

  init(profile: Profile, geometry: PanelGeometry) {
    self.profile = profile
    self.geometry = geometry
    thresholds = profile.thresholds
    slop = thresholds.tapSlop.millimetres(diagonal: geometry.diagonal)
    multiTapDistance = thresholds.multiTapDistance.millimetres(diagonal: geometry.diagonal)
    edgeWidth = thresholds.edgeWidth.millimetres(diagonal: geometry.diagonal)
    var bound = [Bool](repeating: false, count: profile.regions.count + 1)
    for binding in profile.bindings where binding.gesture == .longPress {
      if let region = binding.region {
        bound[region + 1] = true
      } else {
        for i in bound.indices { bound[i] = true }
      }
    }
    longPressBound = bound
    contacts.reserveCapacity(Self.maxContacts)
  }

  // MARK: Time

  /// The earliest time something is due, or nil when idle.
  var nextDeadline: Timestamp? {
    var next = multiTap.deadline(gap: thresholds.multiTapGap)
    func consider(_ t: Timestamp) { if next.map({ t < $0 }) ?? true { next = t } }
    if sequenceActive {
      let start = sequence.startTime
      if !sequence.countFixed { consider(start + thresholds.fingerLanding) }
      if tap.state == .possible, case .continuing = multiTap.state { consider(start + thresholds.tapMaxDuration) }
      if longPress.state == .possible, longPressBound[(sequence.region ?? -1) + 1] {
        consider(start + thresholds.longPress)
      }
    }
    for contact in contacts where !contact.dropped { consider(contact.anchorTime + thresholds.stuckContact) }
    return next
  }

  /// Runs everything due at or before `time`, in time order.
  mutating func advance(to time: Timestamp, into output: inout [GestureEvent]) {
    var previous: Timestamp? = nil
    while let due = nextDeadline, due <= time {
      // Every deadline handler moves its state on; this only guards against a bug hanging
      // the daemon.
      if let previous, due <= previous { break }
      previous = due
      now = due
      runDeadlines(at: due, into: &output)
    }
  }

  private mutating func runDeadlines(at time: Timestamp, into output: inout [GestureEvent]) {
    if sequenceActive {
      let start = sequence.startTime
      if !sequence.countFixed, time >= start + thresholds.fingerLanding { fixCount(into: &output) }
      if time >= start + thresholds.tapMaxDuration, let t = tap.heldTooLong() {
        tapChanged(t, into: &output)
      }
      if time >= start + thresholds.longPress { longPressTimeReached(into: &output) }
    }
    if let gapEnd = multiTap.deadline(gap: thresholds.multiTapGap), time >= gapEnd {
      finish(multiTap.gapElapsed(), into: &output)
    }
    for i in contacts.indices where !contacts[i].dropped && time >= contacts[i].anchorTime + thresholds.stuckContact {
      contacts[i].dropped = true
      if tracing { note("contact \(contacts[i].id) dropped: no movement for \(thresholds.stuckContact / 1000) ms") }
      if sequenceActive { spoil(.spoiled, into: &output) }
    }
    if sequenceActive, liveContacts == 0 { endSequence(into: &output) }
  }

  // MARK: Frames

  mutating func process(_ frame: TouchFrame, into output: inout [GestureEvent]) {
    now = frame.time
    for change in frame.changes {
      switch change.phase {
      case .began: began(change, into: &output)
      case .moved: moved(change, into: &output)
      case .ended, .cancelled: ended(change, into: &output)
      }
    }
    if sequenceActive {
      updateTwoFingerRecognizers()
      evaluateContinuous(into: &output)
      if liveContacts == 0 { endSequence(into: &output) }
    }
  }

  private var liveContacts: Int { contacts.reduce(0) { $0 + ($1.dropped ? 0 : 1) } }

  private mutating func began(_ change: ContactChange, into output: inout [GestureEvent]) {
    guard contacts.count < Self.maxContacts else { return }
    let wasIdle = liveContacts == 0
    contacts.append(Contact(id: change.id, anchor: change.position, anchorTime: now))
    if wasIdle {
      if sequenceActive { endSequence(into: &output) }
      startSequence(change, into: &output)
    } else if !sequenceActive {
      // Only dropped contacts were down: the new finger starts afresh.
      startSequence(change, into: &output)
    } else if sequence.countFixed || sequence.fingerCount >= TouchSequence.maxFingers {
      spoil(.spoiled, into: &output)
    } else {
      sequence.fingers.append(
        SequenceFinger(contact: change.id, downTime: now, down: change.position, current: change.position))
      if sequence.fingerCount == 2 {
        let (a, b) = (sequence.fingers[0].current, sequence.fingers[1].current)
        trace("pinch", pinch.bothDown(span: geometry.distance(a, b)))
        trace("rotate", rotate.bothDown(heading: heading(a, b)))
      } else {
        trace("pinch", pinch.fail(.wrongFingerCount))
        trace("rotate", rotate.fail(.wrongFingerCount))
      }
    }
  }

  private mutating func moved(_ change: ContactChange, into output: inout [GestureEvent]) {
    guard let c = contacts.firstIndex(where: { $0.id == change.id }), !contacts[c].dropped else { return }
    if geometry.distance(contacts[c].anchor, change.position) > slop {
      contacts[c].anchor = change.position
      contacts[c].anchorTime = now
    }
    guard sequenceActive, let f = sequence.index(of: change.id) else { return }
    sequence.fingers[f].current = change.position
    let travel = geometry.distance(sequence.fingers[f].down, change.position)
    guard travel > sequence.fingers[f].maxTravel else { return }
    sequence.fingers[f].maxTravel = travel
    if let t = tap.fingerMoved(travel: travel, slop: slop) { tapChanged(t, into: &output) }
    trace("long-press", longPress.fingerMoved(travel: travel, slop: slop))
  }

  private mutating func ended(_ change: ContactChange, into output: inout [GestureEvent]) {
    guard let c = contacts.firstIndex(where: { $0.id == change.id }) else { return }
    let wasDropped = contacts[c].dropped
    contacts.remove(at: c)
    guard !wasDropped, sequenceActive else { return }
    if change.phase == .cancelled {
      spoil(.spoiled, into: &output)
      return
    }
    guard let f = sequence.index(of: change.id) else { return }
    sequence.fingers[f].current = change.position
    sequence.fingers[f].lifted = true
    trace("long-press", longPress.fail(.lifted))
    trace("pinch", pinch.fail(.lifted))
    trace("rotate", rotate.fail(.lifted))
  }

  // MARK: Sequence

  private mutating func startSequence(_ change: ContactChange, into output: inout [GestureEvent]) {
    sequence.reset(at: now)
    sequence.fingers.append(
      SequenceFinger(contact: change.id, downTime: now, down: change.position, current: change.position))
    let start = change.position.clamped
    sequence.region = profile.region(atX: start.x, y: start.y)
    sequenceActive = true
    tap.reset()
    longPress.reset()
    swipe.reset()
    pinch.reset()
    rotate.reset()
    if tracing {
      let region = sequence.region.map { profile.regions[$0].name } ?? "none"
      if tracing {
        note("sequence began at (\(formatted(start.x * 100))%, \(formatted(start.y * 100))%) region \(region)")
      }
    }
    let reference = Self.chainCentroid(multiTap.state)
    let distance = multiTapDistance
    let action = multiTap.touchBegan(region: sequence.region, at: change.position) { [geometry] point in
      geometry.distance(point, reference ?? point) <= distance
    }
    finish(action, into: &output)
  }

  private static func chainCentroid(_ state: MultiTapRecognizer.State) -> Point? {
    switch state {
    case .idle: nil
    case .waiting(let chain), .continuing(let chain): chain.centroid
    }
  }

  /// The finger count is now fixed: later fingers spoil the sequence.
  private mutating func fixCount(into output: inout [GestureEvent]) {
    guard !sequence.countFixed else { return }
    sequence.countFixed = true
    if sequence.fingerCount != 2 {
      trace("pinch", pinch.fail(.wrongFingerCount))
      trace("rotate", rotate.fail(.wrongFingerCount))
    }
    if tracing { note("fingers fixed: \(sequence.fingerCount)") }
    let reference = Self.chainCentroid(multiTap.state)
    let distance = multiTapDistance
    let action = multiTap.fingersFixed(count: sequence.fingerCount, centroid: sequence.downCentroid) {
      [geometry] point in
      geometry.distance(point, reference ?? point) <= distance
    }
    finish(action, into: &output)
    evaluateContinuous(into: &output)
  }

  /// A late, sixth, cancelled or dropped finger: the sequence fires nothing.
  private mutating func spoil(_ why: RecognizerFailure, into output: inout [GestureEvent]) {
    guard !sequence.spoiled else { return }
    sequence.spoiled = true
    if tracing { note("sequence spoiled: \(why)") }
    if let t = tap.fail(why) { tapChanged(t, into: &output) }
    trace("long-press", longPress.fail(why))
    trace("swipe", swipe.fail(why))
    trace("pinch", pinch.fail(why))
    trace("rotate", rotate.fail(why))
  }

  private mutating func endSequence(into output: inout [GestureEvent]) {
    fixCount(into: &output)
    sequenceActive = false
    let duration = now - sequence.startTime
    if !sequence.spoiled, sequence.winner == nil {
      var dx = 0.0
      var dy = 0.0
      for finger in sequence.fingers {
        let d = geometry.millimetres(from: finger.down, to: finger.current)
        dx += d.dx
        dy += d.dy
      }
      let n = Double(max(1, sequence.fingerCount))
      let t = swipe.lastFingerUp(
        displacement: (dx / n, dy / n), duration: duration, geometry: geometry, thresholds: thresholds)
      trace("swipe", t)
      if case .recognized(let direction) = swipe.state,
        let binding = binding(.swipe, fingers: sequence.fingerCount, direction: direction, from: sequence.firstDown)
      {
        win(.swipe, binding: binding, direction: direction, into: &output)
      }
    }
    if let t = tap.lastFingerUp(duration: duration, maxDuration: thresholds.tapMaxDuration) {
      tapChanged(t, into: &output)
    }
    if tracing { note("sequence ended") }
  }

  // MARK: Recognition

  private mutating func tapChanged(_ t: Transition<TapRecognizer.State>, into output: inout [GestureEvent]) {
    trace("tap", t)
    switch t.to {
    case .failed:
      finish(multiTap.notATap(), into: &output)
    case .tapped:
      let start = sequence.firstDown
      let centroid = sequence.downCentroid
      let action = multiTap.tapped(
        fingers: sequence.fingerCount, region: sequence.region, position: start, centroid: centroid, at: now
      ) { [profile] chain in Self.highestBoundTaps(in: profile, fingers: chain.fingers, region: chain.region) }
      finish(action, into: &output)
    case .possible:
      break
    }
  }

  /// Fires a finished tap chain's binding for exactly its count, if one is bound.
  private mutating func finish(_ action: MultiTapRecognizer.Action, into output: inout [GestureEvent]) {
    guard case .end(let chain) = action else { return }
    if tracing { note("tap chain ended: \(chain.taps) × \(chain.fingers)-finger") }
    guard let binding = binding(.tap, fingers: chain.fingers, taps: chain.taps, region: chain.region) else {
      return
    }
    output.append(
      GestureEvent(
        time: now, binding: binding, gesture: .tap, fingers: chain.fingers, taps: chain.taps,
        position: chain.position.clamped, region: chain.region))
  }

  private mutating func longPressTimeReached(into output: inout [GestureEvent]) {
    guard longPress.state == .possible else { return }
    fixCount(into: &output)
    guard longPress.state == .possible else { return }
    guard sequence.fingersDown == sequence.fingerCount,
      let binding = binding(.longPress, fingers: sequence.fingerCount)
    else {
      trace("long-press", longPress.fail(.wrongFingerCount))
      return
    }
    trace("long-press", longPress.timeReached())
    win(.longPress, binding: binding, into: &output)
  }

  private mutating func updateTwoFingerRecognizers() {
    guard sequence.fingerCount == 2 else { return }
    let (a, b) = (sequence.fingers[0].current, sequence.fingers[1].current)
    pinch.spanChanged(geometry.distance(a, b))
    rotate.headingChanged(heading(a, b))
  }

  /// Pinch and rotate fire while the fingers are down, once the finger count is fixed.
  private mutating func evaluateContinuous(into output: inout [GestureEvent]) {
    guard sequenceActive, sequence.countFixed, !sequence.spoiled, sequence.fingerCount == 2,
      sequence.fingersDown == 2
    else { return }
    let grouped = profile.pinchWithRotate
    if !sequence.pinchFired, sequence.winner == nil || (grouped && sequence.winner == .rotate),
      let direction = pinch.crossed(thresholds), let binding = binding(.pinch, fingers: 2, direction: direction)
    {
      trace("pinch", pinch.recognize(direction))
      sequence.pinchFired = true
      win(.pinch, binding: binding, direction: direction, scale: pinch.scale, into: &output)
    }
    if !sequence.rotateFired, sequence.winner == nil || (grouped && sequence.winner == .pinch),
      let direction = rotate.crossed(thresholds), let binding = binding(.rotate, fingers: 2, direction: direction)
    {
      trace("rotate", rotate.recognize(direction))
      sequence.rotateFired = true
      win(.rotate, binding: binding, direction: direction, angle: rotate.angle, into: &output)
    }
  }

  /// The sequence is `gesture`: every other recognizer fails (pinch and rotate spare each
  /// other when grouped), then the binding fires.
  private mutating func win(
    _ gesture: GestureKind, binding: Int, direction: Direction? = nil, scale: Double? = nil,
    angle: Double? = nil, into output: inout [GestureEvent]
  ) {
    if sequence.winner == nil {
      sequence.winner = gesture
      if let t = tap.fail(.otherGestureWon) { tapChanged(t, into: &output) }
      if gesture != .longPress { trace("long-press", longPress.fail(.otherGestureWon)) }
      if gesture != .swipe { trace("swipe", swipe.fail(.otherGestureWon)) }
      let grouped = profile.pinchWithRotate
      if gesture != .pinch && !(grouped && gesture == .rotate) { trace("pinch", pinch.fail(.otherGestureWon)) }
      if gesture != .rotate && !(grouped && gesture == .pinch) { trace("rotate", rotate.fail(.otherGestureWon)) }
    }
    output.append(
      GestureEvent(
        time: now, binding: binding, gesture: gesture, fingers: sequence.fingerCount, direction: direction,
        scale: scale, angle: angle, position: sequence.firstDown.clamped, region: sequence.region))
  }

  // MARK: Bindings

  /// The binding for a recognized gesture in the sequence's region: a binding for that region
  /// shadows a region-less one; an edge swipe binding is preferred over a plain one.
  private func binding(
    _ gesture: GestureKind, fingers: Int, taps: Int = 1, direction: Direction? = nil, from start: Point? = nil
  ) -> Int? {
    binding(gesture, fingers: fingers, taps: taps, direction: direction, region: sequence.region, from: start)
  }

  private func binding(
    _ gesture: GestureKind, fingers: Int, taps: Int = 1, direction: Direction? = nil, region: Int?,
    from start: Point? = nil
  ) -> Int? {
    var best: Int? = nil
    var bestRank = -1
    for (index, b) in profile.bindings.enumerated() {
      guard b.gesture == gesture, b.fingers == fingers, b.taps == taps, b.direction == direction else { continue }
      if let r = b.region, r != region { continue }
      if let edge = b.edge {
        guard let start, isNear(edge, start.clamped) else { continue }
      }
      let rank = (b.region != nil ? 2 : 0) + (b.edge != nil ? 1 : 0)
      if rank > bestRank {
        best = index
        bestRank = rank
      }
    }
    return best
  }

  private static func highestBoundTaps(in profile: Profile, fingers: Int, region: Int?) -> Int {
    var highest = 1
    for b in profile.bindings where b.gesture == .tap && b.fingers == fingers && (b.region == nil || b.region == region)
    {
      highest = max(highest, b.taps)
    }
    return highest
  }

  private func isNear(_ edge: Edge, _ p: Point) -> Bool {
    switch edge {
    case .left: p.x * geometry.width <= edgeWidth
    case .right: (1 - p.x) * geometry.width <= edgeWidth
    case .top: p.y * geometry.height <= edgeWidth
    case .bottom: (1 - p.y) * geometry.height <= edgeWidth
    }
  }

  private func heading(_ a: Point, _ b: Point) -> Double {
    let d = geometry.millimetres(from: a, to: b)
    return atan2Degrees(d.dy, d.dx)
  }

  /// Device gone: everything in flight is dropped; nothing fires.
  mutating func reset() {
    contacts.removeAll(keepingCapacity: true)
    sequenceActive = false
    multiTap.reset()
    if tracing { note("reset: device gone") }
  }

  // MARK: Trace

  private mutating func trace<State: CustomStringConvertible>(_ name: String, _ t: Transition<State>?) {
    guard tracing, let t else { return }
    traceLines.append("\(now) \(name): \(t.from) → \(t.to)")
  }

  /// Call as `if tracing { note(…) }` so that nothing is formatted when the trace is off.
  private mutating func note(_ message: String) {
    traceLines.append("\(now) \(message)")
  }
}
