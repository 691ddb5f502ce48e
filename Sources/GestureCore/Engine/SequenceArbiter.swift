/// One touch sequence's recognition: from its first finger down to its last finger up, what
/// it fires. `GestureArbiter` routes each contact to one of these when it lands.
///
/// The sequence itself is one state machine (`SequenceState`, see TouchSequence.swift); the
/// recognizers are one each per gesture kind (`RecognizerTable`), reached only through the
/// table and the `Recognizer` protocol: this type names no kind. In a profile without a
/// `simultaneous:` group the first gesture recognized wins the sequence and every other
/// fails; with a group, its members all step in one sequence. Only bound gestures are
/// recognized, so an unbound one can never steal a sequence. Which binding a recognized
/// gesture fires was worked out when the engine was made (`BindingIndex`).
///
/// The value lives on between sequences of its route (the panel's shared sequence, or one
/// independent region's), so that its tap chain spans them and its storage is reused.
struct SequenceArbiter {
  let profile: Profile
  let geometry: PanelGeometry
  private let thresholds: Thresholds
  private let slop: Double
  /// `slop` for the per-frame comparisons, without a square root.
  private let slopLimit: DistanceLimit
  /// What the continuous kinds are recognized at.
  private let limits: RecognitionLimits
  private let multiTapDistance: Double
  private let edgeWidth: Double
  private let index: BindingIndex
  private let tapRule: TapSlopRule

  /// The independent region this value serves, nil for the panel's shared sequence and for
  /// a value of the pool that serves none now.
  var route: Int?
  /// The arbiter's profile generation this value was made for (`replaceProfile`).
  var generation = 0
  /// The sequence's contacts not dropped: counted by `GestureArbiter` as they land, lift
  /// and are dropped.
  var liveContacts = 0
  private(set) var sequence = TouchSequence()
  private(set) var state = SequenceState.idle {
    didSet {
      followsFingers = state.isActive && !state.isClosed
      dueIsKnown = false
    }
  }
  /// Active and not closed: where its fingers are is still read. Kept with `state`, so
  /// that a move tests one flag rather than matching the state twice.
  private var followsFingers = false
  /// What the current sequence (region, finger count) can fire.
  private var bound = BindingIndex.SequenceBindings()
  /// The step bindings' levels for the current sequence, pan first, then pinch, then rotate.
  private var levels: [StepLevel] = []
  /// Where each kind's run of `levels` ends, in the order of `RecognizerTable.forEachContinuousKind`
  /// (set with `levels`, so that a frame need not look for the runs).
  private var levelRunEnds: [Int] = []
  /// For each run of `levels` of `forEachContinuousKind`, where its measure moves none of
  /// them: set after a frame that looked at them one by one, emptied with `levels`.
  private var stepWindows = InlineArray<3, StepWindow>(repeating: StepWindow())
  /// Where the measures leave `evaluateContinuous` nothing to do: set after it ran, emptied
  /// with `stepWindows` (only there does a kind start tracking or its levels change outside it).
  private var quietBox = QuietBox()
  /// Where no continuous kind of `bound` reaches its threshold, on each kind's axes: what
  /// `quietBoxNow` narrows a tracking kind's axes to, worked out with `bound`.
  private var thresholdBox = QuietBox.everywhere
  private var recognizers = RecognizerTable()
  /// The sequence's fingers measured from its reference: what the measures, the stream and
  /// the swipe's release speed read.
  private var track = MotionTrack()
  /// The kind measured from its recognition (`Recognizer.measuresFromRecognition`) once
  /// recognized, and where the fingers were then: its steps (hold and drag) and its stream
  /// are measured from there.
  private var recognitionKind: GestureKind?
  private var recognitionReference: MotionReference?
  /// It was recognized with step levels: a frame's one test of whether they follow.
  private var dragging = false
  /// Its levels in `levels` (the last run).
  private var dragLevels = 0..<0
  /// The continuous gestures' streams in this sequence (followed while `reportsStream`).
  private var streams = GestureStreams()
  /// The kinds whose bindings need the rates without the stream (a swipe with
  /// `swipe-min-speed`).
  private let kindsNeedingRates: GestureKindSet
  /// The tap chain: the taps of successive sequences that wait for more.
  private var chain = MultiTapRecognizer() {
    didSet { dueIsKnown = false }
  }
  /// The kind whose recognitions wait in the chain (`Recognizer.waitsInChain`).
  private let chainKind = GestureKind.allCases.first { RecognizerTable.recognizer(of: $0).waitsInChain }
  /// The kinds bound in the current sequence's region, for any finger count.
  private var boundInRegion = GestureKindSet()
  /// The waiting chain's single tap fired at once (`fireSingleTapAtOnce`).
  private var singleTapFired = false
  var now = Timestamp(microseconds: 0) {
    didSet { tracer.now = now }
  }

  /// Trace lines and records since `GestureArbiter` last took them (`flush`).
  var tracer = Tracer()
  /// Inputs its state machine has no transition for, since it was made.
  private(set) var impossibleInputs = 0

  /// Whether a frame in which no contact lands or lifts can fire something now: a bound
  /// pan, pinch or rotation steps on moves, and a tap chain whose next tap is under way
  /// ends (and fires) as soon as that tap slides beyond the slop. Everything else fires at
  /// a landing, a lift or a deadline. The daemon reads a panel's movement in batches while
  /// this is false (docs/devices.md, "Reading at contact changes").
  @inline(__always)
  var firesOnMoves: Bool {
    if hasContinuousBindings { return true }
    guard case .continuing = chain.state else { return false }
    var possible = false
    RecognizerTable.forEachKind { kind in
      possible = possible || recognizers.ask(kind, RecognizerQueries.Chain()).possible
    }
    return possible
  }
  private let hasContinuousBindings: Bool

