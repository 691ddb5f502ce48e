/// The gestures a binding can name. Continuous kinds (`GestureKind.continuous`) are listed in
/// the order their steps of one frame fire: pan, pinch, rotate.
public enum GestureKind: String, Hashable, Sendable, CaseIterable {
  case tap
  case longPress = "long-press"
  case swipe
  case pan
  case pinch
  case rotate
}

/// A gesture's direction: swipes and pans move up/down/left/right, pinches go in/out,
/// rotations turn clockwise/counterclockwise (screen coordinates, y down).
public enum Direction: String, Hashable, Sendable, CaseIterable {
  case up, down, left, right
  case `in`, out
  case clockwise, counterclockwise

  /// Whether a step in this direction moves a binding's level up (out, clockwise, right,
  /// down: the measure grows) rather than down.
  public var raisesLevel: Bool {
    switch self {
    case .out, .clockwise, .right, .down: true
    case .in, .counterclockwise, .left, .up: false
    }
  }

  /// Pans: whether the direction is measured along x (left, right) rather than y.
  public var isHorizontal: Bool { self == .left || self == .right }
}

/// What `step:` is measured in, by gesture kind.
public enum StepUnit: Hashable, Sendable {
  /// A pinch's further factor: `10%` is every factor of 1.10 out (1/1.10 in).
  case percent
  /// A rotation's further angle.
  case degrees
  /// A pan's further distance, mm.
  case millimetres

  /// The values `step:` may take: more than `lowerBound`, and at most (or below, when
  /// `upperIsExclusive`) `upperBound`.
  public var range: (lowerBound: Double, upperBound: Double, upperIsExclusive: Bool) {
    switch self {
    case .percent: (0, 100, true)
    case .degrees: (0, 180, true)
    case .millimetres: (0, 500, false)
    }
  }

  public func accepts(_ value: Double) -> Bool {
    let r = range
    return value > r.lowerBound && (r.upperIsExclusive ? value < r.upperBound : value <= r.upperBound)
  }
}

/// Values a firing carries beyond gesture, fingers and position; what replay prints and the
/// action's environment holds, in this order.
public enum PayloadField: Hashable, Sendable {
  case taps
  case direction
  case scale
  case angle
  /// dx, dy in mm.
  case offset
}

/// Everything that differs between gesture kinds, in one table: the config validator, the
/// arbiter, replay's JSON and the action environment all read it, so a new continuous kind
/// is its `GestureMeasure` file, an entry here and its field in `RecognizerTable`.
public struct GestureTraits: Hashable, Sendable {
  /// The directions a binding may name; empty when the kind takes none.
  public var directions: [Direction]
  /// The finger counts a binding may name, and the count when it names none.
  public var fingers: ClosedRange<Int>
  public var defaultFingers: Int
  /// nil: the kind has no `step:`.
  public var stepUnit: StepUnit?
  /// Pan has no one-shot form: it needs a step.
  public var stepRequired: Bool
  /// What its firings report.
  public var payload: [PayloadField]
  /// Why the kind cannot join a `simultaneous:` group; nil when it can.
  public var groupRefusal: String?
  public var takesTaps: Bool
  public var takesEdge: Bool

  /// A sequence of any finger count this kind takes.
  public static let anyFingers = 1...5
}

extension GestureKind {
  public var traits: GestureTraits {
    switch self {
    case .tap:
      GestureTraits(
        directions: [], fingers: GestureTraits.anyFingers, defaultFingers: 1, stepUnit: nil,
        stepRequired: false, payload: [.taps],
        groupRefusal: "a tap is only known once the sequence has ended", takesTaps: true, takesEdge: false)
    case .longPress:
      // With direction and step: hold and drag, steps as a pan's from where it fired.
      GestureTraits(
        directions: [.up, .down, .left, .right], fingers: GestureTraits.anyFingers, defaultFingers: 1,
        stepUnit: .millimetres, stepRequired: false, payload: [.direction, .offset],
        groupRefusal: "a long press needs fingers that rest, which a moving gesture's do not",
        takesTaps: false, takesEdge: false)
    case .swipe:
      GestureTraits(
        directions: [.up, .down, .left, .right], fingers: GestureTraits.anyFingers, defaultFingers: 1,
        stepUnit: nil, stepRequired: false, payload: [.direction],
        groupRefusal: "a swipe is only known once the sequence has ended", takesTaps: false, takesEdge: true)
    case .pan:
      GestureTraits(
        directions: [.up, .down, .left, .right], fingers: GestureTraits.anyFingers, defaultFingers: 1,
        stepUnit: .millimetres, stepRequired: true, payload: [.direction, .offset], groupRefusal: nil,
        takesTaps: false, takesEdge: false)
    case .pinch:
      GestureTraits(
        directions: [.in, .out], fingers: 2...2, defaultFingers: 2, stepUnit: .percent, stepRequired: false,
        payload: [.direction, .scale], groupRefusal: nil, takesTaps: false, takesEdge: false)
    case .rotate:
      GestureTraits(
        directions: [.clockwise, .counterclockwise], fingers: 2...2, defaultFingers: 2, stepUnit: .degrees,
        stepRequired: false, payload: [.direction, .angle], groupRefusal: nil, takesTaps: false,
        takesEdge: false)
    }
  }

  /// The kinds recognized by a measure crossing a threshold, which can step, in the order
  /// one frame's steps fire. A long press steps too (hold and drag) but is recognized by time.
  public static let continuous: [GestureKind] = allCases.filter { $0.traits.stepUnit != nil && $0 != .longPress }

  var bit: UInt8 {
    switch self {
    case .tap: 1
    case .longPress: 2
    case .swipe: 4
    case .pan: 8
    case .pinch: 16
    case .rotate: 32
    }
  }
}

/// A set of gesture kinds in one byte: the arbiter keeps these per sequence without
/// allocating.
public struct GestureKindSet: Hashable, Sendable, CustomStringConvertible {
  var bits: UInt8 = 0

  public init() {}

  public init(_ kinds: some Sequence<GestureKind>) {
    for kind in kinds { insert(kind) }
  }

  public func contains(_ kind: GestureKind) -> Bool { bits & kind.bit != 0 }
  public mutating func insert(_ kind: GestureKind) { bits |= kind.bit }
  public var isEmpty: Bool { bits == 0 }
  public var count: Int { bits.nonzeroBitCount }
  public var kinds: [GestureKind] { GestureKind.allCases.filter(contains) }

  public var description: String { kinds.map(\.rawValue).joined(separator: "+") }
}
