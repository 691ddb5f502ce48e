import Dispatch
import GestureCore
import GesturedConfig
import Synchronization

/// A touchscreen's gestures as closures: regions and bindings made in code, recognized by
/// gestured's recognizers with the config's semantics and thresholds, each handler run on
/// the `queue` the screen was made with.
///
/// ```swift
/// let screen = TouchScreen(queue: .main)
/// let corner = try screen.region("corner", x: 0.9, y: 0, width: 0.1, height: 0.1)
/// try screen.onTap(taps: 2, in: corner) { tap in print("double tap at", tap.position) }
/// try screen.onPinch(.out, step: .percent(10)) { pinch in zoom(to: pinch.scale) }
/// screen.start(.firstTouchscreen())
/// ```
///
/// Every `on…` call and `region` throws what `gestured check` would say about the same
/// binding or region in a config, at the call's file, line and column; `warnings` holds what
/// it would warn about. Calls may come from any thread, before or after `start`. A change
/// never cancels a gesture in progress: a new binding, view or handler (a second one of a
/// gesture already bound too) takes the touch sequences that begin after it, even while
/// fingers are down elsewhere, and the ones in progress go on with the bindings and
/// handlers they began with; a view moved applies at once.
///
/// Events are read and recognized on the screen's own serial queue; a batch of firings (the
/// ones one read of the device produced) reaches `queue` in one `async`, so there is at most
/// one hop per firing and none for frames that fire nothing.
public final class TouchScreen: Sendable {
  /// The queue every handler and `SourceEvent` runs on.
  public let queue: DispatchQueue
  /// Distinguishes this screen's regions from another's.
  let id: Int
  let setup: Mutex<Setup>
  /// Bumped by every change of `setup`: the input side makes its recognizer anew when the
  /// version it was made from is behind.
  let version = Atomic<Int>(0)
  let session = Mutex<InputSession?>(nil)
  /// The views, front first: the router reads them at every landing.
  let views = Mutex(ViewTable())
  /// Views removed that the input side has not yet cancelled the gestures of.
  let removals = Mutex<[Int]>([])
  /// How many `onTouch` handlers the views have: none, and frames are not looked at.
  let touchHandlerCount = Atomic<Int>(0)
  /// The way from the input side to `queue`.
  let delivery: Delivery

  private static let screens = Atomic<Int>(0)

  /// A screen whose handlers run on `queue`.
  /// - Parameters:
  ///   - queue: where handlers and source events run; a serial queue keeps them in order.
  ///   - rotation: the clockwise turn from the device's coordinates to what the user sees
  ///     (the config's `rotation:`), so that directions, edges and regions follow the user.
  ///   - size: the panel's physical size before rotation, when the device reports no
  ///     resolution (the config's `size:`); steps and thresholds in mm use it.
  public init(
    queue: DispatchQueue, rotation: ScreenRotation = .none, size: PanelDimensions? = nil,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) {
    self.queue = queue
    delivery = Delivery(queue: queue)
    id = Self.screens.add(1, ordering: .relaxed).newValue
    setup = Mutex(Setup(rotation: rotation, size: size, site: CallSite(file, line, column)))
  }

  /// What `gestured check` would warn about in the same setup (a region that lies inside an
  /// earlier one, an edge swipe towards its own edge, a simultaneous group whose members
  /// take different finger counts, no binding at all), worked out now.
  public var warnings: [GestureDiagnostic] { setup.withLock { $0.warnings() } }

