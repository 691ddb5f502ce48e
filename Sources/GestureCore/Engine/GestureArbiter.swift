/// Runs the recognizers over one device's frames: follows the contacts and routes each to a
/// touch sequence (`SequenceArbiter`) when it lands. A contact belongs to the first listed
/// region that contains its landing point; in an independent region it joins that region's
/// sequence (or starts one), anywhere else the panel's shared sequence. It stays in its
/// sequence wherever it moves. A profile without independent regions has the shared
/// sequence only.
///
/// Pure: time comes in with frames and `advance(to:)`; `nextDeadline` is when it next needs
/// to run without a frame.
@usableFromInline
struct GestureArbiter {
  /// A contact the assembler reported as down.
  private struct Contact {
    var id: UInt32
    /// Dropped as stuck: ignored until it lifts. After `id`, so that the two share a word.
    var dropped = false
    /// Where its finger probably is among its independent sequence's (which holds fewer
    /// contacts than `contacts`, so the contact's own index is no guide). Beside `dropped`.
    var finger: UInt8 = 0
    /// Where it last moved more than `tap-slop`, and when: stuck-contact detection.
    var anchor: Point
    var anchorTime: Timestamp
    /// Its sequence: 0 the shared one, k the k-th of `independent`.
    var sequence: Int
  }

  static let maxContacts = 64

  /// What sequences that begin from now on recognize (`replaceProfile`).
  private(set) var profile: Profile
  let geometry: PanelGeometry
  private var stuckContact: Microseconds
  /// `tap-slop` for the per-frame comparisons, without a square root.
  private var slopLimit: DistanceLimit
  /// What a new sequence of an independent region is made with.
  private var index: BindingIndex
  /// Whether each region is independent; empty when none is.
  private var independentRegions: [Bool]
  /// Decides, instead of the regions' areas, which independent region a contact landing at a
  /// point (0...1 as the user sees the panel) joins; nil from it (or a region that is not
  /// independent): the shared sequence. The library's views move, so their regions have no fixed area.
  var landingRouter: (@Sendable (Point) -> Int?)?
  private var hasIndependentRegions: Bool
  /// Counts `replaceProfile` calls: a sequence value made before the last one is remade
  /// before it begins a sequence.
  private(set) var profileGeneration = 0
  /// Whether the sequences report more than firings (trace, records, dispositions, stream),
  /// which `flush` then moves here.
  private var sequencesReport = false

  private var contacts: [Contact] = []
  /// The earliest `anchorTime` of the contacts not dropped (`Int64.max`: none), which the
  /// stuck-contact deadline is worked out from, while `oldestAnchorKnown`; a change that may
  /// raise it clears that, and `earliestDue` looks at every contact again.
  private var oldestAnchor = Int64.max
  private var oldestAnchorKnown = true
  /// Where `movedContact(_:)` starts looking.
  private var lookupHint = 0
  private var shared: SequenceArbiter
  /// The independent regions' sequences: a value serves one region while it has contacts or
  /// a tap chain waiting (`route`), then another; never more than the contacts need.
  private var independent: [SequenceArbiter] = []
  /// How many sequence values the independent regions have needed at once so far.
  var independentSequences: Int { independent.count }
  /// The number of the last sequence begun, on any route.
  private var lastSequence = 0
  private var now = Timestamp(microseconds: 0)
  private var tracer = Tracer()

  /// Recognizer transitions, as text, when `tracing` is on (the daemon's --verbose).
  var tracing: Bool {
    get { tracer.isOn }
    set {
      tracer.isOn = newValue
      shared.tracer.isOn = newValue
      for k in independent.indices { independent[k].tracer.isOn = newValue }
      updateSequencesReport()
    }
  }
  var traceLines: [String] {
    get { tracer.lines }
    set { tracer.lines = newValue }
  }
  /// Structured records (`TraceRecord`) while on; taken with `takeRecords()`.
  var keepsRecords: Bool {
    get { tracer.keepsRecords }
    set {
      tracer.keepsRecords = newValue
      shared.tracer.keepsRecords = newValue
      for k in independent.indices { independent[k].tracer.keepsRecords = newValue }
      updateSequencesReport()
    }
  }
  mutating func takeRecords() -> [TraceRecord] {
    defer { tracer.records.removeAll(keepingCapacity: true) }
    return tracer.records
  }
  /// Inputs that cannot happen if the frame assembler and this arbiter are right (a contact
  /// moving that never landed, an event the sequence state has no transition for). Counted
  /// always, traced when tracing: never silently ignored.
  @inline(__always)
  @usableFromInline var impossibleInputs: Int {
    independent.reduce(ownImpossibleInputs + shared.impossibleInputs) { $0 + $1.impossibleInputs }
  }
  /// Those the contacts' bookkeeping found (the sequences count their own).
  private var ownImpossibleInputs = 0

