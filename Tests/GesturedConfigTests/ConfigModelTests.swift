import GestureCore
import Testing

@testable import GesturedConfig

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Config model mapping")
struct ConfigModelTests {
  /// The spec's example, with a default entry after it.
  static let fullExample = """
    thresholds: { tap-max-duration: 250ms, long-press: 600ms, tap-slop: 1% }
    devices:
      - name: lobby
        match: { name: "ILITEK*", vendor: 0x222a, product: 0x0001, udev: { ID_PATH: "pci-0" } }
        rotation: 90
        size: { width: 344mm, height: 19.4cm }
        calibration: [1, 0, 0.5, 0, -1, 1]
        thresholds: { long-press: 0.8s, pinch-out: 1.5 }
        simultaneous: [[rotate, pinch]]
        grab: true
        environment: { DISPLAY: ":0" }
        user: kiosk
        regions:
          - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.1 } }
          - { name: main }
        bindings:
          - { gesture: tap, taps: 5, region: corner, run: "systemctl restart kiosk" }
          - { gesture: tap, taps: 2, region: main, run: "xdotool key F5", name: reload }
          - { gesture: pinch, direction: out, run: "xdotool key ctrl+plus" }
          - { gesture: swipe, direction: up, fingers: 2, edge: bottom, run: "up", timeout: 5s, cooldown: 0ms }
          - { gesture: rotate, direction: counterclockwise, run: "ccw", environment: { A: b }, user: "nobody" }
      - bindings:
          - { gesture: long-press, fingers: 3, run: "true" }
    """

  @Test("the spec's full example maps exactly to the expected model")
  func fullExampleMapsExactly() throws {
    let result = check(Self.fullExample)
    #expect(result.diagnostics.isEmpty, "\(result.diagnostics.map(\.description))")
    let configuration = try #require(result.configuration)

    func at(_ line: Int, _ column: Int) -> GestureCore.SourceLocation {
      SourceLocation(file: "test.yaml", line: line, column: column)
    }
    var global = Thresholds()
    global.tapMaxDuration = 250_000
    global.longPress = 600_000
    global.tapSlop = .percentOfDiagonal(1)

    var lobby = Profile(
      name: "lobby",
      match: DeviceMatch(name: "ILITEK*", vendor: 0x222A, product: 1, udev: ["ID_PATH": "pci-0"]))
    lobby.rotation = .quarter
    lobby.size = PanelSize(width: 344, height: 194)
    lobby.calibration = [1, 0, 0.5, 0, -1, 1]
    lobby.thresholds = global
    lobby.thresholds.longPress = 800_000
    lobby.thresholds.pinchOut = 1.5
    lobby.simultaneous = GestureKindSet([.pinch, .rotate])
    lobby.grab = true
    lobby.regions = [
      Region(name: "corner", area: Area(x: 0, y: 0, width: 0.1, height: 0.1)), Region(name: "main"),
    ]
    lobby.location = at(3, 5)
    var restart = Binding(gesture: .tap, taps: 5, region: 0)
    restart.location = at(17, 9)
    var reload = Binding(name: "reload", gesture: .tap, taps: 2, region: 1)
    reload.location = at(18, 9)
    var zoom = Binding(gesture: .pinch, direction: .out)
    zoom.location = at(19, 9)
    var swipe = Binding(gesture: .swipe, fingers: 2, direction: .up, edge: .bottom)
    swipe.location = at(20, 9)
    var turn = Binding(gesture: .rotate, direction: .counterclockwise)
    turn.location = at(21, 9)
    lobby.bindings = [restart, reload, zoom, swipe, turn]

    var fallback = Profile()
    fallback.thresholds = global
    fallback.location = at(22, 5)
    var hold = Binding(gesture: .longPress, fingers: 3)
    hold.location = at(23, 9)
    fallback.bindings = [hold]

    #expect(configuration.profiles.count == 2)
    #expect(configuration.profiles.first == lobby)
    #expect(configuration.profiles.last == fallback)
    #expect(configuration == Configuration(profiles: [lobby, fallback]))

    // What the bindings run lives beside the model, by binding index.
    var swipeAction = BindingAction(run: "up")
    swipeAction.timeout = 5_000_000
    swipeAction.cooldown = 0
    var turnAction = BindingAction(run: "ccw")
    turnAction.environment = ["A": "b"]
    turnAction.user = "nobody"
    let lobbyActions = ProfileActions(
      environment: ["DISPLAY": ":0"], user: "kiosk",
      bindings: [
        BindingAction(run: "systemctl restart kiosk"), BindingAction(run: "xdotool key F5"),
        BindingAction(run: "xdotool key ctrl+plus"), swipeAction, turnAction,
      ])
    #expect(result.actions == [lobbyActions, ProfileActions(bindings: [BindingAction(run: "true")])])
  }

  private var yamlForDefaults: String {
    """
    bindings:
      - { gesture: tap, run: a }
      - { gesture: pinch, direction: in, run: b }
      - { gesture: rotate, direction: clockwise, run: c }
    """
  }

  @Test(
    "binding defaults: one tap, one finger (two for pinch and rotate), 30s timeout, 300ms cooldown")
  func bindingDefaults() throws {
    let configuration = expectValid(yamlForDefaults)
    let bindings = try #require(configuration?.profiles.first?.bindings)
    #expect(bindings.map(\.taps) == [1, 1, 1])
    #expect(bindings.map(\.fingers) == [1, 2, 2])
    let actions = try #require(check(yamlForDefaults).actions.first?.bindings)
    #expect(actions.allSatisfy { $0.timeout == 30_000_000 && $0.cooldown == 300_000 && $0.end == nil })
    #expect(bindings.map(\.region) == [nil, nil, nil])
    #expect(bindings.map(\.name) == [nil, nil, nil])
  }

