import GestureCore
import GesturedConfig
import Synchronization

/// A rectangle of the panel, in fractions of it as the user sees it (after rotation): its
/// left and top edges and its size.
public struct ViewFrame: Hashable, Sendable {
  /// The left edge: 0 at the panel's left, 1 at its right.
  public var x: Double
  /// The top edge: 0 at the panel's top, 1 at its bottom.
  public var y: Double
  /// The width, a fraction of the panel's.
  public var width: Double
  /// The height, a fraction of the panel's.
  public var height: Double

  /// A frame from its edges and size, in fractions of the panel.
  public init(x: Double, y: Double, width: Double, height: Double) {
    self.x = x
    self.y = y
    self.width = width
    self.height = height
  }

  /// Whether `position` lies in the frame (its left and top edges in, its right and bottom
  /// edges out, except at the panel's own right and bottom edges).
  public func contains(_ position: Position) -> Bool {
    Area(x: x, y: y, width: width, height: height).contains(x: position.x, y: position.y)
  }

  /// `position` relative to the frame: 0 at its left or top edge, 1 at its right or bottom.
  public func relative(_ position: Position) -> Position {
    Position(x: width > 0 ? (position.x - x) / width : 0, y: height > 0 ? (position.y - y) / height : 0)
  }
}

/// A rectangle of a `TouchScreen` that the app moves, resizes, reorders and removes at any
/// time, as a view of a window: a touch belongs to the frontmost view its landing point is
/// in, and stays its view's wherever it moves. Gestures on different views run at the same
/// time (each view is an independent touch sequence).
///
/// A frame set before a landing was read applies to that landing; moving a view never
/// cancels what its fingers are doing; `remove()` cancels it (continuous gestures get
/// `cancelled`) and nothing of the view fires again.
public final class TouchView: Sendable, Hashable, CustomStringConvertible {
  /// The name given when it was made, for messages.
  public let name: String
  /// Unique within its screen, never reused: routing and firings find the view by it.
  let id: Int
  /// Weak: the screen keeps its views, and a view kept by the app must not keep its screen
  /// (nor the screen's bindings, whose handlers may hold the view).
  weak let owner: TouchScreen?
  /// The consumers of `events()`, fed on the input side.
  let observers = Mutex<[ViewEventBuffer]>([])
  /// `onTouch` handlers, read at every contact change of the view.
  let touchHandlers = Mutex<[TouchHandler]>([])

  init(name: String, id: Int, screen: TouchScreen) {
    self.name = name
    self.id = id
    owner = screen
  }

  /// The name.
  public var description: String { name }

  /// Where the view is now; the last frame it had once removed.
  public var frame: ViewFrame {
    get { owner?.views.withLock { $0.frame(of: id) } ?? ViewFrame(x: 0, y: 0, width: 0, height: 0) }
    set { owner?.views.withLock { $0.setFrame(newValue, of: id) } }
  }

  /// The view's tap policy where a single and a longer tap are both bound on it: false (the
  /// default, as the config's) a single tap waits out the multi-tap gap and a double tap is
  /// no single tap; true a single tap fires at its release, and a double tap still fires at
  /// its second release (both fire). A view without a longer tap fires at release anyway.
  public var singleTapFiresAtOnce: Bool {
    get { owner?.setup.withLock { $0.singleTapAtOnce.contains(id) } ?? false }
    set {
      guard let screen = owner else { return }
      let changed = screen.setup.withLock { setup in
        newValue ? setup.singleTapAtOnce.insert(id).inserted : setup.singleTapAtOnce.remove(id) != nil
      }
      if changed { screen.version.add(1, ordering: .releasing) }
    }
  }

  /// Whether `remove()` was called, or its screen no longer exists.
  public var isRemoved: Bool { owner?.views.withLock { $0.frame(of: id) == nil } ?? true }

  /// Puts the view in front of every other: it takes landings where it overlaps them.
  public func bringToFront() { owner?.views.withLock { $0.reorder(id, toFront: true) } }

  /// Puts the view behind every other.
  public func sendToBack() { owner?.views.withLock { $0.reorder(id, toFront: false) } }

  /// Takes the view off the screen: a gesture in progress on it is cancelled, its handlers
  /// are never called again, and its touches fire nothing more. Calling it again does nothing.
  public func remove() {
    owner?.removeView(self)
    for buffer in observers.withLock({ $0 }) { buffer.finish() }
  }

  /// The screen, for a call that needs it: gone when the app let go of the screen.
  func screen(at site: CallSite) throws(GestureDiagnostic) -> TouchScreen {
    guard let owner else {
      throw GestureDiagnostic(
        .error,
        RuleViolation(
          "view '\(name)' has no screen any more", hint: "keep a reference to the TouchScreen while its views are used"),
        at: site)
    }
    return owner
  }

  /// Hands `event` to every consumer of `events()`.
  func publish(_ event: @autoclosure () -> ViewEvent?) {
    let buffers = observers.withLock { $0 }
    guard !buffers.isEmpty, let event = event() else { return }
    for buffer in buffers { buffer.push(event) }
  }

  /// Views are equal only to themselves.
  public static func == (a: TouchView, b: TouchView) -> Bool { a === b }

  /// Hashes the view's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// A screen's views: their frames and their order, front first. Read at every landing (the
/// router) and changed by the app; behind the screen's `views` lock.
struct ViewTable: Sendable {
  struct Entry: Sendable {
    var view: TouchView
    var frame: ViewFrame
  }

  /// Front first.
  private(set) var order: [Entry] = []
  /// The app's hit test, when it gave one: asked instead of the frames.
  var hitTest: (@Sendable (Position) -> TouchView?)?
  private(set) var lastID = 0

  mutating func nextID() -> Int {
    lastID += 1
    return lastID
  }

  /// A view added later is in front.
  mutating func add(_ view: TouchView, frame: ViewFrame) { order.insert(Entry(view: view, frame: frame), at: 0) }

  /// The view's entry gone; false when it was gone already.
  mutating func remove(_ id: Int) -> Bool {
    guard let index = order.firstIndex(where: { $0.view.id == id }) else { return false }
    order.remove(at: index)
    return true
  }

  func frame(of id: Int) -> ViewFrame? { order.first { $0.view.id == id }?.frame }

  mutating func setFrame(_ frame: ViewFrame, of id: Int) {
    guard let index = order.firstIndex(where: { $0.view.id == id }) else { return }
    order[index].frame = frame
  }

  mutating func reorder(_ id: Int, toFront: Bool) {
    guard let index = order.firstIndex(where: { $0.view.id == id }) else { return }
    let entry = order.remove(at: index)
    if toFront { order.insert(entry, at: 0) } else { order.append(entry) }
  }

  /// The view a landing at `position` belongs to: the hit test's answer when there is one
  /// (a removed view counts as none), else the frontmost view whose frame contains it.
  func view(at position: Position) -> TouchView? {
    if let hitTest {
      guard let view = hitTest(position), order.contains(where: { $0.view === view }) else { return nil }
      return view
    }
    return order.first { $0.frame.contains(position) }?.view
  }
}
