// The C math library, and nothing else of libc: GestureCore does no I/O and reads no clock.
#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The angle of the vector (x, y) in degrees, -180...180; with y growing downwards, positive
/// angles turn clockwise on screen.
func atan2Degrees(_ y: Double, _ x: Double) -> Double {
  atan2(y, x) * 180 / Double.pi
}

func naturalLog(_ x: Double) -> Double { log(x) }

func naturalExp(_ x: Double) -> Double { exp(x) }

/// `sqrt(squared) > limit`, decided without the square root except within a few ulps of
/// the limit, where the root is taken: the same answer as the root would give, bit for bit.
/// For the per-frame slop checks (every moving contact, every frame).
struct DistanceLimit {
  let limit: Double
  /// Below `low`: never beyond; above `high`: always beyond; between: take the root.
  private let low: Double
  private let high: Double

  init(_ limit: Double) {
    self.limit = limit
    if limit.isFinite, limit >= 0 {
      let squared = limit * limit
      low = squared * (1 - 1e-9)
      high = squared * (1 + 1e-9)
    } else {
      low = -.infinity
      high = .infinity
    }
  }

  /// Whether a distance whose square is `squared` is greater than the limit.
  @inline(__always)
  func isExceeded(bySquared squared: Double) -> Bool {
    if squared > high { return true }
    if squared < low { return false }
    return squared.squareRoot() > limit
  }

  /// Whether a distance whose square is `squared` is certainly within the limit.
  @inline(__always)
  func isClearlyWithin(squared: Double) -> Bool { squared < low }
}
