import GestureCore

/// The bindings, one method per gesture. Each is the config's binding of the same name with
/// the same fields and defaults; its handler runs on the screen's `queue`, and the token it
/// returns removes it.
extension TouchScreen {
  /// Calls `handler` for `taps` taps (2: a double tap) of `fingers` fingers.
  ///
  /// A single-tap binding fires only once the multi-tap gap has passed when a double tap is
  /// also bound, as in the config. Throws for taps outside 1…100 or fingers outside 1…5.
  @discardableResult
  public func onTap(
    taps: Int = 1, fingers: Int = 1, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Tap) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(gesture: .tap, taps: taps, fingers: fingers, region: try index(of: region, at: site))
    return try add(binding, at: site) { event, firing in handler(Tap(event, firing)) }
  }

  /// Calls `handler` when `fingers` fingers rest for the long-press time.
  @discardableResult
  public func onLongPress(
    fingers: Int = 1, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (LongPress) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(gesture: .longPress, fingers: fingers, region: try index(of: region, at: site))
    return try add(binding, at: site) { event, firing in handler(LongPress(event, firing)) }
  }

  /// Calls `handler` for a swipe `direction`, known when the fingers lift; with `edge`, only
  /// for swipes that start within the edge width of that edge (preferred over a plain one).
  @discardableResult
  public func onSwipe(
    _ direction: MoveDirection, fingers: Int = 1, from edge: ScreenEdge? = nil, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Swipe) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(
      gesture: .swipe, fingers: fingers, direction: direction.core, edge: edge?.core,
      region: try index(of: region, at: site))
    return try add(binding, at: site) { event, firing in handler(Swipe(event, firing)) }
  }

  /// Calls `handler` at every `step` the fingers move further towards `direction` (and back
  /// again the other way, as the config's step bindings do), then once with `.ended`.
  @discardableResult
  public func onPan(
    _ direction: MoveDirection, fingers: Int = 1, step: PanStep, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Pan) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(
      gesture: .pan, fingers: fingers, direction: direction.core, region: try index(of: region, at: site),
      step: step.millimetres)
    return try add(binding, at: site) { event, firing in handler(Pan(event, firing)) }
  }

  /// Calls `handler` for a two-finger pinch `direction`: once when recognized without a
  /// `step`; with one, at every step further and once with `.ended`.
  @discardableResult
  public func onPinch(
    _ direction: PinchDirection, step: PinchStep? = nil, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Pinch) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(
      gesture: .pinch, direction: direction.core, region: try index(of: region, at: site), step: step?.percent)
    return try add(binding, at: site) { event, firing in handler(Pinch(event, firing)) }
  }

  /// Calls `handler` for a two-finger rotation `direction`: once when recognized without a
  /// `step`; with one, at every step further and once with `.ended`.
  @discardableResult
  public func onRotate(
    _ direction: RotationDirection, step: RotationStep? = nil, in region: ScreenRegion? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Rotation) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let site = CallSite(file, line, column)
    let binding = Binding(
      gesture: .rotate, direction: direction.core, region: try index(of: region, at: site), step: step?.degrees)
    return try add(binding, at: site) { event, firing in handler(Rotation(event, firing)) }
  }
}
