/// One gesture kind's recognizer within one touch sequence. The arbiter drives every kind
/// through these calls, in the order of `RecognizerTable`, and traces each transition as
/// `from → event → to` under the kind's name; what a recognized gesture fires (its binding,
/// its steps, its stream) the arbiter does alike for every kind, with what the kind answers
/// here (`binding(_:in:near:)`, `measuresFromRecognition`, `waitsInChain`).
///
/// A new kind is a type conforming to this, its field in `RecognizerTable` and its row in
/// `GestureKind.traits`; the defaults below let a kind answer only the calls it cares for.
protocol Recognizer {
  associatedtype State: Equatable & CustomStringConvertible
  static var kind: GestureKind { get }
  var state: State { get }
  /// Neither failed nor done with: it may still be recognized in this sequence.
  var isPossible: Bool { get }
  /// Recognized, and in which direction (nil for a kind without one): the arbiter fires it.
  var recognized: Direction?? { get }
  /// Failed: a kind that waits in the tap chain ends the chain then.
  var hasFailed: Bool { get }
  /// Its recognition joins the tap chain (which fires it, maybe with more taps) instead of
  /// winning the sequence.
  static var waitsInChain: Bool { get }
  /// Its steps and stream are measured from where the fingers were when it was recognized,
  /// not from the sequence's reference (a long press's hold and drag).
  static var measuresFromRecognition: Bool { get }
  /// Its time passes only with the sequence's finger count fixed: the arbiter fixes it first.
  static var needsFixedCountAtItsTime: Bool { get }
  /// Whether `binding` can fire on a frame in which no contact lands or lifts.
  static func firesOnMoves(_ binding: Binding) -> Bool
  /// Whether `binding` can fire by time alone while a contact is down, with no frame at all.
  static func firesWhileHeld(_ binding: Binding) -> Bool
  /// Whether the sequence's track must keep rates for this kind's bindings.
  static func needsRates(_ thresholds: Thresholds) -> Bool
  /// How long a forwarding device may hold a touch back for `binding` (named `name`), before
  /// the finger-landing rule (`HoldLimit`): by default until it is recognized or lifts.
  static func holdLimit(_ binding: Binding, _ thresholds: Thresholds, name: String) -> HoldLimit
  /// A new sequence begins.
  mutating func reset()
  /// A finger of the sequence landed before the count was fixed; `fingers` are all of them.
  mutating func landed(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Transition<State>?
  /// The sequence's finger count is fixed at `count`.
  mutating func countFixed(_ count: Int) -> Transition<State>?
  /// A frame moved the fingers: `motion` is what the sequence's track measured.
  mutating func frame(_ motion: MotionFrame)
  /// Whether it reads each finger's travel from where it landed (`moved`) now.
  var readsTravel: Bool { get }
  /// Finger `finger` is `travel` mm from where it landed (0 while clearly within the slop).
  mutating func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext)
    -> Transition<State>?
  /// Finger `finger` lifted (`context.liftStarted`: the sequence's first lift before this one).
  mutating func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>?
  /// The sequence's last finger lifted.
  mutating func lastFingerUp(_ end: SequenceEnd) -> Transition<State>?
  /// When time alone changes it next, in a sequence that began at `start`; nil when it does not.
  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp?
  /// When the arbiter must wake for its time because that can fire something: nil when
  /// its time only moves it on, which the next event does as well.
  func wakeTime(_ times: SequenceTimes) -> Timestamp?
  /// Its `deadline` passed (with the count fixed if it asks for that).
  mutating func timeReached(_ sequence: SequenceAtDeadline) -> Transition<State>?
  /// Forwarding: the first moment a touch held back can no longer become this kind; nil
  /// when time does not end its chance.
  func holdEnd(_ times: SequenceTimes) -> Timestamp?
  /// Whether it may still fire something in a sequence whose bindings are `bound`.
  func canStillFire(_ bound: BindingIndex.SequenceBindings, _ sequence: SequenceSoFar) -> Bool
  /// The binding it fires once when recognized in `direction`; nil when none (it steps, or
  /// nothing is bound). `near`: whether the sequence began near an edge.
  func binding(_ direction: Direction?, in bound: BindingIndex.SequenceBindings, near: EdgeProximity) -> Int?
  mutating func fail(_ why: RecognizerFailure) -> Transition<State>?
}

