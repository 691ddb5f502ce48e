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

/// A touch sequence's fingers, in landing order, at most `TouchSequence.maxFingers`: held in
/// the sequence itself rather than in an array's buffer, so that a move's write of one
/// finger's position needs no uniqueness check.
struct SequenceFingers: RandomAccessCollection, MutableCollection {
  static let capacity = 5
  /// `capacity` places in a tuple, reached by a switch: an `InlineArray`'s subscript copies
  /// its whole storage for one read.
  private var storage = (Self.unused, Self.unused, Self.unused, Self.unused, Self.unused)
  private(set) var count = 0

  private static let unused = SequenceFinger(
    contact: 0, downTime: Timestamp(microseconds: 0), down: Point(x: 0, y: 0), current: Point(x: 0, y: 0))

  init() {}

  init(_ fingers: some Sequence<SequenceFinger>) {
    for finger in fingers { append(finger) }
  }

  var startIndex: Int { 0 }
  var endIndex: Int { count }

  subscript(index: Int) -> SequenceFinger {
    @inline(__always) get {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "finger index out of range")
      switch index {
      case 0: return storage.0
      case 1: return storage.1
      case 2: return storage.2
      case 3: return storage.3
      default: return storage.4
      }
    }
    @inline(__always) set {
      precondition(UInt(bitPattern: index) < UInt(bitPattern: count), "finger index out of range")
      withPlaces { $0[index] = newValue }
    }
  }

  mutating func append(_ finger: SequenceFinger) {
    precondition(count < Self.capacity, "more fingers than a sequence holds")
    count += 1
    self[count - 1] = finger
  }

  mutating func removeAll() { count = 0 }

  /// `body` on the places as one buffer: a tuple's places of one type lie one stride apart.
  @inline(__always)
  private mutating func withPlaces<Result>(_ body: (UnsafeMutablePointer<SequenceFinger>) -> Result) -> Result {
    withUnsafeMutablePointer(to: &storage) {
      body(UnsafeMutableRawPointer($0).assumingMemoryBound(to: SequenceFinger.self))
    }
  }

  /// Puts the finger of `contact` at `position`, trying index `likely` first (one comparison
  /// when it is right); returns its index, nil when no finger is that contact's. Reads and
  /// writes in place, without the subscript's switch over the places.
  @inline(__always)
  mutating func move(_ contact: UInt32, tryingFirst likely: Int, to position: Point) -> Int? {
    let count = count
    return withPlaces { fingers in
      var index = likely
      if UInt(bitPattern: index) >= UInt(bitPattern: count) || fingers[index].contact != contact {
        index = 0
        while index < count, fingers[index].contact != contact { index += 1 }
        guard index < count else { return nil }
      }
      fingers[index].current = position
      return index
    }
  }
}

/// A touch sequence: from the first finger down (no other finger down) to the last finger up.
///
/// Its finger count is fixed by the fingers that land within `finger-landing` of the first.
struct TouchSequence {
  static let maxFingers = SequenceFingers.capacity

  /// Counted from 1 per engine (over all its sequences), so that a device's sequences can be
  /// told apart downstream.
  var number = 0
  var startTime = Timestamp(microseconds: 0)
  /// The counted fingers, in landing order (at most `maxFingers`).
  var fingers = SequenceFingers()
  var region: Int?
  /// When the first finger of the sequence lifted, if one has.
  var firstLift: Timestamp?

  init() {}

  mutating func reset(at time: Timestamp, number: Int) {
    self.number = number
    startTime = time
    fingers.removeAll()
    region = nil
    firstLift = nil
  }

  var fingerCount: Int { fingers.count }
  var firstDown: Point { fingers.first?.down ?? Point(x: 0, y: 0) }
  var fingersDown: Int { fingers.reduce(0) { $0 + ($1.lifted ? 0 : 1) } }

  func index(of contact: UInt32) -> Int? { fingers.firstIndex { $0.contact == contact } }

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
