/// Continuous gestures without a direction or a step, as UIKit's and SwiftUI's: each
/// handler gets `began`, `changed` at every frame that changes a value, then `ended` or
/// `cancelled`, with translation, scale, rotation, their rates and the focal point
/// (`Motion`). A gesture begins at most once per touch sequence: after a finger-count change
/// ends it, it waits until every finger has lifted.
extension TouchView {
  /// Follows fingers moving together on the view (`fingers`: how many, e.g. `1...2`).
  @discardableResult
  public func onPan(
    fingers: ClosedRange<Int> = 1...1, threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try screen(at: CallSite(file, line, column)).addMotion(
      .pan, on: self, fingers: fingers, threshold: threshold, at: CallSite(file, line, column), deliver: handler)
  }

  /// Follows two fingers pinching on the view: `scale`, `scaleVelocity`.
  @discardableResult
  public func onPinch(
    threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try screen(at: CallSite(file, line, column)).addMotion(
      .pinch, on: self, fingers: 2...2, threshold: threshold, at: CallSite(file, line, column), deliver: handler)
  }

  /// Follows two fingers turning on the view: `rotation`, `rotationVelocity`.
  @discardableResult
  public func onRotate(
    threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try screen(at: CallSite(file, line, column)).addMotion(
      .rotate, on: self, fingers: 2...2, threshold: threshold, at: CallSite(file, line, column), deliver: handler)
  }

  /// Follows pan, pinch and rotate together on the view: one `Motion` per frame with every
  /// value (UIKit's simultaneous recognizers, SwiftUI's `simultaneously(with:)`). It makes
  /// pan, pinch and rotate a group on this view only; a long press never joins it.
  @discardableResult
  public func onTransform(
    fingers: ClosedRange<Int> = 1...2, threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try screen(at: CallSite(file, line, column)).addMotion(
      .transform, on: self, fingers: fingers, threshold: threshold, at: CallSite(file, line, column),
      deliver: handler)
  }

  /// Follows a long press on the view from the moment it fires: `began` then, `changed` as
  /// the fingers move (hold and drag, measured from where they were then), then `ended`.
  @discardableResult
  public func onLongPressMotion(
    fingers: ClosedRange<Int> = 1...1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try screen(at: CallSite(file, line, column)).addMotion(
      .longPress, on: self, fingers: fingers, threshold: .screen, at: CallSite(file, line, column), deliver: handler)
  }
}

extension TouchView {
  /// Lets the continuous gestures named step together in one touch sequence of this view
  /// (`TouchScreen.recognizeSimultaneously`, for this view only, in place of the screen's
  /// group): separate pan, pinch and rotate handlers all follow one two-finger motion. A long
  /// press never joins. Replaces the view's earlier group; applies from the next gesture.
  public func recognizeSimultaneously(
    _ gestures: ContinuousGesture..., file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) throws(GestureDiagnostic) {
    let site = CallSite(file, line, column)
    let kinds = try TouchScreen.group(gestures, at: site)
    let screen = try screen(at: site)
    screen.setup.withLock { $0.viewGroups[id] = kinds }
    screen.version.add(1, ordering: .releasing)
  }
}