  /// Whether a frame in which no contact lands or lifts can fire something now: a bound
  /// pan, pinch or rotation steps on moves, and a tap chain whose next tap is under way
  /// ends (and fires) as soon as that tap slides beyond the slop. Everything else fires at
  /// a landing, a lift or a deadline. The daemon reads a panel's movement in batches while
  /// this is false (docs/devices.md, "Reading at contact changes").
  @inline(__always)
  var firesOnMoves: Bool {
    shared.firesOnMoves || independent.contains { $0.route != nil && $0.firesOnMoves }
  }

  /// Whether a landing on the idle panel may be read late (see `DeviceEngine.landingMayWait`).
  @inline(__always)
  var landingMayWait: Bool {
    landingsMayWait && shared.isDone && !independent.contains { $0.route != nil && !$0.isDone }
  }
  /// What `landingMayWait` asks of the profile, worked out when it is set.
  private var landingsMayWait: Bool

  /// Nothing is forwarded, and no binding fires on moves or while a finger is held.
  private static func landingsMayWait(_ profile: Profile) -> Bool {
    !profile.forward
      && !profile.bindings.contains { binding in
        let recognizer = RecognizerTable.recognizer(of: binding.gesture)
        return recognizer.firesOnMoves(binding) || recognizer.firesWhileHeld(binding)
      }
  }

  /// Whether a deadline can fire something now (see `SequenceArbiter.deadlineCanFire`).
  @inline(__always)
  var deadlineCanFire: Bool {
    shared.deadlineCanFire || independent.contains { $0.route != nil && $0.deadlineCanFire }
  }

  /// `DeviceEngine.readingState()`: mutating (though it changes nothing), so that the
  /// sequences are asked in place.
  mutating func readingState(contactsDown: Int) -> DeviceEngine.ReadingState {
    let due = nextDeadline
    return DeviceEngine.ReadingState(
      contactsDown: contactsDown, landingMayWait: landingMayWait, firesBetweenContactChanges: firesOnMoves,
      nextDeadline: due, nextFiringDeadline: deadlineCanFire ? due : nil, impossibleInputs: impossibleInputs)
  }

  /// Forwarding: decisions since the runtime last took them, in the order they happened.
  var dispositions: [SequenceDisposition] = []
  /// See `DeviceEngine.reportsStream`.
  var reportsStream = false {
    didSet {
      shared.reportsStream = reportsStream
      for k in independent.indices { independent[k].reportsStream = reportsStream }
      updateSequencesReport()
    }
  }
  var streamEvents: [GestureStreamEvent] = []
  /// The sequence the last frame belonged to: the shared sequence's when it was active,
  /// otherwise the first independent one active (nil: no sequence was active in it).
  private(set) var frameSequence: Int?
  /// The number of the first independent sequence active, as the last `process`, `advance`
  /// or `reset` left them (only those change them): a frame's sequence when the shared one
  /// is not active, without a look at every sequence as each frame begins.
  private var firstActiveIndependent: Int?

  init(profile: Profile, geometry: PanelGeometry) {
    self.profile = profile
    self.geometry = geometry
    landingsMayWait = Self.landingsMayWait(profile)
    stuckContact = profile.thresholds.stuckContact
    slopLimit = DistanceLimit(profile.thresholds.tapSlop.millimetres(diagonal: geometry.diagonal))
    index = BindingIndex(profile: profile, maxFingers: TouchSequence.maxFingers)
    independentRegions = profile.regions.contains(where: \.independent) ? profile.regions.map(\.independent) : []
    hasIndependentRegions = !independentRegions.isEmpty
    shared = SequenceArbiter(profile: profile, geometry: geometry, index: index)
    shared.generation = profileGeneration
    contacts.reserveCapacity(Self.maxContacts)
    independent.reserveCapacity(min(independentRegions.count { $0 }, Self.maxContacts))
    sequencesReport = profile.forward
    nextDeadline = earliestDue()
  }

