import GestureCore
import GesturedConfig
import Testing

@testable import GesturedRuntime

/// A profile with two regions and one binding of each gesture.
func reportProfile() -> Profile {
  var profile = Profile(name: "lobby")
  profile.regions = [
    Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1)),
    Region(name: "main"),
  ]
  profile.bindings = [
    Binding(gesture: .tap, taps: 2, region: 1),
    Binding(name: "next", gesture: .swipe, direction: .left),
    Binding(gesture: .pinch, direction: .out),
    Binding(gesture: .rotate, direction: .clockwise),
    Binding(gesture: .longPress, fingers: 2),
  ]
  return profile
}

/// What `reportProfile()`'s bindings run.
func reportActions() -> ProfileActions {
  ProfileActions(
    environment: ["DISPLAY": ":0"],
    bindings: ["reload", "next", "zoom", "turn", "menu"].map { BindingAction(run: $0) })
}

@Suite("Firing report")
struct FiringReportTests {
  let profile = reportProfile()
  let actions = reportActions()

  func line(_ event: GestureEvent) throws -> String {
    let firing = try #require(ResolvedFiring(event: event, profile: profile, actions: actions))
    return FiringReport.jsonLine(file: "rec.evemu", deviceName: "ILITEK \"TP\"", firing: firing)
  }