  /// Whether a deadline can fire something now: a recognizer whose time fires something
  /// (a long press that is possible and bound), a tap chain (its gap's end, or its next
  /// touch's count, duration or drop ending it), steps (continuous bindings) and
  /// forwarding's held touches. Otherwise every deadline pending only moves the state on
  /// (the end of the landing, a contact held still), which the engine does by itself before
  /// the next event stamped after it, with the same result.
  @inline(__always)
  var deadlineCanFire: Bool {
    if hasContinuousBindings || forwarding { return true }
    if case .idle = chain.state {} else { return true }
    guard state.isActive else { return false }
    let query = RecognizerQueries.WakeTime(times: times)
    var wakes = false
    RecognizerTable.forEachKind { kind in wakes = wakes || recognizers.ask(kind, query) != nil }
    return wakes
  }

  /// What the recognizers' deadlines are worked out from.
  private var times: SequenceTimes {
    var chainContinuing = false
    if case .continuing = chain.state { chainContinuing = true }
    return SequenceTimes(
      start: sequence.startTime, now: now, thresholds: thresholds, chainContinuing: chainContinuing,
      boundInRegion: boundInRegion)
  }

  // Forwarding (`forward: true`): what becomes of each sequence's raw frames.
  private let forwarding: Bool
  /// Ended sequences whose taps wait in the tap chain: its end decides them all.
  private var chainSequences: [Int] = []
  /// The current sequence's outcome, once decided (or nil while undecided, and while it
  /// waits in the chain: then `inChain`).
  private var currentOutcome: SequenceDisposition.Outcome?
  private var currentInChain = false
  /// Decisions since `flush`, in the order they happened.
  private(set) var dispositions: [SequenceDisposition] = []
  /// See `DeviceEngine.reportsStream`.
  var reportsStream = false
  private(set) var streamEvents: [GestureStreamEvent] = []

  init(profile: Profile, geometry: PanelGeometry, index: BindingIndex) {
    self.profile = profile
    self.geometry = geometry
    thresholds = profile.thresholds
    slop = thresholds.tapSlop.millimetres(diagonal: geometry.diagonal)
    multiTapDistance = thresholds.multiTapDistance.millimetres(diagonal: geometry.diagonal)
    edgeWidth = thresholds.edgeWidth.millimetres(diagonal: geometry.diagonal)
    self.index = index
    tapRule = TapSlopRule(slop: slop)
    slopLimit = DistanceLimit(slop)
    limits = RecognitionLimits(thresholds, slop: slop)
    forwarding = profile.forward
    hasContinuousBindings = profile.bindings.contains {
      RecognizerTable.recognizer(of: $0.gesture).firesOnMoves($0)
    }
    let thresholds = thresholds
    kindsNeedingRates = GestureKindSet(
      GestureKind.allCases.filter { RecognizerTable.recognizer(of: $0).needsRates(thresholds) })
    levels.reserveCapacity(profile.bindings.count)
    levelRunEnds.reserveCapacity(GestureKind.allCases.count)
  }

  /// Whether nothing is left of the last sequence: no contact, no tap chain waiting, nothing
  /// held. A value of the pool that is done may serve another region.
  @inline(__always)
  var isDone: Bool {
    !state.isActive && liveContacts == 0 && chain.state == .idle && chainSequences.isEmpty
  }

  /// Moves what was traced and decided since the last call to the engine's own.
  @inline(__always)
  mutating func flush(
    into tracer: inout Tracer, dispositions: inout [SequenceDisposition], streamEvents: inout [GestureStreamEvent]
  ) {
    if self.tracer.isOn || self.tracer.keepsRecords { flushTrace(into: &tracer) }
    if forwarding, !self.dispositions.isEmpty {
      dispositions.append(contentsOf: self.dispositions)
      self.dispositions.removeAll(keepingCapacity: true)
    }
    if reportsStream, !self.streamEvents.isEmpty {
      streamEvents.append(contentsOf: self.streamEvents)
      self.streamEvents.removeAll(keepingCapacity: true)
    }
  }

  private mutating func flushTrace(into tracer: inout Tracer) {
    if !self.tracer.lines.isEmpty {
      tracer.lines.append(contentsOf: self.tracer.lines)
      self.tracer.lines.removeAll(keepingCapacity: true)
    }
    if !self.tracer.records.isEmpty {
      tracer.records.append(contentsOf: self.tracer.records)
      self.tracer.records.removeAll(keepingCapacity: true)
    }
  }

  // MARK: Time

  /// What this sequence has due (`ownDue`) as last worked out, while `dueIsKnown`: most
  /// frames change nothing it is worked out from. A change of the state or the tap chain
  /// forgets it (their observers), as does a recognizer's move (`recognizerMoved`); a
  /// sequence's start (its time, its region, its recognizers reset) comes with both. Never
  /// kept while forwarding, since a held touch's end depends on the time.
  private var knownDue = (next: Int64.max, found: false)
  private var dueIsKnown = false

  /// Whether what `earliestDue` keeps is what the state gives now: for the tests of the
  /// changes that must forget it.
  mutating func knownDueIsCurrent() -> Bool {
    guard dueIsKnown else { return true }
    let now = ownDue()
    return knownDue.next == now.next && knownDue.found == now.found
  }

  /// A recognizer moved on: its time may have come or gone.
  @inline(__always)
  private mutating func recognizerMoved() { dueIsKnown = false }

  /// Lowers `next` to the earliest time this sequence has something due (`found`: whether
  /// anything is). Mutating (though it changes nothing), as `heldTouchDeadline`.
  @inline(__always)
  mutating func earliestDue(_ next: inout Int64, _ found: inout Bool) {
    if !dueIsKnown {
      knownDue = ownDue()
      dueIsKnown = !forwarding
    }
    if knownDue.found, knownDue.next <= next {
      next = knownDue.next
      found = true
    }
  }

