import CYAML
import GestureCore

/// A YAML node with the position it starts at, built from libyaml's event stream.
///
/// libyaml's own document loader drops duplicate-key information and never exposes marks per
/// node in a convenient way, so the tree is built here from events: every node keeps its
/// 1-based line and column for diagnostics.
final class YAMLNode: Sendable {
  enum Content: Sendable {
    /// `plain` is true for an unquoted, untagged scalar: only those can mean null, booleans
    /// or numbers. A quoted `"300"` is always a string.
    case scalar(String, plain: Bool)
    case sequence([YAMLNode])
    case mapping([YAMLPair])
    /// Stands in for something already reported (an unknown alias): checks skip it quietly.
    case invalid
  }

  let content: Content
  let line: Int
  let column: Int
  /// Nodes in this subtree with aliases expanded, saturating; bounds alias "bombs".
  let expandedSize: Int

  init(_ content: Content, line: Int, column: Int) {
    self.content = content
    self.line = line
    self.column = column
    var size = 1
    switch content {
    case .scalar, .invalid: break
    case .sequence(let items):
      for item in items { size = size.addingSaturated(item.expandedSize) }
    case .mapping(let pairs):
      for pair in pairs {
        size = size.addingSaturated(pair.key.expandedSize).addingSaturated(pair.value.expandedSize)
      }
    }
    expandedSize = size
  }

  /// An alias: the anchor's content at the alias's position. Its size is the anchor's, not
  /// counted again, so a file of many aliases to one large anchor stays linear to check.
  init(aliasOf target: YAMLNode, line: Int, column: Int) {
    content = target.content
    self.line = line
    self.column = column
    expandedSize = target.expandedSize
  }

  /// The scalar's text if it is an unquoted `~`, `null` or nothing at all.
  var isNull: Bool {
    guard case .scalar(let text, plain: true) = content else { return false }
    return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
  }

  /// How the node reads in a message: "a map", "a list", "the string 'x'", "nothing".
  var kindDescription: String {
    switch content {
    case .mapping: return "a map"
    case .sequence: return "a list"
    case .invalid: return "an invalid value"
    case .scalar(let text, _):
      if isNull { return "nothing" }
      let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
      return "'\(shown)'"
    }
  }
}

struct YAMLPair: Sendable {
  let key: YAMLNode
  let value: YAMLNode
}

extension Int {
  fileprivate func addingSaturated(_ other: Int) -> Int {
    let (sum, overflow) = addingReportingOverflow(other)
    return overflow ? .max : sum
  }
}

/// The tree of the file's single document, or why there is none.
struct YAMLDocument {
  /// nil for a file with no document at all (empty, or only comments).
  var root: YAMLNode?
  var diagnostics: [Diagnostic]
  /// A syntax error (or a limit) ended the parse; `diagnostics` holds only what explains it.
  var failed: Bool

  /// Deeper nesting than this is no config; the limit keeps every later walk shallow.
  static let maximumDepth = 64
  /// Aliases may share subtrees; expanded to more than this many nodes beyond those written
  /// out, the file is rejected, so a few lines of nested aliases cannot make validation run
  /// for hours.
  static let maximumExpandedNodes = 200_000

  static func parse(bytes: [UInt8], file: String) -> YAMLDocument {
    var builder = TreeBuilder(file: file)
    bytes.withUnsafeBufferPointer { buffer in
      builder.run(buffer)
    }
    return builder.document
  }
}

/// Consumes libyaml events and assembles nodes with a stack of open collections.
private struct TreeBuilder {
  let file: String
  var document = YAMLDocument(root: nil, diagnostics: [], failed: false)
  private var stack: [OpenCollection] = []
  private var anchors: [String: YAMLNode] = [:]
  private var documentCount = 0
  /// Nodes in the file as written (scalars, aliases, collections), without expansion.
  private var writtenNodes = 0

  /// A collection whose end event has not come yet. Kept in `stack` and changed in place
  /// there (`stack[stack.count - 1]`), so adding a node appends to an array with one owner:
  /// building a map of n keys is O(n), not the O(n²) of copying the pairs for each new one.
  private struct OpenCollection {
    enum Kind { case sequence, mapping }
    let kind: Kind
    let line: Int
    let column: Int
    let anchor: String?
    var items: [YAMLNode] = []
    var pairs: [YAMLPair] = []
    /// A mapping's key waiting for its value.
    var pendingKey: YAMLNode? = nil
    /// The pending key is a duplicate or no plain word: its value is dropped.
    var skipValue = false
    /// Where each key was first seen, for duplicate-key messages.
    var firstKeys: [String: Int] = [:]

    init(_ kind: Kind, line: Int, column: Int, anchor: String?) {
      self.kind = kind
      self.line = line
      self.column = column
      self.anchor = anchor
    }
  }

  init(file: String) { self.file = file }

