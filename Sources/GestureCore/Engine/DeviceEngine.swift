/// One device's whole pipeline: raw events → frames → recognizers → gesture events.
///
/// Pure: time comes in with the events and through `advance(to:)`; `nextDeadline` says when
/// the engine next needs to be woken if no event arrives. A deadline at T runs after every
/// event stamped at or before T, so live reading and replay agree.
public struct DeviceEngine {
  public let device: DeviceDescription
  /// What sequences that begin from now on recognize (`replaceProfile`).
  public private(set) var profile: Profile
  public let geometry: PanelGeometry
  /// What makes a contact a palm on this panel (`palm-size`), for recognition and the forward gate.
  public let palmRule: PalmRule
  // Internal for DeviceEngine+Observing.swift.
  @usableFromInline private(set) var assembler: FrameAssembler
  @usableFromInline var arbiter: GestureArbiter
  /// When the engine next needs `advance(to:)` if no event comes: worked out by the
  /// arbiter only when it ran (a frame, a deadline, a cancel), since raw events between
  /// frames cannot move it; reading it is one load, inlined where the engine is.
  @inlinable public var nextDeadline: Timestamp? { arbiter.nextDeadline }

  /// nil when the device cannot report a position (no usable axes).
  public init?(device: DeviceDescription, profile: Profile) {
    guard device.touchProtocol != nil, let geometry = PanelGeometry(device: device, profile: profile) else {
      return nil
    }
    self.device = device
    self.profile = profile
    self.geometry = geometry
    palmRule = PalmRule(device: device, palmSize: profile.thresholds.palmSize, diagonal: geometry.diagonal)
    assembler = FrameAssembler(device: device, geometry: geometry, palm: palmRule)
    arbiter = GestureArbiter(profile: profile, geometry: geometry)
  }

  /// Recognizer transitions are collected as text while this is on (--verbose).
  public var tracing: Bool {
    get { arbiter.tracing }
    set { arbiter.tracing = newValue }
  }

  /// Inputs that cannot happen if the engine is right, counted since it was made (see
  /// `GestureArbiter.impossibleInputs`); the daemon logs when this grows.
  @inlinable public var impossibleInputs: Int { arbiter.impossibleInputs }

  /// The trace lines collected since the last call.
  public mutating func takeTrace() -> [String] {
    defer { arbiter.traceLines.removeAll(keepingCapacity: true) }
    return arbiter.traceLines
  }

  /// Contacts down after the last frame, as the kernel reported them.
  @inlinable public var contactsDown: Int { assembler.activeContacts }

  /// The absolute axes recognition reads (`FrameAssembler.axesRead`).
  public var axesRead: [UInt16]? { assembler.axesRead }

  /// Whether a frame in which no contact lands or lifts can fire something now (a bound
  /// pan, pinch or rotation; a tap chain's next tap under way). While false, only a frame
  /// with a contact landing or lifting, or a deadline, can fire: a reader may take the
  /// frames in between late, in batches, and nothing fires later than it would have.
  public var firesBetweenContactChanges: Bool { arbiter.firesOnMoves }

  /// Whether a contact landing on the idle panel now may be handled late, with the frames
  /// after it (the next batch, or the next landing or lift): no binding fires on moves or by
  /// time while a contact is held (a long press), frames are not forwarded, and nothing is
  /// left of the last sequence (no tap chain waiting). Its events keep their times, so the
  /// same gestures fire, and none later than it would have.
  public var landingMayWait: Bool { arbiter.landingMayWait }

  /// `nextDeadline` when a deadline could fire something now, nil when every deadline
  /// pending only moves the state on (the landing's end, a contact held still): the engine
  /// runs those by itself before the next event stamped after them, and nothing fires
  /// later for waiting. A reader that takes frames in batches arms its timer for this
  /// one, and runs the others when it reads.
  public var nextFiringDeadline: Timestamp? { arbiter.deadlineCanFire ? nextDeadline : nil }

