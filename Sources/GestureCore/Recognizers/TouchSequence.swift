/// One finger of a touch sequence, as the recognizers see it.
struct SequenceFinger {
  var contact: UInt32
  var downTime: Timestamp
  var down: Point
  var current: Point
  var lifted = false
  /// Greatest distance in mm from `down` seen so far (slop checks).
  var maxTravel = 0.0
}

/// A touch sequence: from the first finger down (no other finger down) to the last finger up.
///
/// Its finger count is fixed by the fingers that land within `finger-landing` of the first.
/// A later finger, or a sixth, spoils the sequence: it fires nothing.
struct TouchSequence {
  static let maxFingers = 5

  var startTime = Timestamp(microseconds: 0)
  /// The counted fingers, in landing order (at most `maxFingers`; storage reused).
  var fingers: [SequenceFinger] = []
  var countFixed = false
  /// Set when the sequence can no longer fire anything.
  var spoiled = false
  var region: Int?
  /// The gesture that won the sequence, if any.
  var winner: GestureKind?
  var pinchFired = false
  var rotateFired = false

  init() { fingers.reserveCapacity(Self.maxFingers) }

  mutating func reset(at time: Timestamp) {
    startTime = time
    fingers.removeAll(keepingCapacity: true)
    countFixed = false
    spoiled = false
    region = nil
    winner = nil
    pinchFired = false
    rotateFired = false
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

  /// Greatest travel of any finger, in mm.
  var maxTravel: Double { fingers.reduce(0) { max($0, $1.maxTravel) } }
}