  /// The earliest time this sequence has something due, worked out from its state.
  private mutating func ownDue() -> (next: Int64, found: Bool) {
    var next = Int64.max
    var found = false
    func consider(_ t: Timestamp) {
      if t.microseconds <= next {
        next = t.microseconds
        found = true
      }
    }
    if let gapEnd = chain.deadline(gap: thresholds.multiTapGap) { consider(gapEnd) }
    if state.isActive {
      let start = sequence.startTime
      if state == .landing { consider(start + thresholds.fingerLanding) }
      // Only the times that fire something: a tap's in a tap chain, a long press's when bound.
      let query = RecognizerQueries.WakeTime(times: times)
      RecognizerTable.forEachKind { kind in
        if let t = recognizers.ask(kind, query) { consider(t) }
      }
      if forwarding, let held = heldTouchDeadline() { consider(held) }
    }
    return (next, found)
  }

  /// `earliestDue` for a value of the independent regions' pool, if it serves one: one
  /// access to the value in the pool rather than a read of its route and then the call.
  /// Returns its sequence's number when it serves one and its sequence is active.
  @inline(__always)
  mutating func earliestDueOnRoute(_ next: inout Int64, _ found: inout Bool) -> Int? {
    guard route != nil else { return nil }
    earliestDue(&next, &found)
    return state.isActive ? sequence.number : nil
  }

  /// For `earliestDue()` while forwarding: the first moment a held touch can no longer
  /// become any kind that time ends (`Recognizer.holdEnd`). Out of line, so that what it
  /// reads is not loaded at every frame without forwarding; mutating (though it changes
  /// nothing), so that the arbiter is passed in place rather than copied.
  @inline(never)
  private mutating func heldTouchDeadline() -> Timestamp? {
    guard isUndecided else { return nil }
    var next: Timestamp?
    let query = RecognizerQueries.HoldEnd(times: times)
    RecognizerTable.forEachKind { kind in
      if let end = recognizers.ask(kind, query), next.map({ end < $0 }) ?? true { next = end }
    }
    return next
  }

  /// Runs this sequence's deadlines due at `time` (the landing's end, the recognizers'
  /// times, the tap chain's gap); `GestureArbiter` then drops stuck contacts and calls
  /// `deadlinesRan`.
  mutating func runDeadlines(at time: Timestamp, into output: inout [GestureEvent]) {
    if state.isActive {
      let start = sequence.startTime
      if state == .landing, time >= start + thresholds.fingerLanding { fixCount(into: &output) }
      let deadline = RecognizerQueries.Deadline(start: start, thresholds: thresholds)
      RecognizerTable.forEachKind { kind in
        if let due = recognizers.ask(kind, deadline), time >= due { timeReached(kind, into: &output) }
      }
    }
    if let gapEnd = chain.deadline(gap: thresholds.multiTapGap), time >= gapEnd {
      finish(chain.gapElapsed(), into: &output)
    }
  }

  /// `kind`'s time has come.
  @inline(__always)
  private mutating func timeReached(_ kind: GestureKind, into output: inout [GestureEvent]) {
    if recognizers.ask(kind, RecognizerQueries.NeedsFixedCount()) {
      fixCount(into: &output)
      // Fixing the count may have let another gesture win.
      guard
        recognizers.ask(kind, RecognizerQueries.Deadline(start: sequence.startTime, thresholds: thresholds))
          != nil
      else { return }
    }
    var reached = RecognizerActions.TimeReached(
      sequence: SequenceAtDeadline(
        isOpenWithEveryFinger: state == .open && sequence.fingersDown == sequence.fingerCount, bound: bound.kinds))
    if recognizers.apply(kind, &reached, trace: &tracer) {
      recognizerMoved()
      settled(kind, into: &output)
    }
  }

  /// After a deadline run: a sequence left without contacts ends.
  mutating func deadlinesRan(into output: inout [GestureEvent]) {
    if state.isActive, liveContacts == 0 { endSequence(into: &output) }
    settleDisposition()
  }

  // MARK: Frames

  /// After a frame's changes: the continuous gestures follow the fingers, and a sequence
  /// whose last contact lifted ends.
  @inline(__always)
  mutating func frameEnded(into output: inout [GestureEvent]) {
    if state.isActive {
      followContinuous(into: &output)
      if liveContacts == 0 { endSequence(into: &output) }
    }
    settleDisposition()
  }

  /// `frameEnded` at `time` for a value of the independent regions' pool, if it serves one
  /// (a value left with nothing to do serves none after it), then `earliestDue` if it still
  /// does: one access to the value in the pool for both. Returns its sequence's number when
  /// it serves one and its sequence is active.
  @inline(__always)
  mutating func frameEndedOnRoute(
    at time: Timestamp, _ next: inout Int64, _ found: inout Bool, into output: inout [GestureEvent]
  ) -> Int? {
    guard route != nil else { return nil }
    now = time
    frameEnded(into: &output)
    // Contacts first: while it has some, the rest of `isDone` need not be read.
    if liveContacts == 0, isDone {
      route = nil
      return nil
    }
    earliestDue(&next, &found)
    return state.isActive ? sequence.number : nil
  }

