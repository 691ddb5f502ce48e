import GestureCore
import Synchronization

/// Where a continuous gesture is: UIKit's recognizer states, without `possible` and
/// `failed` (a gesture that never began reports nothing).
public enum MotionPhase: Hashable, Sendable {
  /// Recognized: the first value.
  case began
  /// A later frame changed a value.
  case changed
  /// The fingers lifted, or their count changed (unlike UIKit's pan, which goes on).
  case ended
  /// The device went, the view was removed, a recording ended with fingers down, or
  /// another gesture took the touches.
  case cancelled
}

/// One frame of a continuous gesture (pan, pinch, rotate, long press, or a view's
/// transform group): every value is measured from where the fingers were when the
/// gesture's last finger landed (for a long press, when it fired).
public struct Motion: Sendable, Hashable {
  /// The gesture followed.
  public var gesture: MotionKind
  /// The gesture's stage at this frame.
  public var phase: MotionPhase
  /// The view the fingers belong to; nil for a gesture outside every view.
  public var view: TouchView?
  /// Fingers in the gesture.
  public var fingers: Int
  /// The frame's time, on the source's clock.
  public var time: Duration
  /// The fingers' centre's offset, in millimetres: right and down positive.
  public var translation: Offset
  /// `translation` as a fraction of the view's width and height when the frame was
  /// reported (of the panel's, outside every view).
  public var translationInView: Offset
  /// The fingers' distance over their distance at the start (1 for one finger).
  public var scale: Double
  /// Degrees turned since the start, clockwise positive, not wrapped (0 for one finger).
  public var rotation: Double
  /// The centre's speed, mm/s, over the last 100 ms.
  public var velocity: Offset
  /// How fast `scale` changes, per second.
  public var scaleVelocity: Double
  /// How fast `rotation` changes, degrees per second.
  public var rotationVelocity: Double
  /// The fingers' centre (focal point), fractions of the panel as the user sees it.
  public var focalPoint: Position
  /// The focal point relative to the view's frame: 0 at its left or top edge, 1 at its
  /// right or bottom edge (the panel's, outside every view).
  public var focalPointInView: Position

  init(
    _ event: GestureStreamEvent, gesture: MotionKind, phase: MotionPhase, view: TouchView?, frame: ViewFrame?,
    panel: PanelSize
  ) {
    let values = event.values
    self.gesture = gesture
    self.phase = phase
    self.view = view
    fingers = event.fingers
    time = .microseconds(event.time.microseconds)
    translation = Offset(dx: values.dx, dy: values.dy)
    let frame = frame ?? ViewFrame(x: 0, y: 0, width: 1, height: 1)
    let width = frame.width * panel.width
    let height = frame.height * panel.height
    translationInView = Offset(dx: width > 0 ? values.dx / width : 0, dy: height > 0 ? values.dy / height : 0)
    scale = values.scale
    rotation = values.angle
    velocity = Offset(dx: values.vx, dy: values.vy)
    scaleVelocity = values.vscale
    rotationVelocity = values.vangle
    focalPoint = Position(x: values.cx, y: values.cy)
    focalPointInView = frame.relative(focalPoint)
  }
}

/// Which continuous gesture a `Motion` is of.
public enum MotionKind: Hashable, Sendable {
  /// Fingers moving together.
  case pan
  /// Two fingers moving apart or together.
  case pinch
  /// Two fingers turning.
  case rotate
  /// Fingers that rested for the long-press time, then maybe moved.
  case longPress
  /// Pan, pinch and rotate together, one value per frame.
  case transform

  /// The core's kinds whose streams feed it.
  var kinds: [GestureKind] {
    switch self {
    case .pan: [.pan]
    case .pinch: [.pinch]
    case .rotate: [.rotate]
    case .longPress: [.longPress]
    case .transform: [.pan, .pinch, .rotate]
    }
  }

  /// The bindings that make the core recognize the kind in every direction (firings that
  /// no handler takes: only their streams are followed).
  func recognitionBindings(fingers: ClosedRange<Int>) -> [Binding] {
    var bindings: [Binding] = []
    for kind in kinds {
      switch kind {
      case .pan:
        for count in fingers {
          for direction in [Direction.up, .down, .left, .right] {
            bindings.append(Binding(gesture: .pan, fingers: count, direction: direction))
          }
        }
      case .pinch: bindings += [Binding(gesture: .pinch, direction: .in), Binding(gesture: .pinch, direction: .out)]
      case .rotate:
        bindings += [
          Binding(gesture: .rotate, direction: .clockwise), Binding(gesture: .rotate, direction: .counterclockwise),
        ]
      case .longPress: for count in fingers { bindings.append(Binding(gesture: .longPress, fingers: count)) }
      case .tap, .swipe: break
      }
    }
    return bindings
  }
}