/// The times a recognizer's deadlines are worked out from.
struct SequenceTimes {
  var start: Timestamp
  var now: Timestamp
  var thresholds: Thresholds
  /// The tap chain has a tap under way in this sequence.
  var chainContinuing: Bool
  /// The kinds bound in the sequence's region, for any finger count.
  var boundInRegion: GestureKindSet
}

/// The sequence as a deadline finds it.
struct SequenceAtDeadline {
  /// The count is fixed, nothing won the sequence, and every finger is down.
  var isOpenWithEveryFinger: Bool
  /// The kinds bound for the sequence's region and finger count.
  var bound: GestureKindSet
}

/// The sequence at its last finger's lift.
struct SequenceEnd {
  var fingers: SequenceFingers
  var duration: Microseconds
  var geometry: PanelGeometry
  var thresholds: Thresholds
  /// The count is fixed and nothing won the sequence.
  var isOpen: Bool
  var track: MotionTrack
}

/// Whether a sequence began near an edge of the panel (`edge-width`).
struct EdgeProximity {
  var start: Point
  var width: Double
  var geometry: PanelGeometry

  func isNear(_ edge: Edge) -> Bool {
    switch edge {
    case .left: start.x * geometry.width <= width
    case .right: (1 - start.x) * geometry.width <= width
    case .top: start.y * geometry.height <= width
    case .bottom: (1 - start.y) * geometry.height <= width
    }
  }
}

/// What `canStillFire` reads besides the bindings.
struct SequenceSoFar {
  /// A finger of the sequence lifted.
  var lifted: Bool
  var age: Microseconds
  var thresholds: Thresholds
  var near: EdgeProximity
}

/// What a recognizer may read about the moment and the sequence beyond its fingers.
struct RecognizerContext {
  var now: Timestamp
  var tapRule: TapSlopRule
  /// When the sequence's first finger lifted, if one has.
  var liftStarted: Timestamp?
}

extension Recognizer {
  var recognized: Direction?? { nil }
  var hasFailed: Bool { false }
  static var waitsInChain: Bool { false }
  static var measuresFromRecognition: Bool { false }
  static var needsFixedCountAtItsTime: Bool { false }
  static func firesOnMoves(_ binding: Binding) -> Bool { false }
  static func firesWhileHeld(_ binding: Binding) -> Bool { false }
  static func needsRates(_ thresholds: Thresholds) -> Bool { false }
  static func holdLimit(_ binding: Binding, _ thresholds: Thresholds, name: String) -> HoldLimit {
    HoldLimit(duration: nil, untilLifted: true, reason: name)
  }
  func landed(_ fingers: SequenceFingers, geometry: PanelGeometry) -> Transition<State>? { nil }
  func countFixed(_ count: Int) -> Transition<State>? { nil }
  @inline(__always)
  func frame(_ motion: MotionFrame) {}
  var readsTravel: Bool { false }
  func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext) -> Transition<State>? {
    nil
  }
  func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>? { nil }
  func lastFingerUp(_ end: SequenceEnd) -> Transition<State>? { nil }
  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp? { nil }
  func wakeTime(_ times: SequenceTimes) -> Timestamp? { nil }
  func timeReached(_ sequence: SequenceAtDeadline) -> Transition<State>? { nil }
  func holdEnd(_ times: SequenceTimes) -> Timestamp? { nil }
  /// By default: possible, no finger lifted yet, and bound.
  func canStillFire(_ bound: BindingIndex.SequenceBindings, _ sequence: SequenceSoFar) -> Bool {
    isPossible && !sequence.lifted && bound.kinds.contains(Self.kind)
  }
  func binding(_ direction: Direction?, in bound: BindingIndex.SequenceBindings, near: EdgeProximity) -> Int? {
    nil
  }
}

/// A question the arbiter asks one recognizer of the table (see `RecognizerTable.ask`):
/// generic, so that the call is specialized and inlined rather than dispatched.
protocol RecognizerQuery {
  associatedtype Answer
  func ask<R: Recognizer>(_ recognizer: R) -> Answer
}