  /// A contact of this route landed (`GestureArbiter` counted it in `liveContacts`);
  /// `number` is the engine's last sequence number, counted on when this starts a sequence.
  /// Returns whether it did.
  mutating func began(_ change: ContactChange, number: inout Int, into output: inout [GestureEvent]) -> Bool {
    if liveContacts == 1 || !state.isActive {
      // A first finger, or only dropped contacts were down: the new finger starts afresh.
      if state.isActive { endSequence(into: &output) }
      number += 1
      startSequence(change, number: number, into: &output)
      return true
    } else if state != .landing || sequence.fingerCount >= TouchSequence.maxFingers {
      lateFinger(into: &output)
    } else {
      sequence.fingers.append(
        SequenceFinger(contact: change.id, downTime: now, down: change.position, current: change.position))
      transition(.fingerDown)
      fingersLanded(into: &output)
    }
    return false
  }

  /// Contact `change.id` moved at `time` (`GestureArbiter` followed its anchor); `c` is where
  /// its finger probably is among the sequence's. The sequence is given the time only where
  /// a recognizer reads it: its frame's end gives it anyway.
  @inline(__always)
  mutating func moved(_ change: ContactChange, likely c: Int, at time: Timestamp, into output: inout [GestureEvent]) {
    // A closed sequence fires nothing more: where its fingers are is never read again.
    // The sequence's fingers are mostly the contacts, in the same order.
    guard followsFingers, let f = sequence.fingers.move(change.id, tryingFirst: c, to: change.position) else { return }
    // The travel from where the finger landed matters only to some kinds (the tap, the long
    // press), while they are possible.
    var readsTravel = false
    RecognizerTable.forEachKind { kind in
      readsTravel = readsTravel || recognizers.ask(kind, RecognizerQueries.ReadsTravel())
    }
    guard readsTravel else { return }
    fingerTravelled(f, at: time, into: &output)
  }

  /// Finger `f` moved at `time` while a recognizer reads its travel from where it landed,
  /// which only matters beyond the slop (within it, they take 0 as they would the real
  /// distance, and a finger that never passed it moves none of them).
  @inline(never)
  private mutating func fingerTravelled(_ f: Int, at time: Timestamp, into output: inout [GestureEvent]) {
    let finger = sequence.fingers[f]
    let squared = geometry.squaredDistance(finger.down, finger.current)
    let withinSlop = slopLimit.isClearlyWithin(squared: squared)
    if withinSlop && finger.beyondSlopSince == nil { return }
    now = time
    let travel = withinSlop ? 0 : squared.squareRoot()
    var action = RecognizerActions.Moved(finger: sequence.fingers[f], travel: travel, context: context)
    forEachRecognizer(&action, into: &output)
    sequence.fingers[f] = action.finger
  }

  /// What the recognizers may read about now.
  private var context: RecognizerContext {
    RecognizerContext(now: now, tapRule: tapRule, liftStarted: sequence.firstLift)
  }

  /// A contact of this sequence lifted or was cancelled (`GestureArbiter` took it out of
  /// `liveContacts`); `frame` holds every change of its frame.
  mutating func ended(
    _ change: ContactChange, frame: UnsafeBufferPointer<ContactChange>, into output: inout [GestureEvent]
  ) {
    guard state.isActive else { return }
    if change.phase == .cancelled {
      cancelSequence(into: &output)
      return
    }
    guard let f = sequence.index(of: change.id) else { return }
    sequence.fingers[f].current = change.position
    sequence.fingers[f].lifted = true
    var lifted = RecognizerActions.Lifted(finger: sequence.fingers[f], context: context)
    if sequence.firstLift == nil { sequence.firstLift = now }
    forEachRecognizer(&lifted, into: &output)
    // The last finger's lift is the sequence's end, handled there.
    if sequence.fingersDown > 0, case .claimed = state {
      transition(.fingerLifted)
      endSteps(liftsEveryFinger(frame) ? .lift : .fingers, into: &output)
    }
  }

  /// Whether `frame` lifts every finger of the sequence still down: its steps end at the
  /// first of those lifts, and what ended them is the last finger's lift.
  private func liftsEveryFinger(_ frame: UnsafeBufferPointer<ContactChange>) -> Bool {
    sequence.fingers.allSatisfy { finger in
      finger.lifted || frame.contains { $0.id == finger.contact && $0.phase == .ended }
    }
  }

  // MARK: Sequence

  /// Applies one event to the sequence state and traces it. An event the state has no
  /// transition for is an arbiter bug: counted and traced, the state left alone.
  @discardableResult
  private mutating func transition(_ event: SequenceEvent) -> Bool {
    let old = state
    let new: SequenceState
    switch (old, event) {
    case (.idle, .fingerDown), (.landing, .fingerDown): new = .landing
    case (.landing, .landingElapsed): new = .open
    case (.open, .recognized(let kind)): new = .claimed(GestureKindSet([kind]))
    case (.claimed(var kinds), .recognized(let kind)):
      kinds.insert(kind)
      new = .claimed(kinds)
    case (.landing, .lateFinger), (.open, .lateFinger), (.landing, .contactCancelled), (.open, .contactCancelled):
      new = .closed(.spoiled)
    case (.claimed, .lateFinger), (.claimed, .fingerLifted): new = .closed(.countChanged)
    case (.claimed, .contactCancelled): new = .closed(.cancelled)
    case (.closed, .lateFinger), (.closed, .fingerLifted), (.closed, .contactCancelled): new = old
    case (.idle, _): new = .idle
    case (_, .lastFingerUp), (_, .reset): new = .idle
    default:
      impossible("sequence: \(old) has no transition on \(event)")
      return false
    }
    if tracer.isOn { note("sequence: \(old) → \(event) → \(new)") }
    if tracer.keepsRecords { tracer.keep(.sequence(state: new.description, event: event.description)) }
    state = new
    return true
  }

