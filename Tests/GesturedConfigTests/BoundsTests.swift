import GestureCore
import Testing

@testable import GesturedConfig

/// Every number in a config is finite and in range, and a file at the size cap is read in
/// linear time: what a daemon running for months on a public machine needs.
@Suite("config bounds")
struct BoundsTests {
  static let binding = "\nbindings:\n  - { gesture: tap, run: a }\n"

  func device(_ line: String) -> String {
    "devices:\n  - \(line)\n    bindings:\n      - { gesture: tap, run: a }\n"
  }

  @Test func sizesAreAtMostTenMetres() {
    expectOneError(
      device("size: { width: 10000000000000000000mm, height: 100mm }"), line: 2, column: 20,
      "'10000000000000000000mm' is longer than 10 m", hint: "at most 10000mm")
    // So many digits that the number reads as infinity.
    let huge = "1" + String(repeating: "0", count: 400) + "cm"
    expectOneError(
      device("size: { width: 100mm, height: \(huge) }"), line: 2, column: 35, "is longer than 10 m")
    #expect(expectValid(device("size: { width: 1000cm, height: 10000mm }")) != nil)
    expectOneError(device("size: { width: 1000.1cm, height: 1mm }"), line: 2, column: 20, "longer than 10 m")
  }

  @Test func distancesAreAtMostTenMetres() {
    expectOneError(
      "thresholds: { tap-slop: 10001mm }" + Self.binding, line: 1, column: 25,
      "'10001mm' is longer than 10 m")
  }

  @Test func durationsAreAtMostADay() {
    expectOneError(
      "thresholds: { long-press: 86401s }" + Self.binding, line: 1, column: 27,
      "'86401s' is longer than 24 hours", hint: "0 to 86400s")
    #expect(expectValid("thresholds: { long-press: 86400s }" + Self.binding) != nil)
    expectOneError(
      "bindings:\n  - { gesture: tap, run: a, timeout: 100000000000000000000s }\n", line: 2,
      column: 38, "longer than 24 hours")
  }

  @Test func anglesAndScalesAreInRange() {
    expectOneError(
      "thresholds: { swipe-angle: 1000000deg }" + Self.binding, line: 1, column: 28,
      "more than a full turn")
    expectOneError(
      "thresholds: { pinch-out: 1e300 }" + Self.binding, line: 1, column: 26,
      "'pinch-out' must be more than 1 and at most 100")
  }

  @Test func calibrationEntriesAreAtMostAThousand() {
    let result = check(device("calibration: [1e200, 1e200, 0, 1e200, 1e200, 0]"))
    #expect(result.configuration == nil)
    #expect(result.errors.count == 4)
    #expect(result.errors.allSatisfy { $0.message.contains("must be -1000 to 1000") })
    #expect(expectValid(device("calibration: [1000, 0, 0, 0, -1000, 1]")) != nil)
  }

  @Test func aNearlySingularCalibrationIsRefused() {
    expectOneError(
      device("calibration: [0.0001, 0, 0, 0, 0.0001, 0]"), line: 2, column: 18,
      "maps the whole panel onto a line", hint: "at least 0.000001")
    #expect(expectValid(device("calibration: [0.001, 0, 0, 0, 0.001, 0]")) != nil)
  }

  @Test func maxDevicesIsOneToAThousandAndDefaultsTo64() {
    #expect(expectValid(Self.binding)?.maximumDevices == 64)
    #expect(expectValid("max-devices: 8" + Self.binding)?.maximumDevices == 8)
    #expect(expectValid("max-devices: 4\n" + device("name: a"))?.maximumDevices == 4)
    expectOneError("max-devices: 0" + Self.binding, line: 1, column: 14, "'max-devices' must be 1 to 1000, not 0")
    expectOneError("max-devices: 1001" + Self.binding, line: 1, column: 14, "must be 1 to 1000")
    expectOneError("max-devices: many" + Self.binding, line: 1, column: 14, "must be a whole number")
  }

  @Test func aProfileHasAtMost256Regions() {
    let regions = (0...256).map { "  - { name: r\($0) }\n" }.joined()
    expectOneError(
      "regions:\n" + regions + "bindings:\n  - { gesture: tap, run: a }\n", line: 258, column: 5, "at most 256 regions")
  }

  // MARK: YAML in linear time

  @Test func aFortyThousandKeyMapKeepsEveryKeyInOrder() throws {
    let text = "root:\n" + (0..<40_000).map { "  k\($0): \($0)\n" }.joined()
    let document = YAMLDocument.parse(bytes: Array(text.utf8), file: "test.yaml")
    #expect(!document.failed)
    guard case .mapping(let top) = try #require(document.root).content,
      case .mapping(let pairs) = try #require(top.first).value.content
    else {
      Issue.record("not a map of a map")
      return
    }
    #expect(pairs.count == 40_000)
    #expect(
      pairs.enumerated().allSatisfy { index, pair in
        if case .scalar(let key, _) = pair.key.content { return key == "k\(index)" && pair.key.line == index + 2 }
        return false
      })
  }

  @Test func aFortyThousandItemListIsAListOfThatLength() throws {
    let text = "root:\n" + String(repeating: "  - 1\n", count: 40_000)
    let document = YAMLDocument.parse(bytes: Array(text.utf8), file: "test.yaml")
    guard case .mapping(let top) = try #require(document.root).content,
      case .sequence(let items) = try #require(top.first).value.content
    else {
      Issue.record("not a list in a map")
      return
    }
    #expect(items.count == 40_000)
  }

  @Test func manyAliasesOfALargeAnchorAreNotCountedAsWritten() {
    // 1000 aliases of a 300-node anchor: 300 000 nodes once expanded, over the limit.
    let anchor = "a: &big [" + (0..<300).map(String.init).joined(separator: ", ") + "]\n"
    let aliases = "b: [" + String(repeating: "*big, ", count: 1000) + "]\n"
    let document = YAMLDocument.parse(bytes: Array((anchor + aliases).utf8), file: "test.yaml")
    #expect(document.failed)
    #expect(document.diagnostics.first?.message.contains("aliases expand this value") == true)
  }

  @Test func aMegabyteKeySaysKeysAreLimitedTo1024Characters() {
    let key = String(repeating: "k", count: 1 << 20)
    for text in ["\(key): 1\n", "bindings:\n  - { gesture: tap, run: a }\n\(key): 1\n", "devices:\n  - \(key): 1\n"] {
      let result = check(text)
      #expect(result.errors.count == 1)
      let error = result.errors.first
      #expect(
        error?.message == "this key is 1048576 characters long; YAML keys are limited to 1024 characters",
        "\(String(describing: error?.message.prefix(200)))")
      let line = text.split(separator: "\n").firstIndex { $0.contains("kkk") }.map { $0 + 1 }
      #expect(error?.location.line == line)
      #expect(error?.location.column == (text.hasPrefix("devices") ? 5 : 1))
    }
  }

  // MARK: Echoed text

  @Test func diagnosticsEscapeControlCharactersTheyQuote() throws {
    let error = try #require(check("bindings:\n  - { gesture: \"tap\\n\\u001b[2Jx\", run: a }\n").errors.first)
    #expect(error.description.split(separator: "\n").count == 2, "\(error.description)")
    #expect(
      error.description.hasPrefix(#"test.yaml:2:16: error: 'tap\n\u{1b}[2Jx' is not a gesture"#), "\(error.description)"
    )
  }
}
