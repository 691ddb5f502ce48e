/// Why a continuous gesture's stream, or a step binding's steps, ended.
public enum EndReason: String, Hashable, Sendable, CaseIterable {
  /// The last finger lifted.
  case lift
  /// The finger count changed (a finger landed late or lifted early).
  case fingers
  /// The device went, the config was reloaded, a recording ended with fingers down, or
  /// another gesture took the sequence.
  case cancel
}

/// The values of a continuous gesture at one frame, measured from the reference of its
/// steps (where the fingers were when the last finger of the gesture landed; for a long
/// press, where they were when it fired).
public struct StreamValues: Hashable, Sendable {
  /// The fingers' centroid, 0...1 of the panel as the user sees it.
  public var cx: Double
  public var cy: Double
  /// The centroid's offset from the reference, mm, right and down positive.
  public var dx: Double
  public var dy: Double
  /// Finger distance / reference distance (1 for one finger).
  public var scale: Double
  /// Degrees turned since the reference, clockwise positive, unwrapped (0 for one finger).
  public var angle: Double
  /// Rates over the samples of the last 100 ms: mm/s, per second, degrees per second.
  public var vx: Double
  public var vy: Double
  public var vscale: Double
  public var vangle: Double

  public init(
    cx: Double = 0, cy: Double = 0, dx: Double = 0, dy: Double = 0, scale: Double = 1, angle: Double = 0,
    vx: Double = 0, vy: Double = 0, vscale: Double = 0, vangle: Double = 0
  ) {
    self.cx = cx
    self.cy = cy
    self.dx = dx
    self.dy = dy
    self.scale = scale
    self.angle = angle
    self.vx = vx
    self.vy = vy
    self.vscale = vscale
    self.vangle = vangle
  }
}

/// One event of a continuous gesture's stream (pan, pinch, rotate, long press), per touch
/// sequence and kind: `began` at recognition (a long press: when it fires), `changed` at
/// every later frame that changes a value, then `ended` or `cancelled`.
public struct GestureStreamEvent: Hashable, Sendable {
  public enum Phase: String, Hashable, Sendable, CaseIterable {
    case began, changed, ended, cancelled
  }

  /// The frame's time on the event clock.
  public var time: Timestamp
  /// The device's touch sequence, as `GestureEvent.sequence`.
  public var sequence: Int
  public var gesture: GestureKind
  public var phase: Phase
  /// Why it ended: set for `ended` (lift, fingers) and `cancelled` (cancel).
  public var reason: EndReason?
  public var fingers: Int
  /// Index into the profile's regions: the sequence's region.
  public var region: Int?
  public var values: StreamValues

  public init(
    time: Timestamp, sequence: Int, gesture: GestureKind, phase: Phase, reason: EndReason? = nil, fingers: Int,
    region: Int?, values: StreamValues
  ) {
    self.time = time
    self.sequence = sequence
    self.gesture = gesture
    self.phase = phase
    self.reason = reason
    self.fingers = fingers
    self.region = region
    self.values = values
  }
}
