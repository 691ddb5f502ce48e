/// One continuous gesture's stream in one touch sequence (`GestureStreamEvent`):
///
/// ```
///  idle ──(recognized)──▶ streaming ──(a later frame changes a value: changed)──▶ streaming
///                             ├──(last finger up | finger count changed)──▶ over(lift | fingers)
///                             └──(cancelled | another gesture took the sequence)──▶ over(cancel)
///  idle, over ──(the sequence ends)──▶ idle
/// ```
/// `over` lasts until every finger has lifted: a kind begins at most once per sequence.
struct StreamEmitter {
  enum State: Equatable, CustomStringConvertible {
    case idle
    case streaming
    case over(EndReason)

    var description: String {
      switch self {
      case .idle: "idle"
      case .streaming: "streaming"
      case .over(let reason): "over (\(reason.rawValue))"
      }
    }
  }

  /// What every event of one frame shares.
  struct Frame {
    var time: Timestamp
    var sequence: Int
    var fingers: Int
    var region: Int?
  }

  let kind: GestureKind
  private(set) var state = State.idle
  /// The values last reported.
  private(set) var last = StreamValues()

  init(kind: GestureKind) { self.kind = kind }

  var isStreaming: Bool { state == .streaming }

  /// The sequence ended (or a new one began): the kind may begin again.
  mutating func reset() { state = .idle }

  mutating func begin(
    _ values: StreamValues, _ frame: Frame, into events: inout [GestureStreamEvent]
  ) -> Transition<State>? {
    guard state == .idle else { return nil }
    emit(.began, values, frame, into: &events)
    return move(to: .streaming, on: "recognized")
  }

  /// A later frame: reported only when a value changed.
  mutating func change(_ values: StreamValues, _ frame: Frame, into events: inout [GestureStreamEvent]) {
    guard state == .streaming, values != last else { return }
    emit(.changed, values, frame, into: &events)
  }

  /// Ends the stream with the values last reported: `ended` for a lift or a finger-count
  /// change, `cancelled` for a cancel.
  mutating func end(_ reason: EndReason, _ frame: Frame, into events: inout [GestureStreamEvent]) -> Transition<
    State
  >? {
    guard state == .streaming else { return nil }
    events.append(
      GestureStreamEvent(
        time: frame.time, sequence: frame.sequence, gesture: kind, phase: reason == .cancel ? .cancelled : .ended,
        reason: reason, fingers: frame.fingers, region: frame.region, values: last))
    return move(to: .over(reason), on: reason.event)
  }

  private mutating func emit(
    _ phase: GestureStreamEvent.Phase, _ values: StreamValues, _ frame: Frame,
    into events: inout [GestureStreamEvent]
  ) {
    last = values
    events.append(
      GestureStreamEvent(
        time: frame.time, sequence: frame.sequence, gesture: kind, phase: phase, fingers: frame.fingers,
        region: frame.region, values: values))
  }

  private mutating func move(to new: State, on event: StaticString) -> Transition<State> {
    defer { state = new }
    return Transition(from: state, event: event, to: new)
  }
}

extension EndReason {
  /// What ended a stream, as the event of a trace line.
  var event: StaticString {
    switch self {
    case .lift: "last finger up"
    case .fingers: "finger count changed"
    case .cancel: "cancelled"
    }
  }
}

/// The streams of one sequence, one per kind that has one (pan, pinch, rotate, long
/// press), in the order one frame reports them; fixed fields, so nothing is allocated.
struct GestureStreams {
  private(set) var pan = StreamEmitter(kind: .pan)
  private(set) var pinch = StreamEmitter(kind: .pinch)
  private(set) var rotate = StreamEmitter(kind: .rotate)
  private(set) var longPress = StreamEmitter(kind: .longPress)

  subscript(kind: GestureKind) -> StreamEmitter? {
    switch kind {
    case .pan: pan
    case .pinch: pinch
    case .rotate: rotate
    case .longPress: longPress
    case .tap, .swipe: nil
    }
  }

  var anyStreaming: Bool { pan.isStreaming || pinch.isStreaming || rotate.isStreaming || longPress.isStreaming }

  mutating func reset() {
    pan.reset()
    pinch.reset()
    rotate.reset()
    longPress.reset()
  }

  /// `kind` was recognized (a long press: it fired); nil for a kind without a stream.
  mutating func begin(
    _ kind: GestureKind, _ values: StreamValues, _ frame: StreamEmitter.Frame, into events: inout [GestureStreamEvent]
  ) -> Transition<StreamEmitter.State>? {
    switch kind {
    case .pan: pan.begin(values, frame, into: &events)
    case .pinch: pinch.begin(values, frame, into: &events)
    case .rotate: rotate.begin(values, frame, into: &events)
    case .longPress: longPress.begin(values, frame, into: &events)
    case .tap, .swipe: nil
    }
  }

  /// A frame: pan, pinch and rotate take `values` (measured from the sequence's reference),
  /// the long press `fromRecognition` (from where it fired).
  mutating func change(
    _ values: StreamValues, fromRecognition: StreamValues, _ frame: StreamEmitter.Frame,
    into events: inout [GestureStreamEvent]
  ) {
    pan.change(values, frame, into: &events)
    pinch.change(values, frame, into: &events)
    rotate.change(values, frame, into: &events)
    longPress.change(fromRecognition, frame, into: &events)
  }

  /// Ends every stream going, except those of `sparing`; calls `trace` with each kind's
  /// transition.
  mutating func end(
    _ reason: EndReason, sparing: GestureKindSet = GestureKindSet(), _ frame: StreamEmitter.Frame,
    into events: inout [GestureStreamEvent], trace: inout Tracer
  ) {
    if !sparing.contains(.pan) { trace.record("pan stream", pan.end(reason, frame, into: &events)) }
    if !sparing.contains(.pinch) { trace.record("pinch stream", pinch.end(reason, frame, into: &events)) }
    if !sparing.contains(.rotate) { trace.record("rotate stream", rotate.end(reason, frame, into: &events)) }
    if !sparing.contains(.longPress) {
      trace.record("long-press stream", longPress.end(reason, frame, into: &events))
    }
  }
}