/// The questions the arbiter asks.
enum RecognizerQueries {
  struct WakeTime: RecognizerQuery {
    var times: SequenceTimes
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Timestamp? { recognizer.wakeTime(times) }
  }

  struct HoldEnd: RecognizerQuery {
    var times: SequenceTimes
    func ask<R: Recognizer>(_ recognizer: R) -> Timestamp? { recognizer.holdEnd(times) }
  }

  struct Deadline: RecognizerQuery {
    var start: Timestamp
    var thresholds: Thresholds
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Timestamp? { recognizer.deadline(start: start, thresholds: thresholds) }
  }

  struct CanStillFire: RecognizerQuery {
    var bound: BindingIndex.SequenceBindings
    var sequence: SequenceSoFar
    func ask<R: Recognizer>(_ recognizer: R) -> Bool { recognizer.canStillFire(bound, sequence) }
  }

  /// `waitsInChain` and the state the tap chain reads: (waits, possible, failed).
  struct Chain: RecognizerQuery {
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> (waits: Bool, possible: Bool, failed: Bool) {
      (R.waitsInChain, R.waitsInChain && recognizer.isPossible, R.waitsInChain && recognizer.hasFailed)
    }
  }

  struct ReadsTravel: RecognizerQuery {
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Bool { recognizer.readsTravel }
  }

  struct Recognized: RecognizerQuery {
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Direction?? { R.waitsInChain ? nil : recognizer.recognized }
  }

  struct MeasuresFromRecognition: RecognizerQuery {
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Bool { R.measuresFromRecognition }
  }

  struct NeedsFixedCount: RecognizerQuery {
    @inline(__always)
    func ask<R: Recognizer>(_ recognizer: R) -> Bool { R.needsFixedCountAtItsTime }
  }

  struct OneShotBinding: RecognizerQuery {
    var direction: Direction?
    var bound: BindingIndex.SequenceBindings
    var near: EdgeProximity
    func ask<R: Recognizer>(_ recognizer: R) -> Int? { recognizer.binding(direction, in: bound, near: near) }
  }
}

/// Something the arbiter does to every recognizer of a sequence in turn (see
/// `SequenceArbiter.forEachRecognizer`): generic, so that each kind's call is specialized and
/// inlined rather than dispatched through an existential.
protocol RecognizerAction {
  mutating func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>?
  /// Whether `kind` takes part (the others are left alone).
  func includes(_ kind: GestureKind) -> Bool
}

extension RecognizerAction {
  @inline(__always)
  func includes(_ kind: GestureKind) -> Bool { true }
}

/// The recognizer actions the arbiter uses.
enum RecognizerActions {
  struct Fail: RecognizerAction {
    var why: RecognizerFailure
    /// The kinds that keep their chance (a `simultaneous:` group's members and the winner).
    var sparing = GestureKindSet()

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? { recognizer.fail(why) }
    @inline(__always)
    func includes(_ kind: GestureKind) -> Bool { !sparing.contains(kind) }
  }

  struct Reset: RecognizerAction {
    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? {
      recognizer.reset()
      return nil
    }
  }

  struct Landed: RecognizerAction {
    var fingers: SequenceFingers
    var geometry: PanelGeometry

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? {
      recognizer.landed(fingers, geometry: geometry)
    }
  }

  struct CountFixed: RecognizerAction {
    var count: Int

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? { recognizer.countFixed(count) }
  }

  struct Moved: RecognizerAction {
    /// The finger, as the recognizers leave it (the tap notes its travel in it).
    var finger: SequenceFinger
    var travel: Double
    var context: RecognizerContext

    @inline(__always)
    mutating func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? {
      recognizer.moved(&finger, travel: travel, in: context)
    }
  }

  struct TimeReached: RecognizerAction {
    var sequence: SequenceAtDeadline

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? { recognizer.timeReached(sequence) }
  }

  struct LastFingerUp: RecognizerAction {
    var end: SequenceEnd

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? { recognizer.lastFingerUp(end) }
  }

  struct Lifted: RecognizerAction {
    var finger: SequenceFinger
    var context: RecognizerContext

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? {
      recognizer.lifted(finger, in: context)
    }
  }
}