  /// Makes a region: a named area of the panel, in fractions of it as the user sees it.
  ///
  /// Regions are tried in the order they were made; the first containing a gesture's first
  /// finger is the gesture's region. Throws for an area outside the panel, a name already
  /// used, or more than 256 regions.
  @discardableResult
  public func region(
    _ name: String, x: Double = 0, y: Double = 0, width: Double = 1, height: Double = 1,
    file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) throws(GestureDiagnostic) -> ScreenRegion {
    let site = CallSite(file, line, column)
    let area = Area(x: x, y: y, width: width, height: height)
    if let problem = ConfigRules.area(area).first { throw GestureDiagnostic(.error, problem, at: site) }
    let made = setup.withLock { setup -> Result<ScreenRegion, GestureDiagnostic> in
      if setup.regions.count >= ConfigRules.maximumRegions {
        return .failure(GestureDiagnostic(.error, ConfigRules.tooManyRegions, at: site))
      }
      if let index = setup.regions.firstIndex(where: { $0.name == name }) {
        let problem = ConfigRules.repeatedRegion(name, line: setup.regionSites[index].location.line)
        return .failure(GestureDiagnostic(.error, problem, at: site))
      }
      let region = ScreenRegion(
        name: name, x: x, y: y, width: width, height: height, screen: id, index: setup.regions.count)
      setup.regions.append(region)
      setup.regionSites.append(site)
      return .success(region)
    }
    if case .success = made { version.add(1, ordering: .releasing) }
    return try made.get()
  }

  /// The thresholds recognition uses; the config's defaults until `setThresholds`.
  public var thresholds: GestureThresholds { setup.withLock { $0.thresholds } }

  /// Replaces the thresholds (the config's `thresholds:`), checked as the config's are: the
  /// first value `gestured check` would reject is thrown, and nothing changes.
  public func setThresholds(
    _ thresholds: GestureThresholds, file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) throws(GestureDiagnostic) {
    if let problem = thresholds.problems.first {
      throw GestureDiagnostic(.error, problem, at: CallSite(file, line, column))
    }
    setup.withLock { $0.thresholds = thresholds }
    version.add(1, ordering: .releasing)
  }

  /// Lets the continuous gestures named step together in one touch sequence (the config's
  /// `simultaneous: [[pan, pinch, rotate]]`): a map that pans, zooms and turns at once.
  /// Without it, the first gesture recognized wins the sequence. Replaces an earlier group.
  public func recognizeSimultaneously(
    _ gestures: ContinuousGesture..., file: StaticString = #fileID, line: UInt = #line, column: UInt = #column
  ) throws(GestureDiagnostic) {
    let site = CallSite(file, line, column)
    let kinds = try Self.group(gestures, at: site)
    setup.withLock {
      $0.simultaneous = kinds
      $0.groupSite = site
    }
    version.add(1, ordering: .releasing)
  }

  /// Times `queue` was entered with handler calls (a batch of any number of them), for the
  /// tests and the bench that count hops.
  package var handlerHops: Int { delivery.hops.load(ordering: .relaxed) }
  /// Batches of handler calls the input side sent: one per frame or deadline that calls any.
  package var handlerBatches: Int { delivery.batches.load(ordering: .relaxed) }

  /// The kinds of a simultaneous group, checked as the config's.
  static func group(_ gestures: [ContinuousGesture], at site: CallSite) throws(GestureDiagnostic) -> GestureKindSet {
    var kinds = GestureKindSet()
    for gesture in gestures {
      if kinds.contains(gesture.core) {
        throw GestureDiagnostic(.error, ConfigRules.repeatedGroupMember(gesture.core), at: site)
      }
      kinds.insert(gesture.core)
    }
    guard kinds.count >= 2 else { throw GestureDiagnostic(.error, ConfigRules.groupTooSmall, at: site) }
    return kinds
  }

  /// Starts reading `source`; handlers run from now on. A screen reads one source at a
  /// time: starting another stops the first.
  /// - Parameter events: told on `queue` when a device comes or goes, when a recording
  ///   has been played to its end (after its last firing), or when the source fails.
  public func start(_ source: TouchSource, events: (@Sendable (SourceEvent) -> Void)? = nil) {
    let new = InputSession(screen: self, report: events)
    let old = session.withLock { current in
      defer { current = new }
      return current
    }
    old?.stop()
    new.start(source)
  }