  /// Recognizes `newProfile` in the sequences that begin from now on; the sequences in
  /// progress (their contacts, their tap chains) keep the profile they began with, and their
  /// events the binding and region indices of it. The new profile keeps the old one's
  /// regions at their indices (it may add more): a landing in a region whose sequence is in
  /// progress joins that sequence. The thresholds of contacts (stuck contact, slop) apply to
  /// every contact from now on.
  mutating func replaceProfile(_ newProfile: Profile) {
    profile = newProfile
    landingsMayWait = Self.landingsMayWait(newProfile)
    stuckContact = newProfile.thresholds.stuckContact
    slopLimit = DistanceLimit(newProfile.thresholds.tapSlop.millimetres(diagonal: geometry.diagonal))
    index = BindingIndex(profile: newProfile, maxFingers: TouchSequence.maxFingers)
    let independent = newProfile.regions.contains(where: \.independent)
    independentRegions = independent ? newProfile.regions.map(\.independent) : []
    // Sequences of the old profile's independent regions may still be in progress.
    hasIndependentRegions = hasIndependentRegions || independent
    profileGeneration += 1
    if shared.isDone { shared = newSequence() }
    for k in self.independent.indices where self.independent[k].route == nil { self.independent[k] = newSequence() }
    updateSequencesReport()
    nextDeadline = earliestDue()
  }

  /// A sequence value of the current profile, reporting what the arbiter reports.
  private func newSequence() -> SequenceArbiter {
    var sequence = SequenceArbiter(profile: profile, geometry: geometry, index: index)
    sequence.generation = profileGeneration
    sequence.now = now
    sequence.tracer.isOn = tracer.isOn
    sequence.tracer.keepsRecords = tracer.keepsRecords
    sequence.reportsStream = reportsStream
    return sequence
  }

  /// The oldest profile generation a sequence not done may still fire with; the current one
  /// when every sequence is done.
  var oldestGenerationInUse: Int {
    var oldest = shared.isDone ? profileGeneration : shared.generation
    for sequence in independent where sequence.route != nil { oldest = min(oldest, sequence.generation) }
    return oldest
  }

  /// The number of the last touch sequence begun; the next one's is greater.
  var lastSequenceNumber: Int { lastSequence }

  private mutating func updateSequencesReport() {
    sequencesReport = tracer.isOn || tracer.keepsRecords || reportsStream || profile.forward
  }

  // MARK: Time

  /// The earliest time something is due, or nil when idle: `earliestDue()` as of the end of
  /// the last `process`, `advance` or `reset`. Stored, because the arbiter's state only
  /// changes there, and the engine reads it for every raw event.
  @usableFromInline private(set) var nextDeadline: Timestamp?

  /// The earliest time something is due, worked out from the state. Mutating (though it
  /// changes nothing), so that the sequences are asked in place.
  @inline(__always)
  private mutating func earliestDue() -> Timestamp? {
    // A plain integer and a flag rather than an optional compared and rewritten at each step.
    var next = Int64.max
    var found = false
    shared.earliestDue(&next, &found)
    if hasIndependentRegions { independentEarliestDue(&next, &found) }
    return withStuckContactDue(next, found)
  }

  /// `next` (when `found`) or the stuck-contact deadline, whichever is earlier: what
  /// `earliestDue()` makes of what the sequences have due.
  @inline(__always)
  private mutating func withStuckContactDue(_ next: Int64, _ found: Bool) -> Timestamp? {
    var next = next
    var found = found
    if !oldestAnchorKnown { findOldestAnchor() }
    if oldestAnchor != Int64.max {
      let t = Timestamp(microseconds: oldestAnchor) + stuckContact
      if t.microseconds <= next {
        next = t.microseconds
        found = true
      }
    }
    return found ? Timestamp(microseconds: next) : nil
  }

