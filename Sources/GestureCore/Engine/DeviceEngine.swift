/// One device's whole pipeline: raw events → frames → recognizers → gesture events.
///
/// Pure: time comes in with the events and through `advance(to:)`; `nextDeadline` says when
/// the engine next needs to be woken if no event arrives. A deadline at T runs after every
/// event stamped at or before T, so live reading and replay agree.
public struct DeviceEngine {
  public let device: DeviceDescription
  public let profile: Profile
  public let geometry: PanelGeometry

  /// nil when the device cannot report a position (no usable axes).
  public init?(device: DeviceDescription, profile: Profile) {
    guard let geometry = PanelGeometry(device: device, profile: profile) else { return nil }
    self.device = device
    self.profile = profile
    self.geometry = geometry
  }

  /// The earliest time the engine must be advanced to, or nil when nothing is pending.
  public var nextDeadline: Timestamp? { nil }

  /// Feeds one raw event. Deadlines stamped before the event run first.
  public mutating func handle(_ event: RawEvent, into output: inout [GestureEvent]) {}

  /// Runs every deadline at or before `time`.
  public mutating func advance(to time: Timestamp, into output: inout [GestureEvent]) {}

  /// End of a recording: contacts still down are cancelled (no gesture from them), then
  /// pending deadlines run as if time went on.
  public mutating func finish(at time: Timestamp, into output: inout [GestureEvent]) {}

  /// The device is gone: everything in flight is dropped, nothing fires.
  public mutating func cancel(at time: Timestamp) {}
}