  private mutating func startSequence(_ change: ContactChange, number: Int, into output: inout [GestureEvent]) {
    settleDisposition()
    sequence.reset(at: now, number: number)
    if forwarding {
      currentOutcome = nil
      currentInChain = false
    }
    sequence.fingers.append(
      SequenceFinger(contact: change.id, downTime: now, down: change.position, current: change.position))
    let start = change.position.clamped
    sequence.region = route ?? profile.region(atX: start.x, y: start.y)
    boundInRegion = index.kinds(region: sequence.region)
    var reset = RecognizerActions.Reset()
    forEachRecognizer(&reset, into: &output)
    recognitionKind = nil
    recognitionReference = nil
    dragging = false
    streams.reset()
    if tracer.isOn {
      let region = sequence.region.map { profile.regions[$0].name } ?? "none"
      note(
        "sequence began at (\(formatted(start.x * 100))%, \(formatted(start.y * 100))%) region \(region), #\(sequence.number)"
      )
    }
    if tracer.keepsRecords { tracer.keep(.sequenceBegan(number: sequence.number, region: sequence.region)) }
    transition(.fingerDown)
    fingersLanded(into: &output)
    let near = isNearChain(change.position)
    finish(chain.touchBegan(region: sequence.region, isNear: near), into: &output)
  }

  /// Whether `point` is within `multi-tap-distance` of the waiting tap chain's first tap.
  private func isNearChain(_ point: Point) -> Bool {
    switch chain.state {
    case .idle: true
    case .waiting(let chain), .continuing(let chain): geometry.distance(point, chain.centroid) <= multiTapDistance
    }
  }

  /// A finger of the sequence landed (before the count is fixed): the continuous gestures
  /// take their reference afresh and the step levels restart from 0.
  private mutating func fingersLanded(into output: inout [GestureEvent]) {
    bound = index.sequence(region: sequence.region, fingers: sequence.fingerCount)
    thresholdBox = QuietBox.everywhere
    RecognizerTable.forEachContinuousKind { kind in
      thresholdBox.narrow(kind, toThresholdsOf: limits, bound: bound.continuous)
    }
    var quantities = MotionTrack.quantities(for: bound.continuousKinds)
    if reportsStream || !bound.kinds.isDisjoint(with: kindsNeedingRates) { quantities.insert(.rates) }
    levels.removeAll(keepingCapacity: true)
    levelRunEnds.removeAll(keepingCapacity: true)
    stepWindows = InlineArray(repeating: StepWindow())
    quietBox = QuietBox()
    dragLevels = 0..<0
    RecognizerTable.forEachSteppingKind { kind in
      let runStart = levels.count
      for c in bound.continuous where c.kind == kind {
        guard let width = c.width else { continue }
        levels.append(StepLevel(binding: c.binding, kind: kind, direction: c.direction, width: width))
      }
      levelRunEnds.append(levels.count)
      if recognizers.ask(kind, RecognizerQueries.MeasuresFromRecognition()) {
        dragLevels = runStart..<levels.count
      }
    }
    // A drag's offset is the centroid's.
    if !dragLevels.isEmpty { quantities.insert(.centroid) }
    track.quantities = quantities
    track.restart(sequence.fingers, geometry: geometry, at: now)
    var landed = RecognizerActions.Landed(fingers: sequence.fingers, geometry: geometry)
    forEachRecognizer(&landed, into: &output)
  }

  private mutating func lateFinger(into output: inout [GestureEvent]) {
    if case .claimed = state {
      transition(.lateFinger)
      endSteps(.fingers, into: &output)
    } else if transition(.lateFinger), state == .closed(.spoiled) {
      failAll(.spoiled, into: &output)
    }
  }

  /// A cancelled or dropped contact: nothing more fires; steps already going end.
  mutating func cancelSequence(into output: inout [GestureEvent]) {
    let wasClaimed = !state.claimed.isEmpty
    transition(.contactCancelled)
    if wasClaimed { endSteps(.cancel, into: &output) }
    failAll(.spoiled, into: &output)
  }

  /// The finger count is now fixed: later fingers close the sequence.
  /// `stepping`: false when the sequence is ending, which then fires no steps.
  private mutating func fixCount(stepping: Bool = true, into output: inout [GestureEvent]) {
    guard state == .landing else { return }
    transition(.landingElapsed)
    let count = sequence.fingerCount
    var fixed = RecognizerActions.CountFixed(count: count)
    forEachRecognizer(&fixed, into: &output)
    let near = isNearChain(sequence.downCentroid)
    finish(chain.fingersFixed(count: count, isNear: near), into: &output)
    if stepping { evaluateContinuous(into: &output) }
  }

  private mutating func failAll(_ why: RecognizerFailure, into output: inout [GestureEvent]) {
    var fail = RecognizerActions.Fail(why: why)
    forEachRecognizer(&fail, into: &output)
  }

  private mutating func endSequence(into output: inout [GestureEvent]) {
    fixCount(stepping: false, into: &output)
    // Each judged kind sees the state the one before it left (a swipe that won fails the tap).
    RecognizerTable.forEachKindAtLastLift { kind in
      var up = RecognizerActions.LastFingerUp(
        end: SequenceEnd(
          fingers: sequence.fingers, duration: now - sequence.startTime, geometry: geometry, thresholds: thresholds,
          isOpen: state == .open, track: track))
      if recognizers.apply(kind, &up, trace: &tracer) {
        recognizerMoved()
        settled(kind, into: &output)
      }
    }
    if case .claimed = state { endSteps(.lift, into: &output) }
    transition(.lastFingerUp)
    settleDisposition()
  }

  // MARK: Recognition

  /// `action` on every recognizer of the table, in its order; each transition is traced,
  /// and reaches the tap chain before the next kind hears of the action.
  @inline(__always)
  private mutating func forEachRecognizer<A: RecognizerAction>(_ action: inout A, into output: inout [GestureEvent]) {
    RecognizerTable.forEachKind { kind in
      if recognizers.apply(kind, &action, trace: &tracer) {
        recognizerMoved()
        if recognizers.ask(kind, RecognizerQueries.Chain()).waits { chainHears(kind, into: &output) }
      }
    }
  }