  private mutating func findOldestAnchor() {
    oldestAnchor = Int64.max
    for contact in contacts where !contact.dropped {
      oldestAnchor = min(oldestAnchor, contact.anchorTime.microseconds)
    }
    oldestAnchorKnown = true
  }

  @inline(never)
  private mutating func independentEarliestDue(_ next: inout Int64, _ found: inout Bool) {
    for k in independent.indices { _ = independent[k].earliestDueOnRoute(&next, &found) }
  }

  /// Whether every sequence's kept due is current (`SequenceArbiter.knownDueIsCurrent`).
  mutating func knownDuesAreCurrent() -> Bool {
    var current = shared.knownDueIsCurrent()
    for k in independent.indices { current = independent[k].knownDueIsCurrent() && current }
    return current
  }

  /// The number of the first independent sequence active now.
  private func independentFirstActive() -> Int? {
    independent.first { $0.route != nil && $0.state.isActive }?.sequence.number
  }

  /// Runs everything due at or before `time`, in time order.
  mutating func advance(to time: Timestamp, into output: inout [GestureEvent]) {
    defer {
      nextDeadline = earliestDue()
      if hasIndependentRegions { firstActiveIndependent = independentFirstActive() }
    }
    var previous: Timestamp? = nil
    while let due = earliestDue(), due <= time {
      // Every deadline handler moves its state on; this only guards against a bug hanging
      // the daemon.
      if let previous, due <= previous {
        impossible("deadline \(due) did not move on")
        break
      }
      previous = due
      setNow(due)
      runDeadlines(at: due, into: &output)
    }
  }

  private mutating func runDeadlines(at time: Timestamp, into output: inout [GestureEvent]) {
    shared.runDeadlines(at: time, into: &output)
    flushShared()
    for k in independent.indices where independent[k].route != nil {
      independent[k].runDeadlines(at: time, into: &output)
      flushIndependent(k)
    }
    for i in contacts.indices where !contacts[i].dropped && time >= contacts[i].anchorTime + stuckContact {
      contacts[i].dropped = true
      oldestAnchorKnown = false
      if tracer.isOn { note("contact \(contacts[i].id) dropped: no movement for \(stuckContact / 1000) ms") }
      let k = contacts[i].sequence
      if k == 0 {
        shared.liveContacts -= 1
        if shared.state.isActive { shared.cancelSequence(into: &output) }
        flushShared()
      } else {
        independent[k - 1].liveContacts -= 1
        if independent[k - 1].state.isActive { independent[k - 1].cancelSequence(into: &output) }
        flushIndependent(k - 1)
      }
    }
    shared.deadlinesRan(into: &output)
    flushShared()
    for k in independent.indices where independent[k].route != nil {
      independent[k].deadlinesRan(into: &output)
      flushIndependent(k)
    }
  }

  @inline(__always)
  private mutating func setNow(_ time: Timestamp) {
    now = time
    shared.now = time
    if hasIndependentRegions { setIndependentNow(time) }
  }

  @inline(never)
  private mutating func setIndependentNow(_ time: Timestamp) {
    for k in independent.indices { independent[k].now = time }
  }

  // MARK: Frames

  mutating func process(_ frame: TouchFrame, into output: inout [GestureEvent]) {
    frame.changes.withUnsafeBufferPointer { process(at: frame.time, $0, into: &output) }
  }

  /// One frame: its time and its changes (the assembler's buffer, read during the call).
  mutating func process(
    at time: Timestamp, _ changes: UnsafeBufferPointer<ContactChange>, into output: inout [GestureEvent]
  ) {
    // The independent sequences are given the time as they are reached: by a change of
    // theirs or as their frame ends.
    now = time
    shared.now = time
    frameSequence = shared.state.isActive ? shared.sequence.number : firstActiveIndependent
    // What the sequences trace and decide is taken once, after the frame: a sequence's lines
    // stay together, and the shared sequence's come in the order they happened.
    if hasIndependentRegions {
      let moves = leadingMovesWithRegions(changes, into: &output)
      if moves < changes.count { changesWithRegions(changes[moves...], frame: changes, into: &output) }
    } else {
      for change in changes {
        switch change.phase {
        case .began: began(change, into: &output)
        case .moved: moved(change, into: &output)
        case .ended, .cancelled: ended(change, frame: changes, into: &output)
        }
      }
    }
    shared.frameEnded(into: &output)
    flushShared()
    // `earliestDue()`, with each independent sequence asked as its frame ends: one pass over them.
    // At the end rather than in a `defer` (nothing returns early), which became a call.
    var next = Int64.max
    var found = false
    shared.earliestDue(&next, &found)
    if hasIndependentRegions { independentFramesEnded(&next, &found, into: &output) }
    nextDeadline = withStuckContactDue(next, found)
  }