  @Test("top-level regions and bindings are shorthand for one default profile")
  func shorthand() throws {
    let configuration = try #require(
      expectValid(
        """
        thresholds: { swipe-angle: 30deg, edge-width: 2% }
        regions:
          - { name: top, area: { x: 0, y: 0, width: 1, height: 0.2 } }
        bindings:
          - { gesture: swipe, direction: down, region: top, run: menu }
        """))
    #expect(configuration.profiles.count == 1)
    let profile = try #require(configuration.profiles.first)
    #expect(profile.name == "default")
    #expect(profile.match == nil)
    #expect(profile.regions == [Region(name: "top", area: Area(x: 0, y: 0, width: 1, height: 0.2))])
    #expect(profile.bindings.first?.region == 0)
    #expect(profile.bindings.first?.direction == .down)
    #expect(profile.thresholds.swipeAngle == 30)
    #expect(profile.thresholds.edgeWidth == .percentOfDiagonal(2))
    #expect(profile.thresholds.tapSlop == Thresholds().tapSlop)
  }

  @Test("vendor and product ids read in hex and decimal alike")
  func hexIds() throws {
    let configuration = try #require(
      expectValid(
        """
        devices:
          - { name: hex, match: { vendor: 0x222a, product: 0xFFFF }, bindings: [{ gesture: tap, run: a }] }
          - { name: decimal, match: { vendor: 8746, product: "1" }, bindings: [{ gesture: tap, run: a }] }
        """))
    #expect(configuration.profiles.map { $0.match?.vendor } == [0x222A, 0x222A])
    #expect(configuration.profiles.map { $0.match?.product } == [0xFFFF, 1])
  }

  @Test("a device's thresholds override the global ones key by key")
  func thresholdOverrides() throws {
    let configuration = try #require(
      expectValid(
        """
        thresholds: { long-press: 700ms, tap-slop: 4mm }
        devices:
          - { name: a, match: { name: "A*" }, thresholds: { tap-slop: 6mm }, bindings: [{ gesture: tap, run: x }] }
          - { name: b, bindings: [{ gesture: tap, run: x }] }
        """))
    let (a, b) = (configuration.profiles[0], configuration.profiles[1])
    #expect(a.thresholds.tapSlop == .millimetres(6))
    #expect(a.thresholds.longPress == 700_000)
    #expect(a.thresholds.multiTapGap == 300_000)
    #expect(b.thresholds.tapSlop == .millimetres(4))
    #expect(b.thresholds.longPress == 700_000)
  }

  @Test("every threshold key is read with its unit")
  func everyThresholdKey() throws {
    let configuration = try #require(
      expectValid(
        """
        thresholds:
          tap-slop: 2mm
          tap-max-duration: 0.2s
          multi-tap-gap: 250ms
          multi-tap-distance: 1cm
          long-press: 1s
          finger-landing: 80ms
          swipe-min-distance: 5%
          swipe-max-duration: 600ms
          swipe-min-speed: 30cm/s
          swipe-angle: 45deg
          pinch-in: 0.75
          pinch-out: 1.3
          rotate-angle: 20deg
          edge-width: 4mm
          stuck-contact: 60s
        bindings: [{ gesture: tap, run: x }]
        """))
    var expected = Thresholds()
    expected.tapSlop = .millimetres(2)
    expected.tapMaxDuration = 200_000
    expected.multiTapGap = 250_000
    expected.multiTapDistance = .millimetres(10)
    expected.longPress = 1_000_000
    expected.fingerLanding = 80_000
    expected.swipeMinDistance = .percentOfDiagonal(5)
    expected.swipeMaxDuration = 600_000
    expected.swipeMinSpeed = 300
    expected.swipeAngle = 45
    expected.pinchIn = 0.75
    expected.pinchOut = 1.3
    expected.rotateAngle = 20
    expected.edgeWidth = .millimetres(4)
    expected.stuckContact = 60_000_000
    #expect(configuration.profiles.first?.thresholds == expected)
  }

  @Test("the bundled config/gestured.yaml loads with no errors and uses every feature")
  func bundledConfig() throws {
    let path = Self.repositoryRoot + "/config/gestured.yaml"
    let result = ConfigLoader.parse(bytes: try readTestFile(path), file: path)
    #expect(result.errors.isEmpty, "\(result.errors.map(\.description))")
    #expect(result.warnings.isEmpty, "\(result.warnings.map(\.description))")
    let configuration = try #require(result.configuration)
    let profiles = configuration.profiles
    #expect(profiles.count == 2)
    #expect(profiles.last?.match == nil)
    let lobby = try #require(profiles.first)
    #expect(lobby.match?.vendor == 0x222A)
    #expect(lobby.rotation == .quarter)
    #expect(lobby.size != nil && lobby.calibration != nil && !lobby.simultaneous.isEmpty)
    #expect(lobby.thresholds.longPress == 800_000)
    #expect(profiles.last?.thresholds.longPress == 500_000)
    let gestures = Set(profiles.flatMap { $0.bindings.map(\.gesture) })
    #expect(gestures == Set(GestureKind.allCases))
    #expect(lobby.bindings.contains { $0.edge != nil && $0.region == nil })
    #expect(lobby.bindings.contains { $0.region == 0 && $0.taps == 5 })
  }

  /// Tests/GesturedConfigTests/ConfigModelTests.swift → the package root.
  static var repositoryRoot: String {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
  }
}