  mutating func run(_ input: UnsafeBufferPointer<UInt8>) {
    var parser = yaml_parser_t()
    guard yaml_parser_initialize(&parser) != 0 else {
      fail(line: 1, column: 1, message: "cannot start the YAML parser (out of memory)")
      return
    }
    defer { yaml_parser_delete(&parser) }
    // libyaml wants a non-null pointer even for empty input.
    let empty: [UInt8] = [0]
    empty.withUnsafeBufferPointer { fallback in
      let base = input.baseAddress ?? fallback.baseAddress!
      yaml_parser_set_input_string(&parser, base, input.count)
      var event = yaml_event_t()
      while !document.failed {
        guard yaml_parser_parse(&parser, &event) != 0 else {
          reportSyntaxError(parser, input: input)
          return
        }
        let done = event.type == YAML_STREAM_END_EVENT
        handle(event)
        yaml_event_delete(&event)
        if done { return }
      }
    }
  }

  private mutating func handle(_ event: yaml_event_t) {
    let line = Int(event.start_mark.line) + 1
    let column = Int(event.start_mark.column) + 1
    switch event.type {
    case YAML_SCALAR_EVENT, YAML_ALIAS_EVENT, YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
      writtenNodes += 1
    default: break
    }
    switch event.type {
    case YAML_DOCUMENT_START_EVENT:
      documentCount += 1
      if documentCount == 2 {
        // The first document is still checked; everything after it is ignored.
        error(
          line: line, column: column,
          message: "a config file holds one YAML document; this is a second one",
          hint: "remove the '---' line and merge the documents")
      }
    case YAML_SCALAR_EVENT:
      let scalar = event.data.scalar
      let text = string(scalar.value, length: scalar.length)
      let plain = scalar.style == YAML_PLAIN_SCALAR_STYLE && scalar.tag == nil
      let node = YAMLNode(.scalar(text, plain: plain), line: line, column: column)
      complete(node, anchor: optionalString(scalar.anchor))
    case YAML_ALIAS_EVENT:
      let name = optionalString(event.data.alias.anchor) ?? ""
      if let target = anchors[name] {
        // The same content, but positioned at the alias, so a problem with the value as a
        // whole (a repeated binding, say) points at the place that repeats it.
        add(YAMLNode(aliasOf: target, line: line, column: column))
      } else {
        error(
          line: line, column: column,
          message: "alias '*\(name)' refers to no anchor defined before it",
          hint: "define '&\(name)' on a complete value earlier in the file")
        add(YAMLNode(.invalid, line: line, column: column))
      }
    case YAML_SEQUENCE_START_EVENT:
      open(
        OpenCollection(
          .sequence, line: line, column: column,
          anchor: optionalString(event.data.sequence_start.anchor)))
    case YAML_MAPPING_START_EVENT:
      open(
        OpenCollection(
          .mapping, line: line, column: column,
          anchor: optionalString(event.data.mapping_start.anchor)))
    case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
      guard let collection = stack.popLast() else { return }
      let content: YAMLNode.Content =
        switch collection.kind {
        case .sequence: .sequence(collection.items)
        case .mapping: .mapping(collection.pairs)
        }
      complete(
        YAMLNode(content, line: collection.line, column: collection.column),
        anchor: collection.anchor)
    default:
      break
    }
  }

  private mutating func open(_ collection: OpenCollection) {
    guard stack.count < YAMLDocument.maximumDepth else {
      fail(
        line: collection.line, column: collection.column,
        message: "the file nests deeper than \(YAMLDocument.maximumDepth) levels")
      return
    }
    stack.append(collection)
  }

  private mutating func complete(_ node: YAMLNode, anchor: String?) {
    // Registered only once complete, so an alias can never point into its own anchor.
    if let anchor { anchors[anchor] = node }
    add(node)
  }

  /// Puts a finished node into the collection being built, or makes it the document root.
  private mutating func add(_ node: YAMLNode) {
    // Only what aliases add counts against the limit: a large file written out in full is
    // bounded by the file size cap instead.
    guard node.expandedSize <= YAMLDocument.maximumExpandedNodes + writtenNodes else {
      fail(
        line: node.line, column: node.column,
        message: "aliases expand this value to more than \(YAMLDocument.maximumExpandedNodes) nodes"
      )
      return
    }
    guard !stack.isEmpty else {
      if documentCount <= 1 { document.root = node }
      return
    }
    let top = stack.count - 1
    switch stack[top].kind {
    case .sequence:
      stack[top].items.append(node)
    case .mapping:
      if let key = stack[top].pendingKey {
        if !stack[top].skipValue { stack[top].pairs.append(YAMLPair(key: key, value: node)) }
        stack[top].pendingKey = nil
        stack[top].skipValue = false
        return
      }
      var skipValue = false
      switch node.content {
      case .scalar(let text, _):
        if let firstLine = stack[top].firstKeys[text] {
          // libyaml accepts duplicate keys; a config where the later one silently wins
          // hides mistakes, so it is an error and only the first is kept.
          error(
            line: node.line, column: node.column,
            message: "duplicate key '\(text)'; it is first at line \(firstLine)",
            hint: "remove one of them")
          skipValue = true
        } else {
          stack[top].firstKeys[text] = node.line
        }
      case .invalid:
        skipValue = true
      case .mapping, .sequence:
        error(
          line: node.line, column: node.column,
          message: "a key must be a plain word, not \(node.kindDescription)")
        skipValue = true
      }
      stack[top].pendingKey = node
      stack[top].skipValue = skipValue
    }
  }