  /// Stops reading. Steps in progress end (their handlers get `.ended`); nothing fires
  /// after the handlers already on their way. A screen reads until this is called (or
  /// another source is started): dropping the last reference to it does not stop it.
  public func stop() {
    let old = session.withLock { current in
      defer { current = nil }
      return current
    }
    old?.stop()
  }

  /// A session that ended by itself (a recording played to its end, a source that failed)
  /// lets go of the screen, unless another source replaced it already.
  func forget(_ ended: InputSession) {
    session.withLock { current in
      if current === ended { current = nil }
    }
  }

  // MARK: Bindings (see TouchScreen+Bindings.swift)

  /// Adds a handler: to the binding with the same trigger (on the same view) if there is
  /// one, else with a binding of its own, checked as the config's are.
  func add(
    _ binding: Binding, on view: TouchView? = nil, at site: CallSite,
    deliver: @escaping @Sendable (GestureEvent, Firing) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    var binding = binding
    binding.location = site.location
    if let problem = ConfigRules.fingers(binding.fingers, gesture: binding.gesture) {
      throw GestureDiagnostic(.error, problem, at: site)
    }
    if binding.gesture == .tap, let problem = ConfigRules.taps(binding.taps) {
      throw GestureDiagnostic(.error, problem, at: site)
    }
    if let step = binding.step, let unit = binding.gesture.traits.stepUnit,
      let problem = ConfigRules.step(step, written: ConfigRules.stepText(step, unit: unit), unit: unit)
    {
      throw GestureDiagnostic(.error, problem, at: site)
    }
    let token = GestureToken(screen: self)
    let bound = binding
    // Stamped and added under the lock the input side publishes `nextSequence` under: the
    // handler is in its list before any event of the sequences its stamp lets it see.
    let isNew = setup.withLock { setup -> Bool in
      let handler = Handler(token: token, firstSequence: setup.nextSequence, deliver: deliver)
      if let k = setup.entries.firstIndex(where: { $0.view === view && $0.binding.sameTrigger(as: bound) }) {
        setup.entries[k].handlers.add(handler)
        return false
      }
      setup.entries.append(Entry(binding: bound, view: view, handlers: HandlerList(handler)))
      return true
    }
    if isNew { version.add(1, ordering: .releasing) }
    return token
  }

  /// Adds a motion handler: to the entry that follows the same gesture the same way if there
  /// is one, else with an entry of its own (and the bindings that make the core recognize it).
  func addMotion(
    _ kind: MotionKind, on view: TouchView?, fingers: ClosedRange<Int>, threshold: MotionThreshold,
    at site: CallSite, deliver: @escaping @Sendable (Motion) -> Void
  ) throws(GestureDiagnostic) -> GestureToken {
    let gesture = kind.kinds[0]
    for count in [fingers.lowerBound, fingers.upperBound] {
      if let problem = ConfigRules.fingers(count, gesture: gesture) {
        throw GestureDiagnostic(.error, problem, at: site)
      }
    }
    for (value, name) in [
      (threshold.distance, "distance"), (threshold.scaleChange, "scaleChange"), (threshold.angle, "angle"),
    ] {
      if let value, !(value >= 0 && value.isFinite) || (name == "scaleChange" && value >= 1) {
        throw GestureDiagnostic(
          .error,
          RuleViolation(
            "threshold \(name) \(value) is out of range",
            hint: name == "scaleChange"
              ? "give a change of scale from 0 up to (not including) 1" : "give a finite value, 0 or more"),
          at: site)
      }
    }
    let token = GestureToken(screen: self)
    // Stamped and added under the lock `nextSequence` is published under (see `add`).
    let isNew = setup.withLock { setup -> Bool in
      let handler = MotionHandler(
        token: token, firstSequence: setup.nextSequence, deliver: deliver)
      if let entry = setup.motions.first(where: {
        $0.kind == kind && $0.view === view && $0.fingers == fingers && $0.threshold == threshold
      }) {
        entry.add(handler)
        return false
      }
      let entry = MotionEntry(kind: kind, view: view, fingers: fingers, threshold: threshold)
      entry.add(handler)
      setup.motions.append(entry)
      return true
    }
    if isNew { version.add(1, ordering: .releasing) }
    return token
  }

