/// One finger of a touch sequence, as the recognizers see it.
struct SequenceFinger {
  var contact: UInt32
  /// After `contact`, so that the two share a word.
  var lifted = false
  var downTime: Timestamp
  var down: Point
  var current: Point
  /// Greatest distance in mm from `down` beyond `tap-slop` while every finger of the
  /// sequence was down, and when it first passed the slop (see `TapSlopRule`).
  var travelAllDown = 0.0
  var beyondSlopSince: Timestamp?
}

/// A touch sequence: from the first finger down (no other finger down) to the last finger up.
///
/// Its finger count is fixed by the fingers that land within `finger-landing` of the first.
struct TouchSequence {
  static let maxFingers = 5

  /// Counted from 1 per engine (over all its sequences), so that a device's sequences can be
  /// told apart downstream.
  var number = 0
  var startTime = Timestamp(microseconds: 0)
  /// The counted fingers, in landing order (at most `maxFingers`; storage reused).
  var fingers: [SequenceFinger] = []
  var region: Int?
  /// When the first finger of the sequence lifted, if one has.
  var firstLift: Timestamp?

  init() { fingers.reserveCapacity(Self.maxFingers) }

  mutating func reset(at time: Timestamp, number: Int) {
    self.number = number
    startTime = time
    fingers.removeAll(keepingCapacity: true)
    region = nil
    firstLift = nil
  }

  var fingerCount: Int { fingers.count }
  var firstDown: Point { fingers.first?.down ?? Point(x: 0, y: 0) }
  var fingersDown: Int { fingers.reduce(0) { $0 + ($1.lifted ? 0 : 1) } }

  func index(of contact: UInt32) -> Int? { fingers.firstIndex { $0.contact == contact } }

  /// `index(of:)`, trying `likely` first: one comparison when it is right.
  @inline(__always)
  func index(of contact: UInt32, tryingFirst likely: Int) -> Int? {
    if fingers.indices.contains(likely), fingers[likely].contact == contact { return likely }
    return index(of: contact)
  }

  /// Mean of the fingers' down positions.
  var downCentroid: Point {
    guard !fingers.isEmpty else { return Point(x: 0, y: 0) }
    var x = 0.0
    var y = 0.0
    for finger in fingers {
      x += finger.down.x
      y += finger.down.y
    }
    return Point(x: x / Double(fingers.count), y: y / Double(fingers.count))
  }
}

/// Where a touch sequence stands, as one explicit state machine. The arbiter feeds it one
/// `SequenceEvent` at a time and traces every transition as `state → event → state`.
///
/// ```
///  idle ──(first finger down)──▶ landing ──(finger-landing elapsed)──▶ open
///            │  ▲ (finger down: new reference)                           │
///            │  └──┘                                                     │(gesture recognized)
///            │                                                           ▼
///            └──(late, sixth, cancelled or dropped finger)──▶ closed ◀── claimed(kinds)
///                                                              ▲  (count changed, cancelled)
///  any but idle ──(last finger up)──▶ idle                     └── open (late finger …)
/// ```
/// `closed`: the sequence fires nothing more; it waits for its last finger to lift.
enum SequenceState: Equatable, CustomStringConvertible {
  case idle
  /// Fingers may still land; nothing has been recognized.
  case landing
  /// The finger count is fixed; no gesture has won.
  case open
  /// These gestures won the sequence (one, or members of the `simultaneous:` group).
  case claimed(GestureKindSet)
  case closed(ClosedReason)

  var description: String {
    switch self {
    case .idle: "idle"
    case .landing: "landing"
    case .open: "open"
    case .claimed(let kinds): "claimed (\(kinds))"
    case .closed(let why): "closed (\(why))"
    }
  }

  /// Matched, not compared: `!=` on a state with payloads costs a call, several per frame.
  var isActive: Bool {
    if case .idle = self { return false }
    return true
  }
  var countFixed: Bool {
    switch self {
    case .idle, .landing: false
    case .open, .claimed, .closed: true
    }
  }
  var isClosed: Bool {
    if case .closed = self { return true }
    return false
  }
  var claimed: GestureKindSet {
    if case .claimed(let kinds) = self { return kinds }
    return GestureKindSet()
  }
}

enum ClosedReason: Equatable, CustomStringConvertible {
  /// A late, sixth, cancelled or dropped finger before anything won.
  case spoiled
  /// The finger count changed after a gesture won: its steps ended.
  case countChanged
  /// A cancelled or dropped contact after a gesture won.
  case cancelled

  var description: String {
    switch self {
    case .spoiled: "spoiled"
    case .countChanged: "finger count changed"
    case .cancelled: "cancelled"
    }
  }
}

/// The inputs of `SequenceState`.
enum SequenceEvent: CustomStringConvertible {
  case fingerDown
  case lateFinger
  case fingerLifted
  case landingElapsed
  case recognized(GestureKind)
  case contactCancelled
  case lastFingerUp
  case reset

  var description: String {
    switch self {
    case .fingerDown: "finger down"
    case .lateFinger: "late or extra finger"
    case .fingerLifted: "finger lifted"
    case .landingElapsed: "finger-landing elapsed"
    case .recognized(let kind): "\(kind.rawValue) recognized"
    case .contactCancelled: "contact cancelled or dropped"
    case .lastFingerUp: "last finger up"
    case .reset: "reset"
    }
  }
}