  /// The moves that lead a frame where the profile has independent regions (most frames
  /// hold nothing else): into the pool through one buffer, one uniqueness check rather than
  /// one each. Stops at the first other change, or a move of a contact not followed, and
  /// returns its index. Inlined into `process`, so that the buffer's closure is its only
  /// call.
  @inline(__always)
  private mutating func leadingMovesWithRegions(
    _ changes: UnsafeBufferPointer<ContactChange>, into output: inout [GestureEvent]
  ) -> Int {
    independent.withUnsafeMutableBufferPointer { pool in
      // What a move reads and changes of the arbiter, named one by one: the pool is `self`'s
      // for the call.
      var index = 0
      while index < changes.count {
        let change = changes[index]
        guard change.phase == .moved, let (c, contact) = Self.find(change.id, in: contacts, hint: &lookupHint)
        else { break }
        index += 1
        guard !contact.dropped else { continue }
        if slopLimit.isExceeded(bySquared: geometry.squaredDistance(contact.anchor, change.position)) {
          Self.reanchor(
            contact, at: c, to: change.position, in: &contacts, now: now, oldestAnchor: oldestAnchor,
            oldestAnchorKnown: &oldestAnchorKnown)
        }
        let k = contact.sequence
        if k == 0 {
          shared.moved(change, likely: c, at: now, into: &output)
        } else {
          pool[k - 1].moved(change, likely: Int(contact.finger), at: now, into: &output)
        }
      }
      return index
    }
  }

  /// `process`'s loop over a frame's `changes` after its leading moves where the profile has
  /// independent regions, with the moves into independent sequences inlined
  /// (`movedWithRegions`); `frame`: every change of the frame.
  @inline(never)
  private mutating func changesWithRegions(
    _ changes: Slice<UnsafeBufferPointer<ContactChange>>, frame: UnsafeBufferPointer<ContactChange>,
    into output: inout [GestureEvent]
  ) {
    for change in changes {
      switch change.phase {
      case .began: began(change, into: &output)
      case .moved: movedWithRegions(change, into: &output)
      case .ended, .cancelled: ended(change, frame: frame, into: &output)
      }
    }
  }

  /// Each independent sequence's frame ends, and what it has due then lowers `next`.
  @inline(never)
  private mutating func independentFramesEnded(
    _ next: inout Int64, _ found: inout Bool, into output: inout [GestureEvent]
  ) {
    var first: Int?
    for k in independent.indices {
      if let number = independent[k].frameEndedOnRoute(at: now, &next, &found, into: &output), first == nil {
        first = number
      }
    }
    firstActiveIndependent = first
    // After the loop, which then calls nothing else on the pool; each value's in turn, so
    // that what one reported stays together.
    if sequencesReport { for k in independent.indices { flushReportingIndependent(k) } }
  }

  /// Where contact `id` is in `contacts`, and the contact. A frame lists its moves in the
  /// order the contacts landed, mostly (slot or report order), so the contact after the one
  /// found last (after the last, the first) is tried first: one comparison per move instead
  /// of half the contacts. Ids are unique in `contacts`: the order of the search does not
  /// change what it finds.
  @inline(__always)
  private mutating func movedContact(_ id: UInt32) -> (index: Int, contact: Contact)? {
    Self.find(id, in: contacts, hint: &lookupHint)
  }

