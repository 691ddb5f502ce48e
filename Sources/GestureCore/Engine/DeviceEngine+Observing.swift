/// What a picture or a live view of recognition needs from the engine beyond its firings:
/// the frames it assembled and its trace as values. Off by default; the hot path only pays
/// for a flag test.
extension DeviceEngine {
  /// Keep `TraceRecord`s (taken with `takeRecords()`), independently of the text trace.
  public var keepsRecords: Bool {
    get { arbiter.keepsRecords }
    set { arbiter.keepsRecords = newValue }
  }

  /// The records kept since the last call.
  public mutating func takeRecords() -> [TraceRecord] { arbiter.takeRecords() }

  /// The frame the last `handle` (or `finish`, `cancel`) call completed, in the user's
  /// coordinates; nil when that call completed none.
  public var completedFrame: TouchFrame? { assembler.frameIsDelivered ? assembler.frame : nil }
}
