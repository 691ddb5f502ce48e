/// What happened to one contact in one frame.
public enum ContactPhase: UInt8, Hashable, Sendable {
  /// The contact touched down.
  case began
  /// The contact is still down and its position changed.
  case moved
  /// The contact lifted normally.
  case ended
  /// The contact is gone without a normal lift (device removed, end of recording, turned
  /// into a palm or pen, SYN_DROPPED resync). No gesture may come from it.
  case cancelled
}

/// One contact's change in a frame. Positions are in the user's normalized coordinates.
public struct ContactChange: Hashable, Sendable {
  /// Unique per device for the device's lifetime; never reused, so a new tracking id on
  /// the same slot is a new contact.
  public var id: UInt32
  public var phase: ContactPhase
  public var position: Point

  public init(id: UInt32, phase: ContactPhase, position: Point) {
    self.id = id
    self.phase = phase
    self.position = position
  }
}

/// Everything that changed between two SYN_REPORTs. Contacts that did not change are not
/// listed. For observers and tests: the engine hands the arbiter the assembler's own buffer,
/// without making one of these per frame.
public struct TouchFrame: Sendable {
  public var time: Timestamp
  public var changes: [ContactChange]

  public init(time: Timestamp = Timestamp(microseconds: 0), changes: [ContactChange] = []) {
    self.time = time
    self.changes = changes
  }
}
