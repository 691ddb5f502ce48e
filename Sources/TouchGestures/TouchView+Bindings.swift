import GestureCore

/// A view's gestures, one method per gesture, as `TouchScreen`'s with the view's touches
/// only: each handler runs on the screen's `queue`, and the token it returns controls it. A
/// second handler of the same gesture joins the first.
extension TouchView {
  /// Calls `handler` for `taps` taps (2: a double tap) of `fingers` fingers on the view.
  @discardableResult
  public func onTap(
    taps: Int = 1, fingers: Int = 1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Tap) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .tap, taps: taps, fingers: fingers)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(Tap(event, firing))
    }
  }

  /// Calls `handler` when `fingers` fingers rest on the view for the long-press time.
  @discardableResult
  public func onLongPress(
    fingers: Int = 1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (LongPress) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .longPress, fingers: fingers)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(LongPress(event, firing))
    }
  }

  /// Calls `handler` for a swipe `direction` that started on the view.
  @discardableResult
  public func onSwipe(
    _ direction: MoveDirection, fingers: Int = 1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Swipe) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .swipe, fingers: fingers, direction: direction.core)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(Swipe(event, firing))
    }
  }

  /// Calls `handler` at every `step` the view's fingers move towards `direction`, then once
  /// with `.ended` (`TouchScreen.onPan`).
  @discardableResult
  public func onPan(
    _ direction: MoveDirection, fingers: Int = 1, step: PanStep,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Pan) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .pan, fingers: fingers, direction: direction.core, step: step.millimetres)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(Pan(event, firing))
    }
  }

  /// Calls `handler` for a pinch `direction` on the view, once or at every `step`
  /// (`TouchScreen.onPinch`).
  @discardableResult
  public func onPinch(
    _ direction: PinchDirection, step: PinchStep? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Pinch) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .pinch, direction: direction.core, step: step?.percent)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(Pinch(event, firing))
    }
  }

  /// Calls `handler` for a rotation `direction` on the view, once or at every `step`
  /// (`TouchScreen.onRotate`).
  @discardableResult
  public func onRotate(
    _ direction: RotationDirection, step: RotationStep? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Rotation) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let binding = Binding(gesture: .rotate, direction: direction.core, step: step?.degrees)
    let site = CallSite(file, line, column)
    return try screen(at: site).add(binding, on: self, at: site) { event, firing in
      handler(Rotation(event, firing))
    }
  }
}