  /// The region as this screen knows it; a region of another screen is an error.
  func index(of region: ScreenRegion?, at site: CallSite) throws(GestureDiagnostic) -> Int? {
    guard let region else { return nil }
    guard region.screen == id else {
      throw GestureDiagnostic(
        .error,
        RuleViolation("unknown region '\(region.name)'", hint: "the region was made by another TouchScreen"),
        at: site)
    }
    return region.index
  }

  func remove(_ token: GestureToken) {
    let views = setup.withLock { $0.views }
    for view in views where view.removeTouchHandler(token) { return }
    let removed = setup.withLock { setup in
      if let k = setup.motions.firstIndex(where: { $0.contains(token) }) {
        guard setup.motions[k].remove(token) else { return false }
        setup.motions.remove(at: k)
        return true
      }
      guard let k = setup.entries.firstIndex(where: { $0.handlers.contains(token) }) else { return false }
      guard setup.entries[k].handlers.remove(token) else { return false }
      setup.entries.remove(at: k)
      return true
    }
    if removed { version.add(1, ordering: .releasing) }
  }

  /// What the input side recognizes now, and the version it reflects. `layout`: the regions
  /// of a recognizer still busy, kept at their indices (see `Setup.profile`).
  func snapshot(keeping layout: [RegionSlot] = []) -> Snapshot {
    let version = version.load(ordering: .acquiring)
    return setup.withLock { setup in
      let (bindings, viewRegions, layout) = setup.bindings(keeping: layout)
      return Snapshot(
        version: version, bindings: bindings, regions: setup.regions, viewRegions: viewRegions, layout: layout,
        motions: setup.motions)
    }
  }

  // MARK: Views

  /// Makes a view in front of every other, at `frame` (fractions of the panel as the user
  /// sees it). The number of views is not limited.
  public func addView(_ name: String, frame: ViewFrame) -> TouchView {
    let view = views.withLock { table in
      let view = TouchView(name: name, id: table.nextID(), screen: self)
      table.add(view, frame: frame)
      return view
    }
    setup.withLock { $0.views.append(view) }
    version.add(1, ordering: .releasing)
    return view
  }

  /// Decides which view a landing belongs to instead of the views' frames and order; nil
  /// gives the decision back to the frames. It runs on the screen's input queue at every
  /// landing, before the landing is recognized: it must be quick, must not block, and must
  /// not wait for the screen's queue. A view it returns that was removed takes nothing.
  public func setHitTest(_ test: (@Sendable (Position) -> TouchView?)?) {
    views.withLock { $0.hitTest = test }
  }

  /// The view a landing at `position` belongs to, if any.
  func view(at position: Position) -> TouchView? {
    let (test, view) = views.withLock { table -> ((@Sendable (Position) -> TouchView?)?, TouchView?) in
      if let test = table.hitTest { return (test, nil) }
      return (nil, table.view(at: position))
    }
    guard let test else { return view }
    // Asked outside the lock: the app's test may read frames.
    guard let tested = test(position), !tested.isRemoved else { return nil }
    return tested
  }

  func removeView(_ view: TouchView) {
    guard views.withLock({ $0.remove(view.id) }) else { return }
    setup.withLock { setup in
      setup.views.removeAll { $0 === view }
      setup.viewGroups[view.id] = nil
      setup.entries.removeAll { $0.view === view }
      setup.motions.removeAll { $0.view === view }
    }
    removals.withLock { $0.append(view.id) }
    version.add(1, ordering: .releasing)
  }
}