  private mutating func reportSyntaxError(
    _ parser: yaml_parser_t, input: UnsafeBufferPointer<UInt8>
  ) {
    let problem = parser.problem.map { String(cString: $0) } ?? "unreadable YAML"
    var line = Int(parser.problem_mark.line) + 1
    var column = Int(parser.problem_mark.column) + 1
    var offset = Int(parser.problem_mark.index)
    if parser.error == YAML_READER_ERROR {
      // Reader errors (bad encoding) carry a byte offset, not a mark.
      offset = min(max(parser.problem_offset, 0), input.count)
      (line, column) = Self.position(ofByte: offset, in: input)
    }
    let keyEnd: Int? =
      switch problem {
      case _ where problem.hasPrefix("mapping values are not allowed"): offset
      // Reported where the key was cut off (libyaml stops looking for its colon there).
      case _ where problem.hasPrefix("could not find expected ':'"):
        parser.context_mark.line == parser.problem_mark.line ? offset : nil
      default: nil
      }
    if let keyEnd, let key = Self.overlongKey(endingAt: keyEnd, in: input) {
      // libyaml stops treating text as a possible key after 1024 characters and then
      // trips over the colon; say what the real limit is.
      document.diagnostics.removeAll()
      fail(
        line: line, column: key.column,
        message:
          "this key is \(key.length) characters long; YAML keys are limited to \(Self.maximumKeyLength) characters",
        hint: "a config key is a short word such as 'bindings'; check for a missing newline or quote")
      return
    }
    var hint: String? = nil
    if offset >= 0, offset < input.count, input[offset] == UInt8(ascii: "\t") {
      hint = "YAML does not allow tabs for indentation; indent with spaces"
    } else if let context = parser.context.map({ String(cString: $0) }),
      parser.context_mark.index != parser.problem_mark.index
    {
      // "while parsing a flow mapping that starts at …": where the unfinished part began.
      let contextLine = Int(parser.context_mark.line) + 1
      let contextColumn = Int(parser.context_mark.column) + 1
      hint = "\(context) that starts at line \(contextLine), column \(contextColumn)"
    }
    document.diagnostics.removeAll()
    fail(line: line, column: column, message: "YAML syntax error: \(problem)", hint: hint)
  }

  /// libyaml's limit on the length of an implicit key (YAML 1.2 says the same).
  static let maximumKeyLength = 1024

  /// The text before the colon at `offset` on its line, from after the indentation or a
  /// list dash, when it is longer than the key limit: its start column and length.
  private static func overlongKey(endingAt offset: Int, in input: UnsafeBufferPointer<UInt8>)
    -> (column: Int, length: Int)?
  {
    guard offset > 0, offset <= input.count else { return nil }
    var start = offset
    while start > 0, input[start - 1] != UInt8(ascii: "\n") { start -= 1 }
    let lineStart = start
    while start < offset, input[start] == UInt8(ascii: " ") || input[start] == UInt8(ascii: "-") {
      start += 1
    }
    var end = offset
    while end > start, input[end - 1] == UInt8(ascii: " ") { end -= 1 }
    let characters = { (range: Range<Int>) in range.reduce(0) { $0 + (input[$1] & 0xC0 != 0x80 ? 1 : 0) } }
    let length = characters(start..<end)
    guard length > maximumKeyLength else { return nil }
    return (characters(lineStart..<start) + 1, length)
  }

  /// 1-based line and column (in characters) of a byte offset.
  private static func position(ofByte offset: Int, in input: UnsafeBufferPointer<UInt8>) -> (
    Int, Int
  ) {
    var line = 1
    var column = 1
    for byte in input.prefix(offset) {
      if byte == UInt8(ascii: "\n") {
        line += 1
        column = 1
      } else if byte & 0xC0 != 0x80 {
        column += 1
      }
    }
    return (line, column)
  }

  private mutating func error(line: Int, column: Int, message: String, hint: String? = nil) {
    document.diagnostics.append(
      Diagnostic(
        severity: .error, location: SourceLocation(file: file, line: line, column: column),
        message: message, hint: hint))
  }

  private mutating func fail(line: Int, column: Int, message: String, hint: String? = nil) {
    error(line: line, column: column, message: message, hint: hint)
    document.failed = true
  }

  private func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?, length: Int) -> String {
    guard let pointer else { return "" }
    return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
  }

  private func optionalString(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
    guard let pointer else { return nil }
    return String(cString: pointer)
  }
}
