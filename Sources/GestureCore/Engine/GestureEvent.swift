/// A binding fired: what the daemon runs an action for and what replay prints.
public struct GestureEvent: Hashable, Sendable {
  /// When the daemon would fire it, on the event clock.
  public var time: Timestamp
  /// Index into the profile's bindings.
  public var binding: Int
  public var gesture: GestureKind
  public var fingers: Int
  /// Taps in the sequence (1 for everything but multi-taps).
  public var taps: Int
  public var direction: Direction?
  /// Pinch: distance between the fingers now / when both were down.
  public var scale: Double?
  /// Rotate: degrees turned, positive clockwise on screen.
  public var angle: Double?
  /// The first finger's down position (of the first tap, for taps).
  public var position: Point
  /// Index into the profile's regions; nil when no region contains `position`.
  public var region: Int?

  public init(
    time: Timestamp, binding: Int, gesture: GestureKind, fingers: Int, taps: Int = 1,
    direction: Direction? = nil, scale: Double? = nil, angle: Double? = nil, position: Point,
    region: Int?
  ) {
    self.time = time
    self.binding = binding
    self.gesture = gesture
    self.fingers = fingers
    self.taps = taps
    self.direction = direction
    self.scale = scale
    self.angle = angle
    self.position = position
    self.region = region
  }
}