/// One handler of a gesture: `cancel()` it and it is never called again, not even for a
/// firing already on its way to the queue (when `cancel()` runs on that queue, or before);
/// `isEnabled = false` skips it until it is enabled again. Neither cancels a gesture in
/// progress; a handler added gets the touch sequences that begin after it, not the rest of
/// one in progress.
public final class GestureToken: Sendable, Hashable {
  private let cancelled = Atomic<Bool>(false)
  private let enabled = Atomic<Bool>(true)
  private nonisolated(unsafe) weak var screen: TouchScreen?

  init(screen: TouchScreen?) { self.screen = screen }

  /// Whether `cancel()` was called.
  public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Whether the handler is called; true until set otherwise. A cancelled token stays off.
  public var isEnabled: Bool {
    get { enabled.load(ordering: .acquiring) && !isCancelled }
    set { enabled.store(newValue, ordering: .releasing) }
  }

  /// Removes the handler from its screen (and the binding, when it was its last handler).
  /// Calling it again does nothing.
  public func cancel() {
    guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
    screen?.remove(self)
  }

  /// Tokens are equal only to themselves.
  public static func == (a: GestureToken, b: GestureToken) -> Bool { a === b }

  /// Hashes the token's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

/// The clockwise turn from the device's coordinates to what the user sees.
public enum ScreenRotation: Int, Hashable, Sendable, CaseIterable {
  /// The panel as the device reports it.
  case none = 0
  /// A quarter turn clockwise.
  case degrees90 = 90
  /// Upside down.
  case degrees180 = 180
  /// Three quarter turns clockwise (a quarter counterclockwise).
  case degrees270 = 270
}

/// A panel's physical size before rotation, in millimetres.
public struct PanelDimensions: Hashable, Sendable {
  /// Along the device's x axis.
  public var width: Double
  /// Along the device's y axis.
  public var height: Double

  /// A size in millimetres.
  public init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }
}

/// What a firing's handler learns beside the event.
struct Firing: Sendable {
  /// The named region of each of the profile's regions (nil for a view's).
  var regions: [ScreenRegion?]
  var view: TouchView?
}

/// A handler and its token.
struct Handler: Sendable {
  var token: GestureToken
  /// The first touch sequence (`Setup.nextSequence`) whose firings it gets: one in
  /// progress when it was added goes on without it.
  var firstSequence: Int
  var deliver: @Sendable (GestureEvent, Firing) -> Void
}

/// A binding's handlers, shared between the setup and the input side so that a handler
/// added to a binding already recognized needs no new recognizer.
final class HandlerList: Sendable {
  private let handlers: Mutex<[Handler]>

  init(_ first: Handler) { handlers = Mutex([first]) }

  /// No handler: a binding that only makes the core recognize a kind for a motion handler.
  init() { handlers = Mutex([]) }

  func add(_ handler: Handler) { handlers.withLock { $0.append(handler) } }

  func contains(_ token: GestureToken) -> Bool { handlers.withLock { $0.contains { $0.token === token } } }

  /// Removes `token`'s handler; true when none is left.
  func remove(_ token: GestureToken) -> Bool {
    handlers.withLock { list in
      list.removeAll { $0.token === token }
      return list.isEmpty
    }
  }

  /// The handlers now, in the order they were added.
  var all: [Handler] { handlers.withLock { $0 } }
}

/// One binding, the view it belongs to (nil: the screen's), and its handlers.
struct Entry: Sendable {
  var binding: Binding
  var view: TouchView?
  var handlers: HandlerList
}

/// What the input side recognizes, as of `version`.
struct Snapshot {
  var version: Int
  var bindings: GestureBindings<Entry>
  var regions: [ScreenRegion]
  /// The profile's region of each view (by view id).
  var viewRegions: [Int: Int]
  /// What each of the profile's regions is.
  var layout: [RegionSlot]
  var motions: [MotionEntry]
}

/// One region of a profile the library makes.
enum RegionSlot: Equatable {
  /// The named region with this index (`ScreenRegion.index`).
  case named(Int)
  /// The view with this id.
  case view(Int)
  /// The region of a view removed while a sequence in it may go on: nothing lands in it.
  case empty
}