  /// `kind`'s recognizer moved on (traced already): one that waits in the tap chain goes
  /// there, one recognized otherwise wins the sequence and fires.
  private mutating func settled(_ kind: GestureKind, into output: inout [GestureEvent]) {
    if recognizers.ask(kind, RecognizerQueries.Chain()).waits {
      chainHears(kind, into: &output)
    } else if let direction = recognizers.ask(kind, RecognizerQueries.Recognized()) {
      recognized(kind, direction, into: &output)
    }
  }

  /// A recognizer that waits in the tap chain moved on: failed, it ends a chain; done, it
  /// joins it.
  private mutating func chainHears(_ kind: GestureKind, into output: inout [GestureEvent]) {
    let state = recognizers.ask(kind, RecognizerQueries.Chain())
    if state.failed {
      finish(chain.notATap(), into: &output)
    } else if !state.possible {
      if isUndecided {
        // Its fate is the chain's now (decided in `finish`, maybe at once).
        chainSequences.append(sequence.number)
        currentInChain = true
      }
      let fingers = sequence.fingerCount
      let highest = index.sequence(region: sequence.region, fingers: fingers).highestTaps
      let action = chain.tapped(
        fingers: fingers, region: sequence.region, position: sequence.firstDown, centroid: sequence.downCentroid,
        at: now, highestBound: highest, sequence: sequence.number)
      fireSingleTapAtOnce(into: &output)
      finish(action, into: &output)
    }
  }

  /// `kind` was recognized (in `direction`, for a kind that has one): it wins the sequence
  /// and fires what is bound for it; nothing bound, it fires nothing and wins nothing.
  private mutating func recognized(_ kind: GestureKind, _ direction: Direction?, into output: inout [GestureEvent]) {
    let near = EdgeProximity(start: sequence.firstDown.clamped, width: edgeWidth, geometry: geometry)
    let oneShot = recognizers.ask(
      kind, RecognizerQueries.OneShotBinding(direction: direction, bound: bound, near: near))
    let measuresFromHere = recognizers.ask(kind, RecognizerQueries.MeasuresFromRecognition())
    let hasLevels = measuresFromHere ? !dragLevels.isEmpty : false
    guard oneShot != nil || hasLevels || bound.continuousKinds.contains(kind) else { return }
    win(kind, into: &output)
    if measuresFromHere {
      recognitionKind = kind
      recognitionReference = track.here
      dragging = hasLevels
    }
    if let oneShot { fire(binding: oneShot, gesture: kind, direction: direction, into: &output) }
    if reportsStream { beginStream(kind) }
  }

  /// A chain's first tap whose single-tap binding fires at once (`Binding.firesAtOnce`)
  /// fires it now, while the chain waits for a longer one; `finish` then does not again.
  private mutating func fireSingleTapAtOnce(into output: inout [GestureEvent]) {
    guard case .waiting(let waiting) = chain.state, waiting.taps == 1, let chainKind,
      let binding = index.sequence(region: waiting.region, fingers: waiting.fingers).taps[1],
      profile.bindings[binding].firesAtOnce
    else { return }
    singleTapFired = true
    output.append(
      GestureEvent(
        time: now, binding: binding, gesture: chainKind, sequence: sequence.number, fingers: waiting.fingers, taps: 1,
        position: waiting.position.clamped, region: waiting.region, profileGeneration: generation))
  }

  /// Fires a finished tap chain's binding for exactly its count, if one is bound.
  private mutating func finish(_ action: MultiTapRecognizer.Action, into output: inout [GestureEvent]) {
    guard case .end(let chain) = action else { return }
    let firedAlready = chain.taps == 1 && singleTapFired
    singleTapFired = false
    if tracer.isOn { note("tap chain ended: \(chain.taps) × \(chain.fingers)-finger") }
    let binding = index.sequence(region: chain.region, fingers: chain.fingers).taps[chain.taps]
    if forwarding { decideChain(binding != nil ? .claimed : .passThrough) }
    if tracer.keepsRecords {
      tracer.keep(.tapChainEnded(taps: chain.taps, fingers: chain.fingers, region: chain.region, bound: binding != nil))
    }
    guard let binding, let chainKind, !firedAlready else { return }
    output.append(
      GestureEvent(
        time: now, binding: binding, gesture: chainKind, sequence: sequence.number, fingers: chain.fingers,
        taps: chain.taps, position: chain.position.clamped, region: chain.region, profileGeneration: generation,
        firstSequence: chain.firstSequence))
  }

  /// After a frame: the continuous gestures follow the fingers, step levels follow them,
  /// and recognized gestures fire their steps, pan first, then pinch, then rotate.
  /// Only the kinds bound for this sequence are followed: nothing reads an unbound kind's
  /// measure (it fires nothing, and `bound` changes only where every reference is taken
  /// afresh, in `fingersLanded`).
  /// A closed sequence fires nothing more, steps nor ends: nothing reads its measures.
  @inline(__always)  // Once per frame, from `process`.
  private mutating func followContinuous(into output: inout [GestureEvent]) {
    guard followsFingers, !track.quantities.isEmpty else { return }
    track.follow(sequence.fingers, geometry: geometry, at: now)
    recognizers.frame(track.frame, kinds: bound.continuousKinds)
    if !quietBox.contains(recognizers.quietCoordinates) { evaluateContinuous(into: &output) }
    if dragging { followDrag(into: &output) }
    if reportsStream, streams.anyStreaming {
      let values = track.values(from: track.reference, geometry: geometry)
      let fromRecognition = recognitionReference.map { track.values(from: $0, geometry: geometry) } ?? values
      streams.change(values, fromRecognition: fromRecognition, streamFrame, into: &streamEvents)
    }
  }

