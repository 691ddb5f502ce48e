/// One gesture kind's recognizer within one touch sequence. The arbiter drives every kind
/// through these calls, in the order of `RecognizerTable`, and traces each transition as
/// `from → event → to` under the kind's name; what a recognized gesture fires (a binding, a
/// tap chain, steps) is the arbiter's business.
///
/// A new kind is a type conforming to this, its field in `RecognizerTable` and its row in
/// `GestureKind.traits`; the defaults below let a kind answer only the calls it cares for.
protocol Recognizer {
  associatedtype State: Equatable & CustomStringConvertible
  static var kind: GestureKind { get }
  var state: State { get }
  /// Neither failed nor done with: it may still be recognized in this sequence.
  var isPossible: Bool { get }
  /// A new sequence begins.
  mutating func reset()
  /// A finger of the sequence landed before the count was fixed; `fingers` are all of them.
  mutating func landed(_ fingers: [SequenceFinger], geometry: PanelGeometry) -> Transition<State>?
  /// The sequence's finger count is fixed at `count`.
  mutating func countFixed(_ count: Int) -> Transition<State>?
  /// A frame moved the fingers: `motion` is what the sequence's track measured.
  mutating func frame(_ motion: MotionFrame)
  /// Finger `finger` is `travel` mm from where it landed (0 while clearly within the slop).
  mutating func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext)
    -> Transition<State>?
  /// Finger `finger` lifted (`context.liftStarted`: the sequence's first lift before this one).
  mutating func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>?
  /// When time alone changes it next, in a sequence that began at `start`; nil when it does not.
  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp?
  mutating func fail(_ why: RecognizerFailure) -> Transition<State>?
}

/// What a recognizer may read about the moment and the sequence beyond its fingers.
struct RecognizerContext {
  var now: Timestamp
  var tapRule: TapSlopRule
  /// When the sequence's first finger lifted, if one has.
  var liftStarted: Timestamp?
}

extension Recognizer {
  func landed(_ fingers: [SequenceFinger], geometry: PanelGeometry) -> Transition<State>? { nil }
  func countFixed(_ count: Int) -> Transition<State>? { nil }
  @inline(__always)
  func frame(_ motion: MotionFrame) {}
  func moved(_ finger: inout SequenceFinger, travel: Double, in context: RecognizerContext) -> Transition<State>? {
    nil
  }
  func lifted(_ finger: SequenceFinger, in context: RecognizerContext) -> Transition<State>? { nil }
  func deadline(start: Timestamp, thresholds: Thresholds) -> Timestamp? { nil }
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
    var fingers: [SequenceFinger]
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

  struct Lifted: RecognizerAction {
    var finger: SequenceFinger
    var context: RecognizerContext

    @inline(__always)
    func apply<R: Recognizer>(to recognizer: inout R) -> Transition<R.State>? {
      recognizer.lifted(finger, in: context)
    }
  }
}