  /// What a reader asks after each read, answered at once: `contactsDown`,
  /// `landingMayWait`, `firesBetweenContactChanges`, `nextDeadline`, `nextFiringDeadline`
  /// and `impossibleInputs` as the getters above give them.
  public struct ReadingState: Equatable, Sendable {
    public var contactsDown: Int
    public var landingMayWait: Bool
    public var firesBetweenContactChanges: Bool
    public var nextDeadline: Timestamp?
    public var nextFiringDeadline: Timestamp?
    public var impossibleInputs: Int
  }

  /// The reading state, worked out on the engine where it is: a getter called on an engine
  /// held in a class runs on a copy of the whole engine, a mutating call does not (it
  /// changes nothing). Not inlined into the caller, where the getters it asks would copy.
  @inline(never)
  public mutating func readingState() -> ReadingState {
    arbiter.readingState(contactsDown: assembler.activeContacts)
  }

  /// Whether the continuous gestures' streams are collected in `streamEvents` (replay and
  /// monitor with --continuous, the library). Off, no value is computed that no binding needs.
  public var reportsStream: Bool {
    get { arbiter.reportsStream }
    set { arbiter.reportsStream = newValue }
  }
  /// Decides which independent region a contact landing at a point (0...1 as the user sees
  /// the panel) joins, instead of the regions' areas; nil from it, or a region that is not
  /// independent: the panel's shared sequence. For regions whose place changes (the library's views): set
  /// before a landing, it applies to that landing. Called on the engine's caller's thread.
  public var landingRouter: (@Sendable (Point) -> Int?)? {
    get { arbiter.landingRouter }
    set { arbiter.landingRouter = newValue }
  }
  /// Recognizes `newProfile` in the touch sequences that begin from now on, while the ones
  /// in progress go on with the profile they began with (their events keep its binding and
  /// region indices): a change that never cancels a gesture. `newProfile` keeps the old
  /// profile's regions at their indices and its panel (rotation, size, palm size); it may
  /// add regions and change bindings and thresholds.
  public mutating func replaceProfile(_ newProfile: Profile) {
    profile = newProfile
    arbiter.replaceProfile(newProfile)
  }

  /// Counts `replaceProfile` calls: the generation of the profile the sequences that begin
  /// from now on recognize (`GestureEvent.profileGeneration`).
  public var profileGeneration: Int { arbiter.profileGeneration }

  /// The oldest profile generation a sequence in progress (contacts down, a tap chain
  /// waiting) may still fire with; `profileGeneration` when none is in progress.
  public var oldestGenerationInUse: Int { arbiter.oldestGenerationInUse }

  /// The number of the last touch sequence begun; every later one's is greater.
  public var lastSequenceNumber: Int { arbiter.lastSequenceNumber }

  /// Stream events since the last `clearStreamEvents()`, in order.
  public var streamEvents: [GestureStreamEvent] { arbiter.streamEvents }
  public mutating func clearStreamEvents() { arbiter.streamEvents.removeAll(keepingCapacity: true) }

  /// Forwarding (`forward: true`): what became of touch sequences since the last
  /// `clearDispositions()`, in order (empty for a profile that does not forward).
  public var dispositions: [SequenceDisposition] { arbiter.dispositions }
  public mutating func clearDispositions() { arbiter.dispositions.removeAll(keepingCapacity: true) }
  /// The touch sequence the last completed frame belonged to; nil when no sequence was
  /// active in it (such a frame is never held).
  public var frameSequence: Int? { arbiter.frameSequence }
  /// The touch sequence of the contact in protocol B slot `slot`, when the profile has
  /// independent regions (a frame's contacts may then be in several); nil otherwise, or
  /// for a slot without a followed contact (a palm): the frame's sequence stands.
  public func sequence(ofSlot slot: Int) -> Int? {
    guard let id = assembler.reportedContact(inSlot: slot) else { return nil }
    return arbiter.sequenceNumber(ofContact: id)
  }

  /// A protocol A frame's report `index` (counting the reports that carried a position, in
  /// the order the panel listed them): the contact it continues or began, and that
  /// contact's touch sequence when the profile has independent regions. nil for a report
  /// the engine does not follow (a pen or a palm).
  public func contact(atReport index: Int) -> (id: UInt32, sequence: Int?)? {
    guard let id = assembler.reportedContact(atReport: index) else { return nil }
    return (id, arbiter.sequenceNumber(ofContact: id))
  }