/// Everything made in code, as a config would give it.
struct Setup: Sendable {
  var rotation: ScreenRotation
  var size: PanelDimensions?
  /// Where the screen was made: warnings about the whole setup point there.
  var site: CallSite
  var regions: [ScreenRegion] = []
  var regionSites: [CallSite] = []
  var entries: [Entry] = []
  /// The views not removed, in the order they were made.
  var views: [TouchView] = []
  /// The continuous gestures followed, in the order they were added.
  var motions: [MotionEntry] = []
  /// The views whose single taps fire at once (`TouchView.singleTapFiresAtOnce`), by id.
  var singleTapAtOnce: Set<Int> = []
  /// The views' own simultaneous groups (`TouchView.recognizeSimultaneously`), by id.
  var viewGroups: [Int: GestureKindSet] = [:]
  var simultaneous = GestureKindSet()
  var groupSite: CallSite?
  var thresholds = GestureThresholds()
  /// The number the input side will give the next touch sequence, counted across every
  /// recognizer the screen has had: a handler added now gets that sequence and the later
  /// ones, never one already begun.
  var nextSequence = 1
  /// The number the input side will give the next contact landing on a view, for the touch
  /// handlers as `nextSequence` is for the others.
  var nextLanding = 1

  /// The profile: the named regions, then one independent region per view (with no area:
  /// the router puts landings in it), and every binding with its view's or named region.
  ///
  /// `previous`: the regions of a profile whose sequences may still be in progress; they
  /// keep their indices, a view removed since leaving a region that nothing lands in, and
  /// the named regions and views made since come after them (a view's region has no area,
  /// so a named region after it is tried as it would be before it).
  func profile(keeping previous: [RegionSlot] = []) -> (Profile, viewRegions: [Int: Int], layout: [RegionSlot]) {
    var profile = Profile(name: "TouchScreen")
    profile.rotation = GestureCore.Rotation(rawValue: rotation.rawValue) ?? .none
    profile.size = size.map { PanelSize(width: $0.width, height: $0.height) }
    var layout: [RegionSlot] = []
    var named = Set<Int>()
    var placed = Set<Int>()
    for slot in previous {
      switch slot {
      case .named(let index): named.insert(index)
      case .view(let id) where views.contains(where: { $0.id == id }): placed.insert(id)
      case .view, .empty:
        layout.append(.empty)
        continue
      }
      layout.append(slot)
    }
    layout += regions.indices.filter { !named.contains($0) }.map { .named($0) }
    layout += views.filter { !placed.contains($0.id) }.map { .view($0.id) }
    var viewRegions: [Int: Int] = [:]
    var namedRegions = [Int](repeating: 0, count: regions.count)
    for slot in layout {
      guard case .view(let id) = slot, let view = views.first(where: { $0.id == id }) else {
        if case .named(let index) = slot {
          namedRegions[index] = profile.regions.count
          profile.regions.append(Region(name: regions[index].name, area: regions[index].area))
        } else {
          profile.regions.append(Region(name: "", area: Area(x: 0, y: 0, width: 0, height: 0), independent: true))
        }
        continue
      }
      viewRegions[view.id] = profile.regions.count
      // A view's group is its own: pan, pinch and rotate of a transform handler join it, and
      // a view without one keeps the screen's.
      var group = viewGroups[view.id]
      if motions.contains(where: { $0.kind == .transform && $0.view === view }) {
        var joined = group ?? simultaneous
        for kind in [GestureKind.pan, .pinch, .rotate] { joined.insert(kind) }
        group = joined
      }
      profile.regions.append(
        Region(
          name: view.name, area: Area(x: 0, y: 0, width: 0, height: 0), independent: true, simultaneous: group))
    }
    profile.bindings = entries.map { entry in
      var binding = entry.binding
      if let view = entry.view {
        binding.region = viewRegions[view.id]
        binding.firesAtOnce = binding.gesture == .tap && binding.taps == 1 && singleTapAtOnce.contains(view.id)
      } else if let region = binding.region, namedRegions.indices.contains(region) {
        binding.region = namedRegions[region]
      }
      return binding
    }
    // After the app's bindings, so that a one-shot of the app's wins over these.
    profile.bindings += recognitionBindings(viewRegions)
    profile.simultaneous = simultaneous
    profile.thresholds = thresholds.core
    for motion in motions {
      if motion.kind == .transform, motion.view == nil {
        for kind in [GestureKind.pan, .pinch, .rotate] { profile.simultaneous.insert(kind) }
      }
      // The core begins a stream at the lowest threshold any handler asks for; each handler
      // then waits for its own.
      if let change = motion.threshold.scaleChange, change > 0 {
        profile.thresholds.pinchOut = min(profile.thresholds.pinchOut, 1 + change)
        profile.thresholds.pinchIn = max(profile.thresholds.pinchIn, 1 - min(change, 0.99))
      }
      if let angle = motion.threshold.angle, angle > 0 {
        profile.thresholds.rotateAngle = min(profile.thresholds.rotateAngle, angle)
      }
    }
    profile.location = site.location
    return (profile, viewRegions, layout)
  }