  /// A kind measured from its recognition that was recognized with step levels: they follow
  /// the fingers' offset from there and step as a pan's (hold and drag).
  private mutating func followDrag(into output: inout [GestureEvent]) {
    guard let reference = recognitionReference, let kind = recognitionKind, state.claimed.contains(kind) else {
      return
    }
    let (dx, dy) = track.offset(from: reference, geometry: geometry)
    for i in dragLevels {
      let measure = levels[i].direction.isHorizontal ? dx : dy
      guard levels[i].wouldMove(measure) else { continue }
      let moved = levels[i].follow(measure)
      fireSteps(level: i, count: levels[i].steps(for: moved), into: &output)
    }
  }

  /// What every stream event of this frame shares.
  private var streamFrame: StreamEmitter.Frame {
    StreamEmitter.Frame(time: now, sequence: sequence.number, fingers: sequence.fingerCount, region: sequence.region)
  }

  /// `kind` was recognized: its stream begins.
  private mutating func beginStream(_ kind: GestureKind) {
    let reference = kind == recognitionKind ? (recognitionReference ?? track.reference) : track.reference
    let values = track.values(from: reference, geometry: geometry)
    trace("\(kind.rawValue) stream", streams.begin(kind, values, streamFrame, into: &streamEvents))
  }

  /// Moves every level to the current measures; recognized kinds step, the others are
  /// checked against their thresholds (once the count is fixed and nothing closed).
  ///
  /// Only tracking and recognized kinds are looked at: a waiting kind has no measure, and a
  /// failed one never fires again in this sequence, so where its levels stand is never read.
  private mutating func evaluateContinuous(into output: inout [GestureEvent]) {
    let stepping = state == .open || !state.claimed.isEmpty
    // Each kind's levels are the run that follows the previous kind's (see `fingersLanded`).
    var run = 0
    RecognizerTable.forEachContinuousKind { kind in
      let levelStart = run == 0 ? 0 : levelRunEnds[run - 1]
      evaluateContinuous(kind, run: run, levels: levelStart..<levelRunEnds[run], stepping: stepping, into: &output)
      run += 1
    }
    quietBox = quietBoxNow()
  }

  /// Where the measures move no level of a live kind and bring no tracking kind to its
  /// threshold, as the recognizers and levels stand now (a failed or waiting kind bounds
  /// nothing: it does nothing in `evaluateContinuous`). Mutating (though it changes nothing),
  /// so that the sequence is read in place rather than copied for the loop over the kinds.
  private mutating func quietBoxNow() -> QuietBox {
    var box = QuietBox.everywhere
    // As in `evaluateContinuous`: until then no tracking kind is recognized, so its threshold
    // bounds nothing; the count's fixing, which starts it, evaluates and remakes the box.
    let stepping = state == .open || !state.claimed.isEmpty
    var run = 0
    RecognizerTable.forEachContinuousKind { kind in
      narrowQuietBox(&box, kind, run: run, stepping: stepping)
      run += 1
    }
    return box
  }

  /// `quietBoxNow` for one kind, whose levels are `run`. Inlined with `kind` a constant, as
  /// `evaluateContinuous(_:run:…)`, so that the closure over the kinds is inlined too.
  @inline(__always)
  private func narrowQuietBox(_ box: inout QuietBox, _ kind: GestureKind, run: Int, stepping: Bool) {
    guard bound.continuousKinds.contains(kind) else { return }
    let recognized = recognizers.isRecognized(kind)
    guard recognized || recognizers.isTracking(kind) else { return }
    if stepWindows.indices.contains(run) { box.narrow(kind, to: stepWindows[run]) }
    if !recognized && stepping { box.narrow(kind, toAxesOf: thresholdBox) }
  }

  /// `evaluateContinuous` for one kind, whose levels are `run`. Inlined with `kind` a
  /// constant, so that every switch on it folds away rather than running at every level.
  @inline(__always)
  private mutating func evaluateContinuous(
    _ kind: GestureKind, run index: Int, levels run: Range<Int>, stepping: Bool, into output: inout [GestureEvent]
  ) {
    guard bound.continuousKinds.contains(kind) else { return }
    let recognized = recognizers.isRecognized(kind)
    guard recognized || recognizers.isTracking(kind) else { return }
    if !(stepWindows.indices.contains(index) && recognizers.isInside(kind, stepWindows[index])) {
      // `run` lies within `levels`: the test is always true, and spares the subscripts below
      // their own bounds checks, at every level of every frame.
      for i in run where levels.indices.contains(i) {
        guard recognizers.wouldMove(kind, levels[i]),
          let measure = recognizers.levelMeasure(kind, along: levels[i].direction)
        else { continue }
        let moved = levels[i].follow(measure)
        if recognized && stepping { fireSteps(level: i, count: levels[i].steps(for: moved), into: &output) }
      }
      if stepWindows.indices.contains(index), run.upperBound <= levels.count {
        stepWindows[index].enclose(levels[run])
      }
    }
    guard stepping, !recognized,
      let direction = recognizers.recognizeIfCrossed(kind, bound.continuous, limits: limits, trace: &tracer)
    else { return }
    self.recognized(kind, direction, into: &output)
    for i in run {
      fireSteps(level: i, count: levels[i].due, into: &output)
    }
  }

