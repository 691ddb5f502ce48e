import Testing

@testable import GestureCore

/// The matcher's per-frame cost is bounded: optimal pairing up to `optimalLimit` contacts,
/// nearest-free beyond (docs/devices.md).
@Suite("ContactMatcher")
struct ContactMatcherTests {
  /// Contacts on a grid 100 units apart, all moved by (dx, dy), listed in reverse order.
  func match(count: Int, dx: Int32, dy: Int32) -> [Int] {
    var matcher = ContactMatcher(capacity: 64)
    for index in 0..<count {
      let (x, y) = (Int32(index % 8) * 100, Int32(index / 8) * 100)
      let added = matcher.addColumn(x: x, y: y)
      #expect(added)
    }
    for index in (0..<count).reversed() {
      let (x, y) = (Int32(index % 8) * 100, Int32(index / 8) * 100)
      let added = matcher.addRow(x: x + dx, y: y + dy)
      #expect(added)
    }
    matcher.solve()
    return (0..<count).map { matcher.columnOfRow[$0] }
  }

  @Test func sixtyFourContactsEachKeepTheirOwn() {
    // Beyond the optimal limit: still each follows its own previous contact.
    #expect(ContactMatcher.optimalLimit < 64)
    #expect(match(count: 64, dx: 20, dy: -15) == (0..<64).reversed().map { $0 })
  }

  @Test func atTheLimitThePairingIsStillOptimal() {
    // Two fingers moving together by more than half their spacing: greedy pairing would
    // swap them, the optimal one does not.
    var matcher = ContactMatcher(capacity: 64)
    _ = matcher.addColumn(x: 0, y: 0)
    _ = matcher.addColumn(x: 100, y: 0)
    _ = matcher.addRow(x: 60, y: 0)
    _ = matcher.addRow(x: 160, y: 0)
    matcher.solve()
    #expect(Array(matcher.columnOfRow.prefix(2)) == [0, 1])
    #expect(match(count: ContactMatcher.optimalLimit, dx: 30, dy: 0).count == ContactMatcher.optimalLimit)
  }

  @Test func moreRowsThanColumnsLeavesTheNewOnesUnmatched() {
    var matcher = ContactMatcher(capacity: 64)
    for index in 0..<20 { _ = matcher.addColumn(x: Int32(index) * 100, y: 0) }
    for index in 0..<30 { _ = matcher.addRow(x: Int32(index) * 100 + 5, y: 0) }
    matcher.solve()
    let columns = (0..<30).map { matcher.columnOfRow[$0] }
    #expect(Array(columns.prefix(20)) == Array(0..<20))
    #expect(columns.suffix(10).allSatisfy { $0 == -1 })
  }
}

@Suite("escaping control characters")
struct ControlCharacterTests {
  @Test func controlCharactersAreEscapedAndTheRestKept() {
    #expect("plain ünïcode".escapingControlCharacters() == "plain ünïcode")
    #expect("a\nb\tc\rd\u{1b}e\u{7f}f\u{9b}g".escapingControlCharacters() == "a\\nb\tc\\rd\\u{1b}e\\u{7f}f\\u{9b}g")
  }
}