  func bindings(keeping previous: [RegionSlot] = []) -> (
    GestureBindings<Entry>, viewRegions: [Int: Int], layout: [RegionSlot]
  ) {
    let (profile, viewRegions, layout) = profile(keeping: previous)
    let recognition = recognitionBindings(viewRegions).map { Entry(binding: $0, view: nil, handlers: HandlerList()) }
    return (GestureBindings(profile: profile, handlers: entries + recognition), viewRegions, layout)
  }

  /// What makes the core recognize, in every direction, the kinds the motion handlers follow.
  private func recognitionBindings(_ viewRegions: [Int: Int]) -> [Binding] {
    var bindings: [Binding] = []
    for motion in motions {
      let region = motion.view.flatMap { viewRegions[$0.id] }
      if motion.view != nil, region == nil { continue }
      for var binding in motion.kind.recognitionBindings(fingers: motion.fingers) {
        binding.region = region
        if !bindings.contains(where: { $0.sameTrigger(as: binding) }) { bindings.append(binding) }
      }
    }
    return bindings
  }

  func warnings() -> [GestureDiagnostic] {
    var warnings: [GestureDiagnostic] = []
    for (index, region) in regions.enumerated() {
      if let outer = regions[..<index].firstIndex(where: { ConfigRules.area($0.area, covers: region.area) }) {
        let problem = ConfigRules.regionInside(
          region.name, outer: regions[outer].name, line: regionSites[outer].location.line)
        warnings.append(GestureDiagnostic(.warning, problem, at: regionSites[index]))
      }
    }
    for entry in entries {
      if let edge = entry.binding.edge, let direction = entry.binding.direction,
        let problem = ConfigRules.edgeSwipe(from: edge, moving: direction),
        let location = entry.binding.location
      {
        warnings.append(GestureDiagnostic(.warning, problem, at: CallSite(location)))
      }
    }
    if let groupSite {
      for problem in ConfigRules.groupFingers(simultaneous, bindings: profile().0.bindings) {
        warnings.append(GestureDiagnostic(.warning, problem, at: groupSite))
      }
    }
    if entries.isEmpty { warnings.append(GestureDiagnostic(.warning, ConfigRules.noBindings, at: site)) }
    return warnings
  }
}

extension CallSite {
  init(_ location: SourceLocation) { self.location = location }
}

extension Binding {
  /// The same gesture, taps, fingers, direction, edge, region and step: what a second
  /// handler of one binding shares.
  func sameTrigger(as other: Binding) -> Bool {
    gesture == other.gesture && taps == other.taps && fingers == other.fingers && direction == other.direction
      && edge == other.edge && region == other.region && step == other.step
  }
}
