/// A binding fired: what the daemon runs an action for and what replay prints.
public struct GestureEvent: Hashable, Sendable {
  /// Which part of a gesture this firing is.
  public enum Phase: Hashable, Sendable, CustomStringConvertible {
    /// A one-shot binding (no `step:`): the only firing of its gesture.
    case oneShot
    /// A step binding's K-th step in this touch sequence, K = 1, 2, …
    case step(Int)
    /// A step binding's steps ended (finger count changed, last finger up, cancelled)
    /// after `steps` of them fired.
    case end(steps: Int)

    public var description: String {
      switch self {
      case .oneShot: "one-shot"
      case .step(let k): "step \(k)"
      case .end(let n): "end after \(n) steps"
      }
    }
  }

  /// When the daemon would fire it, on the event clock.
  public var time: Timestamp
  /// Index into the profile's bindings.
  public var binding: Int
  public var gesture: GestureKind
  public var phase: Phase
  /// The device's touch sequence this came from, counted from 1 since the engine began:
  /// steps of one sequence and kind form one ordered stream.
  public var sequence: Int
  /// The touch sequence the gesture began in: a multi-tap's first tap's (`sequence` is its
  /// last tap's); `sequence` for every other gesture.
  public var firstSequence: Int
  public var fingers: Int
  /// Taps in the sequence (1 for everything but multi-taps).
  public var taps: Int
  public var direction: Direction?
  /// Pinch: distance between the fingers now / at the reference.
  public var scale: Double?
  /// Rotate: degrees turned since the reference, positive clockwise on screen, unwrapped.
  public var angle: Double?
  /// Pan: the fingers' centroid's movement since the reference, mm as the user sees the
  /// panel, right and down positive.
  public var dx: Double?
  public var dy: Double?
  /// The first finger's down position (of the first tap, for taps).
  public var position: Point
  /// Index into the profile's regions; nil when no region contains `position`.
  public var region: Int?
  /// Why the steps ended: set on `.end` events only.
  public var endReason: EndReason?
  /// The engine's profile generation (`DeviceEngine.profileGeneration`) whose binding and
  /// region indices this carries: a sequence in progress at `replaceProfile` keeps its own.
  public var profileGeneration: Int

  public init(
    time: Timestamp, binding: Int, gesture: GestureKind, phase: Phase = .oneShot, sequence: Int = 0,
    fingers: Int, taps: Int = 1, direction: Direction? = nil, scale: Double? = nil, angle: Double? = nil,
    dx: Double? = nil, dy: Double? = nil, position: Point, region: Int?, endReason: EndReason? = nil,
    profileGeneration: Int = 0, firstSequence: Int? = nil
  ) {
    self.time = time
    self.binding = binding
    self.gesture = gesture
    self.phase = phase
    self.sequence = sequence
    self.firstSequence = firstSequence ?? sequence
    self.fingers = fingers
    self.taps = taps
    self.direction = direction
    self.scale = scale
    self.angle = angle
    self.dx = dx
    self.dy = dy
    self.position = position
    self.region = region
    self.endReason = endReason
    self.profileGeneration = profileGeneration
  }

  /// The K of a step, nil otherwise.
  public var step: Int? {
    if case .step(let k) = phase { return k }
    return nil
  }

  /// N of an end event, nil otherwise.
  public var endSteps: Int? {
    if case .end(let n) = phase { return n }
    return nil
  }
}