/// What it takes, beyond the screen's thresholds, for a continuous gesture to begin: it
/// begins at the first frame that passes every one given.
public struct MotionThreshold: Hashable, Sendable {
  /// Millimetres the fingers' centre must have moved.
  public var distance: Double?
  /// How far the scale must be from 1 (0.1: below 0.9 or above 1.1).
  public var scaleChange: Double?
  /// Degrees the fingers must have turned, either way.
  public var angle: Double?

  /// A threshold on the values given.
  public init(distance: Double? = nil, scaleChange: Double? = nil, angle: Double? = nil) {
    self.distance = distance
    self.scaleChange = scaleChange
    self.angle = angle
  }

  /// The screen's thresholds alone.
  public static let screen = MotionThreshold()

  func isPassed(by values: StreamValues) -> Bool {
    if let distance, (values.dx * values.dx + values.dy * values.dy).squareRoot() < distance { return false }
    if let scaleChange, abs(values.scale - 1) < scaleChange { return false }
    if let angle, abs(values.angle) < angle { return false }
    return true
  }
}

/// A motion handler and its token.
struct MotionHandler: Sendable {
  var token: GestureToken
  /// The first touch sequence (`Setup.nextSequence`) it follows: one in progress when
  /// it was added goes on without it.
  var firstSequence: Int
  var deliver: @Sendable (Motion) -> Void
}

/// One continuous gesture followed on a view (or the screen): what it follows and its
/// handlers.
final class MotionEntry: Sendable {
  let kind: MotionKind
  let view: TouchView?
  let fingers: ClosedRange<Int>
  let threshold: MotionThreshold
  private let handlers: Mutex<[MotionHandler]>

  init(kind: MotionKind, view: TouchView?, fingers: ClosedRange<Int>, threshold: MotionThreshold) {
    self.kind = kind
    self.view = view
    self.fingers = fingers
    self.threshold = threshold
    handlers = Mutex([])
  }

  func add(_ handler: MotionHandler) { handlers.withLock { $0.append(handler) } }

  func contains(_ token: GestureToken) -> Bool { handlers.withLock { $0.contains { $0.token === token } } }

  /// Removes `token`'s handler; true when none is left.
  func remove(_ token: GestureToken) -> Bool {
    handlers.withLock { list in
      list.removeAll { $0.token === token }
      return list.isEmpty
    }
  }

  var all: [MotionHandler] { handlers.withLock { $0 } }

  func follows(_ kind: GestureKind, fingers count: Int) -> Bool {
    self.kind.kinds.contains(kind) && fingers.contains(count)
  }
}

/// One motion entry's progress through the stream of the touch sequence it follows: the
/// input side's state, one per entry of the recognizer made.
struct MotionFollower {
  enum State: Equatable {
    /// No sequence followed, or the stream began below the entry's threshold.
    case waiting
    /// `began` was delivered for `sequence`.
    case going(sequence: Int)
    /// Ended or cancelled for `sequence`: nothing more until another sequence.
    case over(sequence: Int)
  }

  let entry: MotionEntry
  var state = State.waiting
  /// The event last reported, for a cancel from outside the stream.
  private(set) var last: GestureStreamEvent?
  /// The last frame reported (a group's kinds share a frame: reported once).
  var lastFrame: (time: Int64, sequence: Int)?

  /// The last touch sequence begun before the entry was followed: a handler added during a
  /// gesture applies from the next one.
  private let sequenceBefore: Int

  init(entry: MotionEntry, after lastSequence: Int = .min) {
    self.entry = entry
    sequenceBefore = lastSequence
  }

  /// The phase `event` gives this entry, if it reports anything.
  mutating func phase(for event: GestureStreamEvent) -> MotionPhase? {
    guard event.sequence > sequenceBefore, entry.follows(event.gesture, fingers: event.fingers) else { return nil }
    let phase = nextPhase(for: event)
    if phase != nil { last = event }
    return phase
  }

  private mutating func nextPhase(for event: GestureStreamEvent) -> MotionPhase? {
    let frame = (event.time.microseconds, event.sequence)
    switch state {
    case .over(let sequence) where sequence == event.sequence:
      return nil
    case .going(let sequence) where sequence == event.sequence:
      switch event.phase {
      case .began, .changed:
        if let lastFrame, lastFrame == frame { return nil }
        lastFrame = frame
        return .changed
      case .ended, .cancelled:
        state = .over(sequence: sequence)
        lastFrame = frame
        return event.phase == .ended ? .ended : .cancelled
      }
    case .waiting, .going, .over:
      switch event.phase {
      case .began, .changed:
        guard entry.threshold.isPassed(by: event.values) else {
          state = .waiting
          return nil
        }
        state = .going(sequence: event.sequence)
        lastFrame = frame
        return .began
      case .ended, .cancelled:
        return nil
      }
    }
  }

  /// The view went, or the source: a gesture going is cancelled.
  mutating func cancel() -> Bool {
    guard case .going(let sequence) = state else { return false }
    state = .over(sequence: sequence)
    return true
  }
}
