import Testing

@testable import GestureCore

@Suite("DistanceLimit")
struct DistanceLimitTests {
  /// The per-frame slop checks compare squares; they must answer as the square root would,
  /// bit for bit, or a recording could fire differently than it did.
  @Test("Comparing squares gives the square root's answer, also within an ulp of the limit")
  func squaresAgreeWithTheRoot() {
    var random = SplitMix64(seed: 0x5eed)
    for limit in [0, 1e-300, 0.3, 1, 2.5, 3, 7.25, 1e6] as [Double] {
      let distanceLimit = DistanceLimit(limit)
      var squares: [Double] = [0, limit * limit, .infinity, .nan]
      var near = limit * limit
      for _ in 0..<64 {
        squares.append(near)
        near = near.nextUp
      }
      near = limit * limit
      for _ in 0..<64 {
        squares.append(near)
        near = near.nextDown
      }
      for _ in 0..<1000 {
        squares.append(Double(random.next() % 1_000_000) / 1_000_000 * 4 * max(limit * limit, 1e-300))
      }
      for squared in squares where !(squared < 0) {
        #expect(
          distanceLimit.isExceeded(bySquared: squared) == (squared.squareRoot() > limit),
          "limit \(limit), squared \(squared)")
        if distanceLimit.isClearlyWithin(squared: squared) { #expect(!(squared.squareRoot() > limit)) }
      }
    }
  }

  @Test("A negative or not finite limit is decided by the root")
  func oddLimits() {
    for limit in [-1, .infinity, .nan] as [Double] {
      let distanceLimit = DistanceLimit(limit)
      for squared in [0, 1, 4, 1e300] as [Double] {
        #expect(distanceLimit.isExceeded(bySquared: squared) == (squared.squareRoot() > limit))
        #expect(!distanceLimit.isClearlyWithin(squared: squared))
      }
    }
  }
}