  /// Feeds one raw event. Deadlines stamped before the event run first.
  public mutating func handle(_ event: RawEvent, into output: inout [GestureEvent]) {
    feed(event, as: assembler.mode, into: &output)
  }

  /// Feeds the events of one read, in order: the same as `handle` on each in turn, in one
  /// call, since most events are less work than a call. Firings of every
  /// frame the batch completes are appended to `output`, in order, each with its frame's time.
  /// What describes the last frame (`completedFrame`, `frameSequence`) describes the batch's
  /// last event only: a caller that needs it per frame (forwarding, the live view) passes
  /// at most one frame per call, the events up to and including its SYN_REPORT.
  public mutating func handle(events: UnsafeBufferPointer<RawEvent>, into output: inout [GestureEvent]) {
    // The protocol decided once per batch: each event's path then holds no test of it.
    // One function per loop: in one body, the compiler stopped inlining the second.
    switch assembler.mode {
    case .slots: handleSlotEvents(events, into: &output)
    case .anonymous: handleAnonymousEvents(events, into: &output)
    case .singleTouch, .inert: handleEachEvent(events, into: &output)
    }
  }

  /// `handle` on each event in turn. A function of its own, so that `handle(events:into:)`
  /// saves no registers for this loop before the call it makes for the other protocols.
  @inline(never)
  private mutating func handleEachEvent(_ events: UnsafeBufferPointer<RawEvent>, into output: inout [GestureEvent]) {
    for event in events { handle(event, into: &output) }
  }

  /// Positions go in a tight loop (`takeSlotPositions`); each event it stops at (a frame's
  /// end, a contact's start or end, a deadline due before it) goes through `feed`.
  private mutating func handleSlotEvents(_ events: UnsafeBufferPointer<RawEvent>, into output: inout [GestureEvent]) {
    var index = 0
    while index < events.count {
      index = assembler.takeSlotPositions(events, from: index, latest: latestWithoutDeadline)
      guard index < events.count else { return }
      feed(events[index], as: .slots, into: &output)
      index += 1
    }
  }

  /// As `handleSlotEvents`, with `takeAnonymousReports`.
  private mutating func handleAnonymousEvents(
    _ events: UnsafeBufferPointer<RawEvent>, into output: inout [GestureEvent]
  ) {
    var index = 0
    while index < events.count {
      index = assembler.takeAnonymousReports(events, from: index, latest: latestWithoutDeadline)
      guard index < events.count else { return }
      feed(events[index], as: .anonymous, into: &output)
      index += 1
    }
  }

  /// The latest event time that runs no deadline first (`feed` runs one due before its event).
  private var latestWithoutDeadline: Int64 { nextDeadline?.microseconds ?? .max }

  @inline(__always)
  private mutating func feed(_ event: RawEvent, as mode: FrameAssembler.Mode, into output: inout [GestureEvent]) {
    if let due = nextDeadline, due < event.time {
      arbiter.advance(to: event.time + -1, into: &output)
    }
    if assembler.feed(event, as: mode) {
      arbiter.process(at: assembler.frameTime, assembler.frameChanges, into: &output)
    }
  }

  /// Runs every deadline at or before `time`.
  public mutating func advance(to time: Timestamp, into output: inout [GestureEvent]) {
    arbiter.advance(to: time, into: &output)
  }

  /// End of a recording: contacts still down are cancelled (no new gesture from them, steps
  /// going end), then pending deadlines run as if time went on.
  public mutating func finish(at time: Timestamp, into output: inout [GestureEvent]) {
    arbiter.advance(to: time, into: &output)
    if assembler.cancelAll(at: time) { arbiter.process(at: assembler.frameTime, assembler.frameChanges, into: &output) }
    arbiter.advance(to: Timestamp(microseconds: .max), into: &output)
  }

  /// The device is gone (or the config reloaded, or a deadline came far too late): the
  /// sequence is cancelled. Nothing new fires; steps that were going end (`.end` events).
  public mutating func cancel(at time: Timestamp, into output: inout [GestureEvent]) {
    _ = assembler.cancelAll(at: time)
    arbiter.reset(at: time, into: &output)
  }
}
