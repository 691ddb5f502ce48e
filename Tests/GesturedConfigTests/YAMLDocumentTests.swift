import GestureCore
import Testing

@testable import GesturedConfig

@Suite("Config YAML reader")
struct YAMLDocumentTests {
  private func parse(_ text: String) -> YAMLDocument {
    YAMLDocument.parse(bytes: Array(text.utf8), file: "test.yaml")
  }

  @Test("every node keeps its 1-based line and column")
  func marks() throws {
    let document = parse("a: 1\nlist:\n  - x\n  - { k: 'v' }\n")
    let root = try #require(document.root)
    guard case .mapping(let pairs) = root.content else {
      Issue.record("root is not a map")
      return
    }
    #expect(pairs.map { [$0.key.line, $0.key.column] } == [[1, 1], [2, 1]])
    #expect([pairs[0].value.line, pairs[0].value.column] == [1, 4])
    guard case .sequence(let items) = pairs[1].value.content, items.count == 2,
      case .mapping(let inner) = items[1].content
    else {
      Issue.record("unexpected shape")
      return
    }
    #expect([items[0].line, items[0].column] == [3, 5])
    #expect([items[1].line, items[1].column] == [4, 5])
    #expect([inner[0].value.line, inner[0].value.column] == [4, 10])
    guard case .scalar("v", plain: false) = inner[0].value.content else {
      Issue.record("quoted scalar not kept as quoted")
      return
    }
  }

  @Test("a syntax error ends the parse with one diagnostic at libyaml's mark")
  func syntaxError() throws {
    let result = check("bindings:\n  - gesture: tap\n    run: a: b\n    fingres: 2\n")
    #expect(result.configuration == nil)
    #expect(result.diagnostics.count == 1)
    let error = try #require(result.diagnostics.first)
    #expect(positions([error]) == [[3, 11]])
    #expect(error.message == "YAML syntax error: mapping values are not allowed in this context")
  }

  @Test("an unclosed flow map points at where libyaml gave up and where the map began")
  func unclosedFlowMap() throws {
    let result = check("bindings:\n  - { gesture: tap, run: x\n")
    let error = try #require(result.diagnostics.first)
    #expect(result.diagnostics.count == 1)
    #expect(positions([error]) == [[3, 1]])
    #expect(error.message.contains("did not find expected ',' or '}'"))
    #expect(error.hint == "while parsing a flow mapping that starts at line 2, column 5")
  }

  @Test("a tab in the indentation gets a hint about spaces")
  func tabIndentation() throws {
    let result = check("bindings:\n  - gesture: tap\n\trun: x\n")
    let error = try #require(result.diagnostics.first)
    #expect(positions([error]) == [[3, 1]])
    #expect(error.hint?.contains("indent with spaces") == true)
  }

  @Test("invalid UTF-8 is a syntax error at the bad byte's line and column")
  func invalidEncoding() throws {
    var bytes = Array("bindings:\n  - run: \"".utf8)
    bytes.append(0xFF)
    bytes += Array("\"\n".utf8)
    let result = ConfigLoader.parse(bytes: bytes, file: "test.yaml")
    let error = try #require(result.diagnostics.first)
    #expect(result.diagnostics.count == 1)
    #expect(positions([error]) == [[2, 11]])
    #expect(error.message.contains("invalid leading UTF-8 octet"))
  }

  @Test("duplicate keys are errors at the second key, naming the first one's line")
  func duplicateKeys() {
    expectOneError(
      """
      bindings:
        - gesture: tap
          run: a
          run: b
      """, line: 4, column: 5, "duplicate key 'run'; it is first at line 3")
  }

  @Test("a second document is rejected at its '---'")
  func twoDocuments() {
    expectOneError(
      """
      bindings:
        - { gesture: tap, run: a }
      ---
      bindings: []
      """, line: 3, column: 1, "one YAML document", hint: "remove the '---'")
  }

  @Test("aliases resolve to their anchor's value")
  func aliasesResolve() throws {
    let result = check(
      """
      bindings:
        - gesture: tap
          run: a
          environment: &display { DISPLAY: ":0" }
        - gesture: long-press
          run: b
          environment: *display
      """)
    #expect(result.errors.isEmpty)
    let bindings = try #require(result.actions.first?.bindings)
    #expect(bindings.map(\.environment) == [["DISPLAY": ":0"], ["DISPLAY": ":0"]])
  }

  @Test("an alias to an unknown anchor is an error at the alias")
  func unknownAlias() {
    expectOneError(
      """
      bindings:
        - gesture: tap
          run: *command
      """, line: 3, column: 10, "alias '*command' refers to no anchor")
  }

  @Test("aliases that would expand into a huge tree are rejected")
  func aliasBomb() throws {
    var lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for level in 1...8 {
      let previous = "*a\(level - 1)"
      lines.append(
        "a\(level): &a\(level) [\(Array(repeating: previous, count: 10).joined(separator: ", "))]")
    }
    let result = check(lines.joined(separator: "\n") + "\n")
    #expect(result.configuration == nil)
    let error = try #require(result.diagnostics.first)
    #expect(error.message.contains("aliases expand"))
    #expect(result.diagnostics.count == 1)
  }

  @Test("nesting beyond the limit is rejected instead of exhausting the stack")
  func deepNesting() throws {
    let depth = YAMLDocument.maximumDepth + 10
    let text =
      "bindings: " + String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
      + "\n"
    let result = check(text)
    let error = try #require(result.diagnostics.first)
    #expect(error.message.contains("nests deeper"))
    #expect(result.configuration == nil)
  }

  @Test("an empty file or one with only comments is valid, with a warning")
  func emptyFile() throws {
    for text in ["", "# nothing yet\n"] {
      let result = check(text)
      #expect(result.errors.isEmpty)
      #expect(result.configuration == Configuration(profiles: [Profile()]))
      #expect(result.warnings.count == 1)
    }
  }
}
