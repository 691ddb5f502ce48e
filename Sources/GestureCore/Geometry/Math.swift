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
