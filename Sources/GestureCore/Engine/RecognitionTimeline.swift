/// A recording's recognition laid out for a picture (`gestured trace`): every contact's path,
/// every touch sequence with what it fired or why it fired nothing, every firing. Made by
/// `Replay.timeline`, which runs the same engine as `Replay.run`, with its trace kept as values.
public struct RecognitionTimeline: Sendable {
  /// One contact from landing to lifting, in the user's coordinates.
  public struct ContactPath: Sendable, Hashable {
    public var id: UInt32
    /// The touch sequence it landed in (its number), 0 when none was going.
    public var sequence: Int
    public var points: [TimedPoint]
    /// `.ended` or `.cancelled` once it is gone; `.moved` while still down (never, after
    /// the end of a recording, which cancels every contact).
    public var lastPhase: ContactPhase
  }

  public struct TimedPoint: Sendable, Hashable {
    public var time: Timestamp
    public var point: Point
  }

  /// One touch sequence: from the first finger down to the last finger up.
  public struct Sequence: Sendable, Hashable {
    public var number: Int
    public var start: Timestamp
    public var end: Timestamp?
    public var region: Int?
    /// Contacts that landed while it was going, in landing order (late fingers too).
    public var contacts: [UInt32] = []
    /// Each recognizer's last state, in the order they first moved.
    public var recognizers: [RecognizerVerdict] = []
    /// Indices into `firings` of what this sequence fired (a tap chain's firing belongs to
    /// every sequence of the chain).
    public var firings: [Int] = []
    /// Tap chains it was part of that ended with nothing bound: (taps, fingers).
    public var unboundTapChains: [TapChain] = []
    /// Whether its tap recognizer reached `tapped`.
    public var tapped = false
    /// The sequence state's reason when it closed early (a late or cancelled finger).
    public var closed: String?
  }

  public struct RecognizerVerdict: Sendable, Hashable {
    public var name: String
    public var state: String
    public var failure: RecognizerFailure?
  }

  public struct TapChain: Sendable, Hashable {
    public var taps: Int
    public var fingers: Int
  }

  public var profileIndex: Int?
  public var geometry: PanelGeometry?
  /// The recording's first and last event times.
  public var start: Timestamp
  public var end: Timestamp
  public var contacts: [ContactPath] = []
  public var sequences: [Sequence] = []
  public var firings: [GestureEvent] = []
  /// As `Replay.Result.notes`.
  public var notes: [String] = []

  /// Folds what the engine reported for one call (a frame, its records, its new firings)
  /// into the timeline.
  mutating func absorb(frame: TouchFrame?, records: [TraceRecord], newFirings: ArraySlice<GestureEvent>) {
    var tapFirings = newFirings.indices.filter { newFirings[$0].gesture == .tap }.makeIterator()
    var current = sequences.indices.last
    for record in records {
      switch record.what {
      case .sequenceBegan(let number, let region):
        sequences.append(Sequence(number: number, start: record.time, region: region))
        current = sequences.indices.last
      case .sequence(let state, _):
        guard let c = current else { continue }
        if state == "idle", sequences[c].end == nil { sequences[c].end = record.time }
        if state.hasPrefix("closed"), sequences[c].closed == nil { sequences[c].closed = state }
      case .recognizer(let name, let state, let failure):
        guard let c = current else { continue }
        let verdict = RecognizerVerdict(name: name, state: state, failure: failure)
        if let r = sequences[c].recognizers.firstIndex(where: { $0.name == name }) {
          sequences[c].recognizers[r] = verdict
        } else {
          sequences[c].recognizers.append(verdict)
        }
        if name == "tap", state == "tapped" { sequences[c].tapped = true }
      case .tapChainEnded(let taps, let fingers, _, let bound):
        // A chain is the last `taps` sequences that tapped.
        let members = sequences.indices.filter { sequences[$0].tapped }.suffix(taps)
        let firing = bound ? tapFirings.next() : nil
        for m in members {
          if let firing {
            sequences[m].firings.append(firing)
          } else {
            sequences[m].unboundTapChains.append(TapChain(taps: taps, fingers: fingers))
          }
        }
      }
    }
    for i in newFirings.indices where newFirings[i].gesture != .tap {
      if let s = sequences.lastIndex(where: { $0.number == newFirings[i].sequence }) { sequences[s].firings.append(i) }
    }
    guard let frame else { return }
    for change in frame.changes {
      let point = TimedPoint(time: frame.time, point: change.position)
      if change.phase == .began {
        var number = 0
        if let c = current {
          number = sequences[c].number
          sequences[c].contacts.append(change.id)
        }
        contacts.append(ContactPath(id: change.id, sequence: number, points: [point], lastPhase: .began))
      } else if let p = contacts.lastIndex(where: { $0.id == change.id }) {
        contacts[p].points.append(point)
        contacts[p].lastPhase = change.phase
      }
    }
  }
}

extension Replay {
  /// `run`'s pipeline with the trace kept as values and the frames followed: what a picture
  /// of the recording needs. Same firings as `run`.
  public static func timeline(device: DeviceDescription, events: [RawEvent], configuration: Configuration)
    -> RecognitionTimeline
  {
    let first = events.first?.time ?? Timestamp(microseconds: 0)
    let last = events.last?.time ?? first
    var timeline = RecognitionTimeline(start: first, end: last)
    let prepared = engine(for: device, configuration: configuration)
    timeline.notes = prepared.notes
    timeline.profileIndex = prepared.profile
    guard var engine = prepared.engine else { return timeline }
    timeline.geometry = engine.geometry
    engine.keepsRecords = true
    var firings: [GestureEvent] = []
    func absorb(_ engine: inout DeviceEngine, from count: Int) {
      timeline.absorb(frame: engine.completedFrame, records: engine.takeRecords(), newFirings: firings[count...])
    }
    for event in events {
      let count = firings.count
      engine.handle(event, into: &firings)
      absorb(&engine, from: count)
    }
    let count = firings.count
    engine.finish(at: last, into: &firings)
    absorb(&engine, from: count)
    timeline.firings = firings
    return timeline
  }
}
