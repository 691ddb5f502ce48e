import Dispatch
import GesturedConfig

extension TouchView {
  /// The view's handlers that run on the main actor, for code isolated to it (a view model,
  /// a window): `view.mainActor.onTap { tap in self.selected = tap.view }`. The screen must
  /// deliver on `DispatchQueue.main` (`TouchScreen(queue: .main)`); otherwise each call throws.
  public var mainActor: MainActorHandlers { MainActorHandlers(view: self) }
}

/// A view's `on…` methods with handlers isolated to the main actor; they run on the main
/// queue, which is the main actor's, in the same one hop per batch as every handler.
public struct MainActorHandlers: Sendable {
  let view: TouchView

  private func check(_ file: StaticString, _ line: UInt, _ column: UInt) throws(GestureDiagnostic) {
    // Compared by label: DispatchQueue.main need not give the same object each time.
    guard try view.screen(at: CallSite(file, line, column)).queue.label != DispatchQueue.main.label else { return }
    throw GestureDiagnostic(
      .error,
      RuleViolation(
        "a main-actor handler needs a screen that delivers on the main queue",
        hint: "make the screen with TouchScreen(queue: .main), or give a @Sendable handler"),
      at: CallSite(file, line, column))
  }

  /// `TouchView.onTap`, on the main actor.
  @discardableResult
  public func onTap(
    taps: Int = 1, fingers: Int = 1, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Tap) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onTap(taps: taps, fingers: fingers, file: file, line: line, column: column) { tap in
      MainActor.assumeIsolated { handler(tap) }
    }
  }

  /// `TouchView.onLongPress`, on the main actor.
  @discardableResult
  public func onLongPress(
    fingers: Int = 1, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (LongPress) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onLongPress(fingers: fingers, file: file, line: line, column: column) { press in
      MainActor.assumeIsolated { handler(press) }
    }
  }

  /// `TouchView.onSwipe`, on the main actor.
  @discardableResult
  public func onSwipe(
    _ direction: MoveDirection, fingers: Int = 1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Swipe) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onSwipe(direction, fingers: fingers, file: file, line: line, column: column) { swipe in
      MainActor.assumeIsolated { handler(swipe) }
    }
  }

  /// `TouchView.onPan(fingers:threshold:)`, on the main actor.
  @discardableResult
  public func onPan(
    fingers: ClosedRange<Int> = 1...1, threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onPan(fingers: fingers, threshold: threshold, file: file, line: line, column: column) { motion in
      MainActor.assumeIsolated { handler(motion) }
    }
  }

  /// `TouchView.onPinch(threshold:)`, on the main actor.
  @discardableResult
  public func onPinch(
    threshold: MotionThreshold = .screen, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onPinch(threshold: threshold, file: file, line: line, column: column) { motion in
      MainActor.assumeIsolated { handler(motion) }
    }
  }

  /// `TouchView.onRotate(threshold:)`, on the main actor.
  @discardableResult
  public func onRotate(
    threshold: MotionThreshold = .screen, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onRotate(threshold: threshold, file: file, line: line, column: column) { motion in
      MainActor.assumeIsolated { handler(motion) }
    }
  }

  /// `TouchView.onTransform`, on the main actor.
  @discardableResult
  public func onTransform(
    fingers: ClosedRange<Int> = 1...2, threshold: MotionThreshold = .screen,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onTransform(fingers: fingers, threshold: threshold, file: file, line: line, column: column) {
      motion in MainActor.assumeIsolated { handler(motion) }
    }
  }

  /// `TouchView.onLongPressMotion`, on the main actor.
  @discardableResult
  public func onLongPressMotion(
    fingers: ClosedRange<Int> = 1...1, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
    _ handler: @escaping @MainActor @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    try check(file, line, column)
    return try view.onLongPressMotion(fingers: fingers, file: file, line: line, column: column) { motion in
      MainActor.assumeIsolated { handler(motion) }
    }
  }
}