  /// `movedContact` on `contacts` and its `hint`, `lookupHint`.
  @inline(__always)
  private static func find(_ id: UInt32, in contacts: [Contact], hint: inout Int) -> (index: Int, contact: Contact)? {
    var likely = hint
    if likely == contacts.count { likely = 0 }
    // The subscript's own bounds check, made first: one unsigned comparison.
    if UInt(bitPattern: likely) < UInt(bitPattern: contacts.count) {
      let contact = contacts[likely]
      if contact.id == id {
        hint = likely + 1
        return (likely, contact)
      }
    }
    guard let index = contacts.firstIndex(where: { $0.id == id }) else { return nil }
    hint = index + 1
    return (index, contacts[index])
  }

  private mutating func began(_ change: ContactChange, into output: inout [GestureEvent]) {
    if contacts.contains(where: { $0.id == change.id }) {
      impossible("contact \(change.id) landed twice")
      return
    }
    guard contacts.count < Self.maxContacts else {
      impossible("more than \(Self.maxContacts) contacts")
      return
    }
    let k = route(of: change.position)
    contacts.append(Contact(id: change.id, anchor: change.position, anchorTime: now, sequence: k))
    oldestAnchor = min(oldestAnchor, now.microseconds)
    if k == 0 {
      if shared.generation != profileGeneration, shared.isDone { shared = newSequence() }
      shared.liveContacts += 1
      if shared.began(change, number: &lastSequence, into: &output) { frameSequence = lastSequence }
    } else {
      independent[k - 1].now = now
      independent[k - 1].liveContacts += 1
      if independent[k - 1].began(change, number: &lastSequence, into: &output), frameSequence == nil {
        frameSequence = lastSequence
      }
      contacts[contacts.count - 1].finger = UInt8(truncatingIfNeeded: independent[k - 1].sequence.fingerCount - 1)
    }
  }

  /// The number of the touch sequence contact `id` is in, with independent regions (nil
  /// without them: every contact is in the frame's sequence; or when it is not followed).
  func sequenceNumber(ofContact id: UInt32) -> Int? {
    guard hasIndependentRegions, let contact = contacts.first(where: { $0.id == id }) else { return nil }
    return contact.sequence == 0 ? shared.sequence.number : independent[contact.sequence - 1].sequence.number
  }

  /// The sequence a contact landing at `position` joins: 0 the shared one, k the k-th of
  /// `independent` (taken for its region if none serves it yet).
  private mutating func route(of position: Point) -> Int {
    let p = position.clamped
    let region: Int
    if let landingRouter {
      guard let routed = landingRouter(p), independentRegions.indices.contains(routed), independentRegions[routed]
      else { return 0 }
      region = routed
    } else {
      guard !independentRegions.isEmpty else { return 0 }
      guard let found = profile.region(atX: p.x, y: p.y), independentRegions[found] else { return 0 }
      region = found
    }
    if let k = independent.firstIndex(where: { $0.route == region }) { return k + 1 }
    if let k = independent.firstIndex(where: { $0.route == nil }) {
      if independent[k].generation != profileGeneration { independent[k] = newSequence() }
      independent[k].route = region
      return k + 1
    }
    var sequence = newSequence()
    sequence.route = region
    independent.append(sequence)
    return independent.count
  }

  /// Inlined into `process`, with what most moves need: the contact's anchor and the
  /// finger's position.
  @inline(__always)
  private mutating func moved(_ change: ContactChange, into output: inout [GestureEvent]) {
    guard let (c, contact) = anchoredContact(change) else { return }
    let k = contact.sequence
    if k == 0 {
      shared.moved(change, likely: c, at: now, into: &output)
    } else {
      independentMoved(k - 1, change, likely: c, into: &output)
    }
  }

  /// `moved` where the profile has independent regions, with the move into an independent
  /// sequence inlined.
  @inline(__always)
  private mutating func movedWithRegions(_ change: ContactChange, into output: inout [GestureEvent]) {
    guard let (c, contact) = anchoredContact(change) else { return }
    let k = contact.sequence
    if k == 0 {
      shared.moved(change, likely: c, at: now, into: &output)
    } else {
      independent[k - 1].moved(change, likely: Int(contact.finger), at: now, into: &output)
    }
  }