  /// `kind` won (or, in a group, joined) the sequence: every gesture that may not share it
  /// fails.
  private mutating func win(_ kind: GestureKind, into output: inout [GestureEvent]) {
    transition(.recognized(kind))
    if forwarding {
      if currentOutcome == .passThrough {
        let number = sequence.number
        impossible("sequence #\(number) passed through, then \(kind) won")
      }
      if isUndecided { decide(.claimed) }
    }
    let group = profile.simultaneous(in: sequence.region)
    var sharing = group.contains(kind) ? group : GestureKindSet()
    sharing.insert(kind)
    var fail = RecognizerActions.Fail(why: .otherGestureWon, sparing: sharing)
    forEachRecognizer(&fail, into: &output)
    if reportsStream { streams.end(.cancel, sparing: sharing, streamFrame, into: &streamEvents, trace: &tracer) }
  }

  private func event(binding: Int, gesture: GestureKind, phase: GestureEvent.Phase, direction: Direction?)
    -> GestureEvent
  {
    var event = GestureEvent(
      time: now, binding: binding, gesture: gesture, phase: phase, sequence: sequence.number,
      fingers: sequence.fingerCount, direction: direction, position: sequence.firstDown.clamped,
      region: sequence.region, profileGeneration: generation)
    recognizers.report(gesture, into: &event)
    if gesture == recognitionKind, phase != .oneShot, let reference = recognitionReference {
      (event.dx, event.dy) = track.offset(from: reference, geometry: geometry)
    }
    return event
  }

  private mutating func fire(
    binding: Int, gesture: GestureKind, direction: Direction? = nil, into output: inout [GestureEvent]
  ) {
    output.append(event(binding: binding, gesture: gesture, phase: .oneShot, direction: direction))
  }

  private mutating func fireSteps(level i: Int, count: Int, into output: inout [GestureEvent]) {
    for _ in 0..<max(0, count) {
      levels[i].fired += 1
      let level = levels[i]
      output.append(
        event(binding: level.binding, gesture: level.kind, phase: .step(level.fired), direction: level.direction))
    }
  }

  /// The sequence's steps are over: one end event per step binding that fired a step, with
  /// why; the streams going end too, for the same reason.
  private mutating func endSteps(_ reason: EndReason, into output: inout [GestureEvent]) {
    for i in levels.indices where levels[i].fired > 0 {
      let level = levels[i]
      var end = event(
        binding: level.binding, gesture: level.kind, phase: .end(steps: level.fired), direction: level.direction)
      end.endReason = reason
      output.append(end)
      levels[i].fired = 0
    }
    if reportsStream { streams.end(reason, streamFrame, into: &streamEvents, trace: &tracer) }
  }

  /// The sequence is cancelled from outside (device gone, reload): steps going end, nothing
  /// else fires, and its contacts are forgotten.
  mutating func reset(at time: Timestamp, into output: inout [GestureEvent]) {
    now = time
    if case .claimed = state { endSteps(.cancel, into: &output) }
    if state.isActive { transition(.reset) }
    liveContacts = 0
    chain.reset()
    // Nothing is decided for what was held: the runtime drops it with the reset.
    chainSequences.removeAll(keepingCapacity: true)
    currentOutcome = nil
    currentInChain = false
  }

  // MARK: Forwarding

  /// Whether the current sequence's frames are being held: forwarding, begun, and neither
  /// decided nor waiting in the tap chain.
  private var isUndecided: Bool {
    forwarding && sequence.number > 0 && currentOutcome == nil && !currentInChain
  }

  private mutating func decide(_ outcome: SequenceDisposition.Outcome) {
    currentOutcome = outcome
    record(SequenceDisposition(time: now, sequence: sequence.number, outcome: outcome))
  }

  /// The tap chain ended: every sequence waiting in it gets its outcome.
  private mutating func decideChain(_ outcome: SequenceDisposition.Outcome) {
    for number in chainSequences {
      if number == sequence.number { currentOutcome = outcome }
      record(SequenceDisposition(time: now, sequence: number, outcome: outcome))
    }
    chainSequences.removeAll(keepingCapacity: true)
  }

  private mutating func record(_ disposition: SequenceDisposition) {
    dispositions.append(disposition)
    if tracer.isOn { note("forwarding: \(disposition)") }
  }

  /// After every frame and deadline: an undecided sequence that can no longer become any
  /// bound gesture passes through now.
  private mutating func settleDisposition() {
    guard isUndecided, !canStillFire else { return }
    decide(.passThrough)
  }

  /// Whether some bound gesture can still come of the current sequence. Conservative: what
  /// the recognizers have not ruled out, for every finger count it may still reach.
  private var canStillFire: Bool {
    guard state.isActive, !state.isClosed else { return false }
    if !state.claimed.isEmpty { return true }
    let last = state == .landing ? TouchSequence.maxFingers : sequence.fingerCount
    let soFar = SequenceSoFar(
      lifted: sequence.firstLift != nil, age: now - sequence.startTime, thresholds: thresholds,
      near: EdgeProximity(start: sequence.firstDown.clamped, width: edgeWidth, geometry: geometry))
    for fingers in sequence.fingerCount...max(sequence.fingerCount, last) {
      let query = RecognizerQueries.CanStillFire(
        bound: index.sequence(region: sequence.region, fingers: fingers), sequence: soFar)
      var can = false
      RecognizerTable.forEachKind { kind in can = can || recognizers.ask(kind, query) }
      if can { return true }
    }
    return false
  }

  // MARK: Trace

  private mutating func trace<State: CustomStringConvertible>(_ name: String, _ t: Transition<State>?) {
    tracer.record(name, t)
  }

  /// Call as `if tracer.isOn { note(…) }` so that nothing is formatted when the trace is off.
  private mutating func note(_ message: String) {
    tracer.note(message)
  }

  /// Counts an input that cannot happen; the message is only built when tracing.
  private mutating func impossible(_ message: @autoclosure () -> String) {
    impossibleInputs += 1
    if tracer.isOn { tracer.note("impossible input: \(message())") }
  }
}
