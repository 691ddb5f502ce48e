import GestureCore
import Synchronization

/// One contact's change on a view: to highlight what is under a finger, or follow fingers
/// one by one.
public struct Touch: Sendable, Hashable {
  /// What happened to the contact.
  public enum Phase: Hashable, Sendable {
    /// It landed on the view.
    case down
    /// It moved (wherever it is now: it stays its view's).
    case moved
    /// It lifted.
    case up
    /// The device went or the recording ended with it down, or the view was removed.
    case cancelled
  }

  /// Unique per device while the source is read: tells the fingers apart.
  public var id: UInt32
  public var phase: Phase
  /// Where it is, fractions of the panel as the user sees it.
  public var position: Position
  /// Where it is relative to the view's frame now: 0...1 inside it.
  public var positionInView: Position
  /// When, on the source's clock.
  public var time: Duration
  /// The view it belongs to.
  public var view: TouchView
}

/// A touch handler and its token.
struct TouchHandler: Sendable {
  var token: GestureToken
  /// The first landing (`Setup.nextLanding`) whose contact it follows: a contact down when it
  /// was added goes on without it.
  var firstLanding: Int
  var deliver: @Sendable (Touch) -> Void
}

extension TouchView {
  /// Calls `handler` for every contact of the view that lands from now on: when it lands,
  /// moves, lifts or is cancelled (a contact already down goes on without it). Adding or
  /// removing it changes no gesture in progress.
  @discardableResult
  public func onTouch(_ handler: @escaping @Sendable (Touch) -> Void) -> GestureToken {
    let token = GestureToken(screen: owner)
    let add = { (firstLanding: Int) in
      let stamped = TouchHandler(token: token, firstLanding: firstLanding, deliver: handler)
      self.touchHandlers.withLock { $0.append(stamped) }
    }
    // Stamped and added under the lock the input side numbers landings under: the handler
    // is in its view's list before the down of any contact its stamp lets it follow.
    if let owner {
      owner.setup.withLock { add($0.nextLanding) }
    } else {
      add(0)
    }
    owner?.touchHandlerCount.add(1, ordering: .releasing)
    return token
  }

  /// Removes `token`'s touch handler; false when it is none of this view's.
  func removeTouchHandler(_ token: GestureToken) -> Bool {
    let removed = touchHandlers.withLock { list in
      let before = list.count
      list.removeAll { $0.token === token }
      return list.count != before
    }
    if removed { owner?.touchHandlerCount.subtract(1, ordering: .releasing) }
    return removed
  }
}

/// Which view each contact down belongs to, for the touch handlers: the input side's.
struct ContactViews {
  /// Each with its landing's number (`Setup.nextLanding`).
  private var contacts: [(id: UInt32, view: TouchView, landing: Int)] = []

  /// The touches `frame` makes for the views' touch handlers, each with its handlers.
  mutating func touches(
    in frame: TouchFrame, screen: TouchScreen, into out: inout [DeliveryItem]
  ) {
    for change in frame.changes {
      let position = Position(x: change.position.clamped.x, y: change.position.clamped.y)
      let view: TouchView
      let landing: Int
      let phase: Touch.Phase
      switch change.phase {
      case .began:
        // The router asked the same just before, with the frames as they are now.
        guard let found = screen.view(at: position) else { continue }
        // Numbered before the handlers are read, so that one added since has a later stamp.
        landing = screen.setup.withLock { setup in
          defer { setup.nextLanding += 1 }
          return setup.nextLanding
        }
        contacts.append((change.id, found, landing))
        view = found
        phase = .down
      case .moved:
        guard let found = contacts.first(where: { $0.id == change.id }) else { continue }
        (view, landing) = (found.view, found.landing)
        phase = .moved
      case .ended, .cancelled:
        guard let index = contacts.firstIndex(where: { $0.id == change.id }) else { continue }
        (view, landing) = (contacts[index].view, contacts[index].landing)
        contacts.remove(at: index)
        phase = change.phase == .ended ? .up : .cancelled
      }
      let handlers = view.touchHandlers.withLock { $0 }
      guard !handlers.isEmpty else { continue }
      let frameNow = view.frame
      let touch = Touch(
        id: change.id, phase: phase, position: position, positionInView: frameNow.relative(position),
        time: .microseconds(frame.time.microseconds), view: view)
      for handler in handlers where handler.firstLanding <= landing { out.append(.touch(handler, touch)) }
    }
  }

  /// The view went: its contacts are cancelled.
  mutating func removeView(_ id: Int, at time: Timestamp, into out: inout [DeliveryItem]) {
    for contact in contacts where contact.view.id == id {
      for handler in contact.view.touchHandlers.withLock({ $0 }) where handler.firstLanding <= contact.landing {
        out.append(
          .touch(
            handler,
            Touch(
              id: contact.id, phase: .cancelled, position: Position(x: 0, y: 0), positionInView: Position(x: 0, y: 0),
              time: .microseconds(time.microseconds), view: contact.view)))
      }
    }
    contacts.removeAll { $0.view.id == id }
  }
}
