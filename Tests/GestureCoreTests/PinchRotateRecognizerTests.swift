import Testing

@testable import GestureCore

#if canImport(Glibc)
  import Glibc
#endif

@Suite("Pinch and rotate")
struct PinchRotateRecognizerTests {
  @Test func pinchOutFiresWhenTheScaleCrossesFingersStillDown() throws {
    var t = Touches()
    // One finger still at 80, the other moves from 100 to 120: span 20 → 40 mm.
    t.down(1, 80, 50, at: 0)
    t.down(2, 100, 50, at: 60)
    for step in 1...10 { t.move(2, 100 + Double(step) * 2, 50, at: 60 + Double(step) * 30) }
    t.up(1, at: 500)
    t.up(2, at: 500)
    let fired = run(t, profile([bind(.pinch, .in), bind(.pinch, .out)]))
    #expect(summary(fired) == ["pinch/out fingers=2 @150.0ms binding=1"])
    let scale = try #require(fired.first?.event.scale)
    #expect(abs(scale - 1.3) < 1e-9)
  }

  @Test func pinchInAndTheThresholdIsInclusive() throws {
    var t = Touches()
    t.down(1, 60, 50, at: 0)
    t.down(2, 110, 50, at: 20)
    t.move(2, 101, 50, at: 200)  // scale 0.82
    t.move(2, 100, 50, at: 250)  // scale 0.80
    t.up(1, at: 400)
    t.up(2, at: 400)
    let fired = run(t, profile([bind(.pinch, .in)]))
    #expect(summary(fired) == ["pinch/in fingers=2 @250.0ms binding=0"])
  }

  @Test func aPinchBeforeTheLandingWindowClosesFiresWhenItCloses() {
    var t = Touches()
    t.down(1, 80, 50, at: 0)
    t.down(2, 100, 50, at: 10)
    t.move(2, 130, 50, at: 40)
    t.up(1, at: 400)
    t.up(2, at: 400)
    #expect(summary(run(t, profile([bind(.pinch, .out)]))) == ["pinch/out fingers=2 @100.0ms binding=0"])
  }

  @Test func aSmallScaleChangeFiresNothing() {
    var t = Touches()
    t.down(1, 80, 50, at: 0)
    t.down(2, 120, 50, at: 0)
    t.move(2, 114, 50, at: 200)  // 0.85
    t.up(1, at: 400)
    t.up(2, at: 400)
    #expect(run(t, profile([bind(.pinch, .in), bind(.pinch, .out)])).isEmpty)
  }

  /// Both fingers on a circle of radius `r` around (100, 50), turned by `degrees`.
  private func turn(_ t: inout Touches, by degrees: Double, at ms: Double, steps: Int = 10, r: Double = 20) {
    func position(_ angle: Double) -> ((Double, Double), (Double, Double)) {
      let c = cos(angle)
      let s = sin(angle)
      return ((100 - r * c, 50 - r * s), (100 + r * c, 50 + r * s))
    }
    let (a, b) = position(0)
    t.downWithoutSync(1, a.0, a.1, at: ms)
    t.downWithoutSync(2, b.0, b.1, at: ms)
    t.sync(at: ms)
    for step in 1...steps {
      let (a, b) = position(degrees * .pi / 180 * Double(step) / Double(steps))
      let when = ms + 200 + Double(step) * 20
      t.moveWithoutSync(1, a.0, a.1, at: when)
      t.moveWithoutSync(2, b.0, b.1, at: when)
      t.sync(at: when)
    }
    t.upWithoutSync(1, at: ms + 600)
    t.upWithoutSync(2, at: ms + 600)
    t.sync(at: ms + 600)
  }

  @Test func rotationDirectionAndAngleSign() throws {
    var t = Touches()
    turn(&t, by: 30, at: 0)
    turn(&t, by: -30, at: 1000)
    let fired = run(t, profile([bind(.rotate, .clockwise), bind(.rotate, .counterclockwise)]))
    #expect(fired.map(\.event.direction) == [.clockwise, .counterclockwise])
    let angles = fired.compactMap(\.event.angle)
    #expect(angles.count == 2)
    #expect(angles[0] >= 15 && angles[0] < 20)
    #expect(angles[1] <= -15 && angles[1] > -20)
  }

  @Test func aSmallTurnFiresNothing() {
    var t = Touches()
    turn(&t, by: 10, at: 0)
    #expect(run(t, profile([bind(.rotate, .clockwise), bind(.rotate, .counterclockwise)])).isEmpty)
  }

  @Test func pinchAndRotateFireTogetherOnlyWhenGrouped() {
    var t = Touches()
    // Turn by 40° while spreading from 40 to 60 mm.
    for (i, r) in [20.0, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30].enumerated() {
      let angle = 40.0 * .pi / 180 * Double(i) / 10
      let c = cos(angle)
      let s = sin(angle)
      let ms = Double(i) * 30 + (i == 0 ? 0 : 150)
      if i == 0 {
        t.downWithoutSync(1, 100 - r * c, 50 - r * s, at: ms)
        t.downWithoutSync(2, 100 + r * c, 50 + r * s, at: ms)
      } else {
        t.moveWithoutSync(1, 100 - r * c, 50 - r * s, at: ms)
        t.moveWithoutSync(2, 100 + r * c, 50 + r * s, at: ms)
      }
      t.sync(at: ms)
    }
    t.upWithoutSync(1, at: 700)
    t.upWithoutSync(2, at: 700)
    t.sync(at: 700)
    let bindings = [bind(.pinch, .out), bind(.rotate, .clockwise)]
    let alone = run(t, profile(bindings))
    let grouped = run(t, profile(bindings, simultaneous: [.pinch, .rotate]))
    #expect(alone.count == 1)
    #expect(Set(grouped.map(\.event.gesture)) == [.pinch, .rotate])
    #expect(grouped.count == 2)
  }

  @Test func pinchNeedsExactlyTwoFingers() {
    var t = Touches()
    t.downWithoutSync(1, 60, 50, at: 0)
    t.downWithoutSync(2, 80, 50, at: 0)
    t.downWithoutSync(3, 100, 50, at: 0)
    t.sync(at: 0)
    t.move(3, 140, 50, at: 200)
    t.move(2, 110, 50, at: 220)
    #expect(run(t, profile([bind(.pinch, .out)])).isEmpty)
  }
}