  @Test func aTapReportsItsTapsAndNoDirection() throws {
    let event = GestureEvent(
      time: Timestamp(microseconds: 2_345_678), binding: 0, gesture: .tap, fingers: 1, taps: 2,
      direction: nil, position: Point(x: 0.48123, y: 0.50336), region: 1)
    #expect(
      try line(event)
        == #"{"file":"rec.evemu","time":2.345678,"device":"ILITEK \"TP\"","profile":"lobby","region":"main","binding":"tap@main","gesture":"tap","fingers":1,"taps":2,"x":0.4812,"y":0.5034}"#
    )
  }

  @Test func aSwipeReportsItsDirectionAndTheBindingName() throws {
    let event = GestureEvent(
      time: Timestamp(microseconds: 10), binding: 1, gesture: .swipe, fingers: 3, direction: .left,
      position: Point(x: 0.9, y: 0.25), region: 1)
    #expect(
      try line(event)
        == #"{"file":"rec.evemu","time":0.000010,"device":"ILITEK \"TP\"","profile":"lobby","region":"main","binding":"next","gesture":"swipe","fingers":3,"direction":"left","x":0.9,"y":0.25}"#
    )
  }

  @Test func aPinchReportsItsScale() throws {
    let event = GestureEvent(
      time: Timestamp(microseconds: 1_000_000), binding: 2, gesture: .pinch, fingers: 2,
      direction: .out,
      scale: 1.253333, position: Point(x: 0.05, y: 0.05), region: 0)
    #expect(
      try line(event)
        == #"{"file":"rec.evemu","time":1.000000,"device":"ILITEK \"TP\"","profile":"lobby","region":"corner","binding":"pinch","gesture":"pinch","fingers":2,"direction":"out","scale":1.2533,"x":0.05,"y":0.05}"#
    )
  }

  @Test func aRotationReportsItsAngleAndARegionOutsideEveryRegionIsNull() throws {
    let event = GestureEvent(
      time: Timestamp(microseconds: 1), binding: 3, gesture: .rotate, fingers: 2,
      direction: .clockwise,
      angle: 15.00004, position: Point(x: 0.5, y: 0.5), region: nil)
    #expect(
      try line(event)
        == #"{"file":"rec.evemu","time":0.000001,"device":"ILITEK \"TP\"","profile":"lobby","region":null,"binding":"rotate","gesture":"rotate","fingers":2,"direction":"clockwise","angle":15.0,"x":0.5,"y":0.5}"#
    )
  }

  @Test func aLongPressHasNoTapsDirectionScaleOrAngle() throws {
    // Fields that do not belong to the gesture stay out even if the event carries them; a
    // one-shot long press carries no direction (only a hold and drag's steps do).
    let event = GestureEvent(
      time: Timestamp(microseconds: 500_000), binding: 4, gesture: .longPress, fingers: 2, taps: 1,
      scale: 2, angle: 3, position: Point(x: 0.2, y: 0.3), region: 1)
    #expect(
      try line(event)
        == #"{"file":"rec.evemu","time":0.500000,"device":"ILITEK \"TP\"","profile":"lobby","region":"main","binding":"long-press","gesture":"long-press","fingers":2,"x":0.2,"y":0.3}"#
    )
  }

  @Test func stepAndEndLinesKeepTheirKeyOrder() throws {
    var profile = reportProfile()
    profile.bindings += [
      Binding(name: "scroll", gesture: .pan, fingers: 2, direction: .down, step: 10),
      Binding(name: "zoom", gesture: .pinch, direction: .in, step: 10),
    ]
    var actions = reportActions()
    actions.bindings += [BindingAction(run: "s", end: "e"), BindingAction(run: "z")]
    func line(_ event: GestureEvent) throws -> String {
      let firing = try #require(ResolvedFiring(event: event, profile: profile, actions: actions))
      return FiringReport.jsonLine(file: "f", deviceName: "d", firing: firing)
    }
    var pan = GestureEvent(
      time: Timestamp(microseconds: 1_500_000), binding: 5, gesture: .pan, phase: .step(2), sequence: 3,
      fingers: 2, direction: .down, dx: -0.123456, dy: 20.00005, position: Point(x: 0.25, y: 0.5), region: nil)
    #expect(
      try line(pan)
        == #"{"file":"f","time":1.500000,"device":"d","profile":"lobby","region":null,"binding":"scroll","gesture":"pan","fingers":2,"direction":"down","step":2,"dx":-0.1235,"dy":20.0001,"x":0.25,"y":0.5}"#
    )
    pan.phase = .end(steps: 7)
    #expect(
      try line(pan)
        == #"{"file":"f","time":1.500000,"device":"d","profile":"lobby","region":null,"binding":"scroll","gesture":"pan","fingers":2,"direction":"down","end":true,"steps":7,"dx":-0.1235,"dy":20.0001,"x":0.25,"y":0.5}"#
    )
    let zoom = GestureEvent(
      time: Timestamp(microseconds: 1), binding: 6, gesture: .pinch, phase: .step(1), fingers: 2, direction: .in,
      scale: 0.9, position: Point(x: 0.5, y: 0.5), region: nil)
    #expect(try line(zoom).contains(#""direction":"in","step":1,"scale":0.9,"x""#))
    // The core emits an end event for every step binding; one without `end:` is not reported.
    var zoomEnd = zoom
    zoomEnd.phase = .end(steps: 1)
    let unreported = try #require(ResolvedFiring(event: zoomEnd, profile: profile, actions: actions))
    #expect(!unreported.isReported && unreported.command == nil)
    #expect(!actions.reports(zoomEnd) && actions.reports(zoom))
  }

  @Test func aBindingTableTurnsAFiringOfBindingKIntoItsRequestAndNothingElse() throws {
    let table = BindingTable(
      profile: profile, profileIndex: 3, actions: actions, devnode: "/dev/input/event5", deviceName: "Panel",
      daemonPath: "/usr/bin:/bin", daemonIsRoot: false)
    let pinch = GestureEvent(
      time: Timestamp(microseconds: 7), binding: 2, gesture: .pinch, fingers: 2, direction: .out, scale: 1.5,
      position: Point(x: 0.5, y: 0.5), region: nil)
    let request = try #require(table.firing(for: pinch).flatMap { table.request(for: $0) })
    #expect(request.key == "3#2")
    #expect(request.label == "lobby/pinch")
    #expect(request.command == "zoom")
    #expect(request.firedAt == Timestamp(microseconds: 7))
    #expect(request.environment["GESTURED_SCALE"] == "1.5")
    #expect(request.environment["GESTURED_DEVNODE"] == "/dev/input/event5")
    // A binding the profile does not have, or a region it does not have: nothing to run.
    var unknown = pinch
    unknown.binding = 5
    #expect(table.firing(for: unknown) == nil)
    unknown = pinch
    unknown.region = 9
    #expect(table.firing(for: unknown) == nil)
    // The end of a binding without `end:` runs nothing; a table that only reports runs nothing.
    var end = pinch
    end.phase = .end(steps: 2)
    #expect(table.firing(for: end).flatMap { table.request(for: $0) } == nil)
    let reporting = BindingTable(
      profile: profile, profileIndex: 3, actions: actions, devnode: "/dev/input/event5", deviceName: "Panel")
    #expect(reporting.firing(for: pinch).flatMap { reporting.request(for: $0) } == nil)
  }

  @Test func aKeyBindingsRequestCarriesNoneOfTheFiringsVariables() throws {
    var keyActions = actions
    keyActions.bindings[1] = BindingAction(.input(.wheel(2)))
    let table = BindingTable(
      profile: profile, profileIndex: 3, actions: keyActions, devnode: "/dev/input/event5", deviceName: "Panel",
      daemonPath: "/usr/bin:/bin", daemonIsRoot: false)
    let swipe = GestureEvent(
      time: Timestamp(microseconds: 7), binding: 1, gesture: .swipe, fingers: 1, direction: .left,
      position: Point(x: 0.5, y: 0.5), region: nil)
    let request = try #require(table.firing(for: swipe).flatMap { table.request(for: $0) })
    #expect(request.kind == .input(PreparedInput(.wheel(2), label: "lobby/next")))
    #expect(request.label == "lobby/next")
    // No process starts: what only a command would read is not made.
    #expect(request.environment["GESTURED_GESTURE"] == nil)
    #expect(request.environment["GESTURED_DEVNODE"] == "/dev/input/event5")
  }

  @Test func stepsAndEndsOfOneSequenceAndKindShareAStream() {
    var step = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 2, gesture: .pinch, phase: .step(1), sequence: 12, fingers: 2,
      direction: .out, position: Point(x: 0.5, y: 0.5), region: nil)
    #expect(
      BindingTable.schedule(of: step, devnode: "/dev/input/event5") == .step(stream: "/dev/input/event5#12/pinch"))
    step.direction = .in
    step.phase = .end(steps: 3)
    #expect(BindingTable.schedule(of: step, devnode: "/dev/input/event5") == .end(stream: "/dev/input/event5#12/pinch"))
    step.phase = .oneShot
    #expect(BindingTable.schedule(of: step, devnode: "/dev/input/event5") == .oneShot)
  }

  @Test func positionsOutsideThePanelAreClamped() throws {
    let event = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 4, gesture: .longPress, fingers: 2,
      position: Point(x: -0.02, y: 1.3), region: nil)
    #expect(try line(event).hasSuffix(#""x":0.0,"y":1.0}"#))
  }

  @Test func aFiringNamingAMissingBindingOrRegionIsRejectedNotTrapped() {
    let badBinding = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 99, gesture: .tap, fingers: 1,
      position: Point(x: 0, y: 0),
      region: nil)
    let badRegion = GestureEvent(
      time: Timestamp(microseconds: 0), binding: 0, gesture: .tap, fingers: 1,
      position: Point(x: 0, y: 0),
      region: 7)
    #expect(ResolvedFiring(event: badBinding, profile: profile, actions: actions) == nil)
    #expect(ResolvedFiring(event: badRegion, profile: profile, actions: actions) == nil)
  }
}
