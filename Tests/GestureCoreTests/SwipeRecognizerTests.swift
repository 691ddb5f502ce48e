import Testing

@testable import GestureCore

@Suite("Swipe")
struct SwipeRecognizerTests {
  let fourWays = profile([bind(.swipe, .up), bind(.swipe, .down), bind(.swipe, .left), bind(.swipe, .right)])

  @Test(arguments: [
    ((100.0, 80.0), (100.0, 20.0), Direction.up), ((100, 20), (100, 80), .down), ((150, 50), (50, 50), .left),
    ((50, 50), (150, 50), .right),
  ])
  func fourDirections(from: (Double, Double), to: (Double, Double), direction: Direction) {
    var t = Touches()
    t.drag([(1, from, to)], from: 0, to: 300)
    let fired = run(t, fourWays)
    #expect(fired.map(\.event.direction) == [direction])
    #expect(fired.first?.ms == 300)
  }

  @Test func minimumDistanceIsTheLargerOfTwentyMillimetresAndFifteenPercentOfThePanel() {
    // Horizontal: 15 % of 200 mm = 30 mm is the floor; vertical: 20 mm (15 % of 100 mm = 15).
    var t = Touches()
    t.drag([(1, (50, 50), (78, 50))], from: 0, to: 300)
    t.drag([(1, (50, 50), (82, 50))], from: 1000, to: 1300)
    t.drag([(1, (50, 70), (50, 51))], from: 2000, to: 2300)
    t.drag([(1, (50, 70), (50, 49))], from: 3000, to: 3300)
    let fired = run(t, fourWays)
    #expect(fired.map(\.ms) == [1300, 3300])
  }

  @Test func tooSlowIsNoSwipe() {
    var t = Touches()
    t.drag([(1, (50, 50), (150, 50))], from: 0, to: 700)
    t.drag([(1, (50, 50), (150, 50))], from: 2000, to: 2900)
    #expect(run(t, fourWays).map(\.ms) == [700])
  }

  @Test func angleOffAxisLimitsTheSwipe() {
    // 40 mm along, 20° and 30° off the axis.
    var t = Touches()
    t.drag([(1, (50, 50), (50 + 40, 50 + 40 * 0.364))], from: 0, to: 300)
    t.drag([(1, (50, 50), (50 + 40, 50 + 40 * 0.577))], from: 1000, to: 1300)
    #expect(run(t, fourWays).map(\.ms) == [300])
  }

  @Test func twoAndThreeFingerSwipes() {
    var t = Touches()
    t.drag([(1, (80, 80), (80, 30)), (2, (100, 80), (100, 30))], from: 0, to: 300)
    t.drag([(1, (60, 80), (60, 30)), (2, (80, 80), (80, 30)), (3, (100, 80), (100, 30))], from: 1000, to: 1300)
    let fired = run(t, profile([bind(.swipe, fingers: 2, .up), bind(.swipe, fingers: 3, .up)]))
    #expect(summary(fired) == ["swipe/up fingers=2 @300.0ms binding=0", "swipe/up fingers=3 @1300.0ms binding=1"])
  }

  @Test func anEdgeSwipeMustStartWithinTheEdgeWidth() {
    var t = Touches()
    t.drag([(1, (100, 96), (100, 40))], from: 0, to: 300)  // starts 4 mm from the bottom
    t.drag([(1, (100, 93), (100, 40))], from: 1000, to: 1300)  // 7 mm: a plain swipe up
    let fired = run(t, profile([bind(.swipe, .up), bind(.swipe, .up, edge: .bottom)]))
    #expect(fired.map(\.event.binding) == [1, 0])
  }

  @Test func aSlowDragFiresNothing() {
    var t = Touches()
    t.drag([(1, (40, 50), (100, 50))], from: 0, to: 2500, steps: 50)
    #expect(run(t, profile([bind(.swipe, .right), bind(.tap), bind(.longPress)])).isEmpty)
  }

  @Test func pastTheMaximumDurationOnlyAFastEnoughReleaseAlongTheSwipeFires() {
    let geometry = PanelGeometry(device: TestPanel.device, profile: Profile())!
    var thresholds = Thresholds()
    func judge(_ dx: Double, _ dy: Double, ms: Int64, release: [Direction: Double]) -> SwipeRecognizer.State {
      var swipe = SwipeRecognizer()
      _ = swipe.lastFingerUp(
        displacement: (dx, dy), duration: ms * 1000, geometry: geometry, thresholds: thresholds,
        releaseSpeed: { release[$0] ?? 0 })
      return swipe.state
    }
    // Off (0 mm/s): too slow whatever the release.
    #expect(judge(60, 0, ms: 1200, release: [.right: 900]) == .failed(.tooSlow))
    thresholds.swipeMinSpeed = 300
    #expect(judge(60, 0, ms: 1200, release: [.right: 300]) == .recognized(.right))
    #expect(judge(0, -40, ms: 1200, release: [.up: 450]) == .recognized(.up))
    #expect(
      judge(60, 0, ms: 1200, release: [.right: 120, .up: 900])
        == .failed(.releasedTooSlowly(millimetresPerSecond: 120, needed: 300)))
    // The other rules are unchanged: distance, angle.
    #expect(judge(10, 0, ms: 1200, release: [.right: 900]) == .failed(.tooShort(millimetres: 10, needed: 30)))
    if case .failed(.offAxis) = judge(40, 30, ms: 1200, release: [.right: 900]) {} else { Issue.record("off axis") }
    // Within the duration the release does not matter.
    #expect(judge(60, 0, ms: 500, release: [:]) == .recognized(.right))
  }

  @Test func rotationNinetyTurnsDeviceMotionIntoUserDirections() {
    // With 90°, device (x, y) is user (1 − y, x): moving along device −x is moving user −y: up.
    var t = Touches()
    t.drag([(1, (150, 50), (50, 50))], from: 0, to: 300)
    let fired = run(t, profile([bind(.swipe, .up), bind(.swipe, .left)], rotation: .quarter))
    #expect(fired.map(\.event.direction) == [.up])
    #expect(fired.first?.event.position == Point(x: 0.5, y: 0.75))
  }
}
