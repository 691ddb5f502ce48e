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
/// it would warn about. Calls may come from any thread, before or after `start`; a change
/// while fingers are down cancels that touch sequence (its steps end).
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
  /// Blocks sent to `queue` with firings, for the test that there is at most one per firing.
  let firingHops = Atomic<Int>(0)

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
    var kinds = GestureKindSet()
    for gesture in gestures {
      if kinds.contains(gesture.core) {
        throw GestureDiagnostic(.error, ConfigRules.repeatedGroupMember(gesture.core), at: site)
      }
      kinds.insert(gesture.core)
    }
    guard kinds.count >= 2 else { throw GestureDiagnostic(.error, ConfigRules.groupTooSmall, at: site) }
    setup.withLock {
      $0.simultaneous = kinds
      $0.groupSite = site
    }
    version.add(1, ordering: .releasing)
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

  /// Adds a binding, checked as the config's are; its handler receives each firing.
  func add(
    _ binding: Binding, at site: CallSite, deliver: @escaping @Sendable (GestureEvent, [ScreenRegion]) -> Void
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
    let added = setup.withLock { setup -> GestureDiagnostic? in
      if let line = setup.line(ofBindingLike: bound) {
        return GestureDiagnostic(.error, ConfigRules.repeatedTrigger(line: line), at: site)
      }
      setup.entries.append(Entry(binding: bound, token: token, deliver: deliver))
      return nil
    }
    if let added { throw added }
    version.add(1, ordering: .releasing)
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
    let removed = setup.withLock { setup in
      let before = setup.entries.count
      setup.entries.removeAll { $0.token === token }
      return setup.entries.count != before
    }
    if removed { version.add(1, ordering: .releasing) }
  }

  /// What the input side recognizes now, and the version it reflects.
  func snapshot() -> (version: Int, bindings: GestureBindings<Entry>, regions: [ScreenRegion]) {
    let version = version.load(ordering: .acquiring)
    return setup.withLock { setup in (version, setup.bindings(), setup.regions) }
  }
}

/// Removes a handler: `cancel()` it and the handler is never called again, not even for a
/// firing already on its way to the queue (when `cancel()` runs on that queue, or before).
public final class GestureToken: Sendable, Hashable {
  private let cancelled = Atomic<Bool>(false)
  private nonisolated(unsafe) weak var screen: TouchScreen?

  init(screen: TouchScreen) { self.screen = screen }

  /// Whether `cancel()` was called.
  public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

  /// Removes the binding from its screen. Calling it again does nothing.
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

/// One binding and its handler.
struct Entry: Sendable {
  var binding: Binding
  var token: GestureToken
  var deliver: @Sendable (GestureEvent, [ScreenRegion]) -> Void
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
  var simultaneous = GestureKindSet()
  var groupSite: CallSite?
  var thresholds = GestureThresholds()

  var profile: Profile {
    var profile = Profile(name: "TouchScreen")
    profile.rotation = GestureCore.Rotation(rawValue: rotation.rawValue) ?? .none
    profile.size = size.map { PanelSize(width: $0.width, height: $0.height) }
    profile.regions = regions.map { Region(name: $0.name, area: $0.area) }
    profile.bindings = entries.map(\.binding)
    profile.simultaneous = simultaneous
    profile.thresholds = thresholds.core
    profile.location = site.location
    return profile
  }

  func bindings() -> GestureBindings<Entry> { GestureBindings(profile: profile, handlers: entries) }

  /// The line of a binding with the same trigger (gesture, taps, fingers, direction, edge,
  /// region), as the config's duplicate check compares them.
  func line(ofBindingLike new: Binding) -> Int? {
    entries.first { entry in
      let old = entry.binding
      return old.gesture == new.gesture && old.taps == new.taps && old.fingers == new.fingers
        && old.direction == new.direction && old.edge == new.edge && old.region == new.region
    }?.binding.location?.line
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
      for problem in ConfigRules.groupFingers(simultaneous, bindings: entries.map(\.binding)) {
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
