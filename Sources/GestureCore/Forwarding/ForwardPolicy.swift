/// What a forwarding device (`forward: true`) keeps from its clone besides bound gestures:
/// palms, contacts beyond `forward-fingers`, and the touch that wakes the panel (`wake`).
public struct ForwardPolicy: Hashable, Sendable {
  /// `forward-fingers`: a contact that lands while this many forwarded contacts are down is
  /// never forwarded, even after they lift. nil: no limit.
  public var maximumContacts: Int?
  /// `wake: { after: }`: after this long with nothing on the panel (from the last lift),
  /// the next touch sequence is not forwarded. nil: every sequence may be.
  public var wakeAfter: Microseconds?
  /// What makes a contact a palm (never forwarded; ended on the clone as MT_TOOL_PALM if it
  /// becomes one after it was).
  public var palm: PalmRule?

  /// A sequence whose frames have been held this long, or this many frames, passes through
  /// whatever a binding could still make of it: held frames never grow without bound.
  public static let heldDurationLimit: Microseconds = 2_000_000
  public static let heldFrameLimit = 512

  public init(maximumContacts: Int? = nil, wakeAfter: Microseconds? = nil, palm: PalmRule? = nil) {
    self.maximumContacts = maximumContacts
    self.wakeAfter = wakeAfter
    self.palm = palm
  }

  /// The profile's policy on this engine's panel.
  public init(engine: DeviceEngine) {
    self.init(
      maximumContacts: engine.profile.forwardFingers, wakeAfter: engine.profile.wakeAfter, palm: engine.palmRule)
  }
}
