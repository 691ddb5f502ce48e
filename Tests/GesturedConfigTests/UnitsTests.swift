import GestureCore
import Testing

@testable import GesturedConfig

@Suite("Config units")
struct UnitsTests {
  @Test("durations convert exactly to microseconds, with decimal rounding")
  func durations() throws {
    #expect(try Units.duration("300ms") == 300_000)
    #expect(try Units.duration("0.3s") == 300_000)
    #expect(try Units.duration("0.5s") == 500_000)
    #expect(try Units.duration("30s") == 30_000_000)
    #expect(try Units.duration("1.5ms") == 1_500)
    #expect(try Units.duration(" 250 ms ") == 250_000)
    #expect(try Units.duration(".25s") == 250_000)
    // Below a microsecond: half up.
    #expect(try Units.duration("0.0005ms") == 1)
    #expect(try Units.duration("0.0004ms") == 0)
    #expect(try Units.duration("1.0000005s") == 1_000_001)
  }

  @Test("a bare duration needs a unit, and the hint suggests one")
  func bareDuration() {
    #expect(
      throws: UnitError(message: "'300' needs a unit", hint: "write 300ms (durations take ms or s)")
    ) {
      try Units.duration("300")
    }
    #expect(
      throws: UnitError(message: "'2' needs a unit", hint: "write 2s (durations take ms or s)")
    ) {
      try Units.duration("2")
    }
  }

  @Test("bad durations: unknown unit, negative, not a number, too long")
  func badDurations() {
    for text in ["5min", "-5ms", "abc", "1e3ms", "1.2.3s", "", "99999999999999s", "ms"] {
      #expect(throws: UnitError.self, "\(text)") { try Units.duration(text) }
    }
  }

  @Test("distances: mm, cm and percent of the diagonal")
  func distances() throws {
    #expect(try Units.distance("3mm", allowPercent: true) == .millimetres(3))
    #expect(try Units.distance("1.5cm", allowPercent: true) == .millimetres(15))
    #expect(try Units.distance("2%", allowPercent: true) == .percentOfDiagonal(2))
    #expect(throws: UnitError.self) { try Units.distance("2%", allowPercent: false) }
    #expect(throws: UnitError.self) { try Units.distance("120%", allowPercent: true) }
    #expect(throws: UnitError.self) { try Units.distance("3", allowPercent: true) }
    #expect(throws: UnitError.self) { try Units.distance("3px", allowPercent: true) }
    #expect(throws: UnitError.self) { try Units.distance("-3mm", allowPercent: true) }
  }

  @Test("angles need deg")
  func angles() throws {
    #expect(try Units.angle("25deg") == 25)
    #expect(try Units.angle("12.5°") == 12.5)
    #expect(throws: UnitError(message: "'25' needs a unit", hint: "write 25deg")) {
      try Units.angle("25")
    }
    #expect(throws: UnitError.self) { try Units.angle("0.4rad") }
  }

  @Test("speeds: mm/s or cm/s, 0 to 10000mm/s")
  func speeds() throws {
    #expect(try Units.speed("300mm/s") == 300)
    #expect(try Units.speed("0mm/s") == 0)
    #expect(try Units.speed("12.5cm/s") == 125)
    #expect(try Units.speed("1000cm/s") == 10_000)
    #expect(throws: UnitError(message: "'300' needs a unit", hint: "write 300mm/s; speeds take mm/s or cm/s")) {
      try Units.speed("300")
    }
    #expect(
      throws: UnitError(message: "'10001mm/s' is faster than 10 m/s", hint: "speeds are 0 to 10000mm/s (1000cm/s)")
    ) { try Units.speed("10001mm/s") }
    for text in ["-1mm/s", "3mm", "3m/s", "fast", "1e400mm/s"] {
      #expect(throws: UnitError.self, "\(text)") { try Units.speed(text) }
    }
  }

  @Test("integers: decimal, 0x hex and 0o octal; nothing else")
  func integers() {
    #expect(Units.integer("0x222a") == 0x222A)
    #expect(Units.integer("0X222A") == 0x222A)
    #expect(Units.integer("8746") == 8746)
    #expect(Units.integer("0o17") == 15)
    #expect(Units.integer("-3") == -3)
    #expect(Units.integer("0x") == nil)
    #expect(Units.integer("1.5") == nil)
    #expect(Units.integer("0x-1") == nil)
    #expect(Units.integer("99999999999999999999999") == nil)
    #expect(Units.integer("12ab") == nil)
  }

  @Test("numbers: plain decimals with an optional exponent; no nan, inf or hex floats")
  func numbers() {
    #expect(Units.number("0.8") == 0.8)
    #expect(Units.number("1") == 1)
    #expect(Units.number("-.5") == -0.5)
    #expect(Units.number("1e-1") == 0.1)
    for text in ["nan", "inf", "0x1p3", "1e", "", ".", "1.2.3", "80%"] {
      #expect(Units.number(text) == nil, "\(text)")
    }
  }

  @Test("did you mean: typos, swaps, case and underscores")
  func suggestions() {
    let keys = Thresholds.keys
    #expect(Suggestions.closest(to: "tap-slp", among: keys) == "tap-slop")
    #expect(Suggestions.closest(to: "tap_slop", among: keys) == "tap-slop")
    #expect(Suggestions.closest(to: "Long-Press", among: keys) == "long-press")
    #expect(Suggestions.closest(to: "gesutre", among: ["gesture", "fingers"]) == "gesture")
    #expect(Suggestions.closest(to: "colour", among: keys) == nil)
  }
}