  /// The moved contact, its anchor followed (where and since when it rests, for
  /// `stuck-contact`) and where it is in `contacts`; nil when it is not followed.
  @inline(__always)
  private mutating func anchoredContact(_ change: ContactChange) -> (index: Int, contact: Contact)? {
    guard let (c, contact) = movedContact(change.id) else {
      impossible("contact \(change.id) moved without landing")
      return nil
    }
    guard !contact.dropped else { return nil }
    if slopLimit.isExceeded(bySquared: geometry.squaredDistance(contact.anchor, change.position)) {
      Self.reanchor(
        contact, at: c, to: change.position, in: &contacts, now: now, oldestAnchor: oldestAnchor,
        oldestAnchorKnown: &oldestAnchorKnown)
    }
    return (c, contact)
  }

  /// Contact `contact`, at `c` in `contacts`, moved beyond the slop from its anchor: it rests
  /// at `position` since `now`, and the oldest anchor is looked for again if it was that.
  @inline(__always)
  private static func reanchor(
    _ contact: Contact, at c: Int, to position: Point, in contacts: inout [Contact], now: Timestamp,
    oldestAnchor: Int64, oldestAnchorKnown: inout Bool
  ) {
    contacts[c].anchor = position
    contacts[c].anchorTime = now
    if contact.anchorTime.microseconds == oldestAnchor { oldestAnchorKnown = false }
  }

  /// Out of line: `moved` runs while `hasIndependentRegions` is false, when no contact is in
  /// an independent sequence, so its loop stays small.
  @inline(never)
  private mutating func independentMoved(
    _ k: Int, _ change: ContactChange, likely c: Int, into output: inout [GestureEvent]
  ) {
    independent[k].moved(change, likely: c, at: now, into: &output)
  }

  /// `frame`: every change of the frame `change` is in.
  private mutating func ended(
    _ change: ContactChange, frame: UnsafeBufferPointer<ContactChange>, into output: inout [GestureEvent]
  ) {
    guard let c = contacts.firstIndex(where: { $0.id == change.id }) else {
      impossible("contact \(change.id) lifted without landing")
      return
    }
    let contact = contacts.remove(at: c)
    oldestAnchorKnown = false
    guard !contact.dropped else { return }
    if contact.sequence == 0 {
      shared.liveContacts -= 1
      shared.ended(change, frame: frame, into: &output)
    } else {
      let k = contact.sequence - 1
      independent[k].now = now
      independent[k].liveContacts -= 1
      independent[k].ended(change, frame: frame, into: &output)
    }
  }

  /// Every sequence is cancelled from outside (device gone, reload): steps going end,
  /// nothing else fires, and every contact is forgotten.
  mutating func reset(at time: Timestamp, into output: inout [GestureEvent]) {
    defer {
      nextDeadline = earliestDue()
      firstActiveIndependent = independentFirstActive()
    }
    setNow(time)
    shared.reset(at: time, into: &output)
    flushShared()
    for k in independent.indices where independent[k].route != nil {
      independent[k].reset(at: time, into: &output)
      flushIndependent(k)
      independent[k].route = nil
    }
    contacts.removeAll(keepingCapacity: true)
    oldestAnchor = Int64.max
    if tracer.isOn { note("reset: device gone") }
  }

  // MARK: What the sequences report

  @inline(__always)
  private mutating func flushShared() {
    guard sequencesReport else { return }
    shared.flush(into: &tracer, dispositions: &dispositions, streamEvents: &streamEvents)
  }

  /// The test inlined, the flush not: a frame that reports nothing makes no call per sequence.
  @inline(__always)
  private mutating func flushIndependent(_ k: Int) {
    if sequencesReport { flushReportingIndependent(k) }
  }

  @inline(never)
  private mutating func flushReportingIndependent(_ k: Int) {
    independent[k].flush(into: &tracer, dispositions: &dispositions, streamEvents: &streamEvents)
  }

  /// Call as `if tracer.isOn { note(…) }` so that nothing is formatted when the trace is off.
  private mutating func note(_ message: String) {
    flushAll()
    tracer.now = now
    tracer.note(message)
  }

  /// Counts an input that cannot happen; the message is only built when tracing, after what
  /// the sequences traced before it.
  private mutating func impossible(_ message: @autoclosure () -> String) {
    ownImpossibleInputs += 1
    if tracer.isOn { note("impossible input: \(message())") }
  }

  private mutating func flushAll() {
    flushShared()
    for k in independent.indices { flushIndependent(k) }
  }
}
