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
  /// Aliases may share subtrees; expanded beyond this many nodes the file is rejected, so a
  /// few lines of nested aliases cannot make validation run for hours.
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

  private enum OpenCollection {
    case sequence(line: Int, column: Int, anchor: String?, items: [YAMLNode])
    case mapping(
      line: Int, column: Int, anchor: String?, pairs: [YAMLPair], pendingKey: YAMLNode?,
      skipValue: Bool, firstKeys: [String: YAMLNode])
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
        add(YAMLNode(target.content, line: line, column: column))
      } else {
        error(
          line: line, column: column,
          message: "alias '*\(name)' refers to no anchor defined before it",
          hint: "define '&\(name)' on a complete value earlier in the file")
        add(YAMLNode(.invalid, line: line, column: column))
      }
    case YAML_SEQUENCE_START_EVENT:
      open(
        .sequence(
          line: line, column: column, anchor: optionalString(event.data.sequence_start.anchor),
          items: []), line: line, column: column)
    case YAML_MAPPING_START_EVENT:
      open(
        .mapping(
          line: line, column: column, anchor: optionalString(event.data.mapping_start.anchor),
          pairs: [], pendingKey: nil, skipValue: false, firstKeys: [:]), line: line, column: column)
    case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
      guard let collection = stack.popLast() else { return }
      switch collection {
      case .sequence(let line, let column, let anchor, let items):
        complete(YAMLNode(.sequence(items), line: line, column: column), anchor: anchor)
      case .mapping(let line, let column, let anchor, let pairs, _, _, _):
        complete(YAMLNode(.mapping(pairs), line: line, column: column), anchor: anchor)
      }
    default:
      break
    }
  }

  private mutating func open(_ collection: OpenCollection, line: Int, column: Int) {
    guard stack.count < YAMLDocument.maximumDepth else {
      fail(
        line: line, column: column,
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
    guard node.expandedSize <= YAMLDocument.maximumExpandedNodes else {
      fail(
        line: node.line, column: node.column,
        message: "aliases expand this value to more than \(YAMLDocument.maximumExpandedNodes) nodes"
      )
      return
    }
    guard let top = stack.popLast() else {
      if documentCount <= 1 { document.root = node }
      return
    }
    switch top {
    case .sequence(let line, let column, let anchor, var items):
      items.append(node)
      stack.append(.sequence(line: line, column: column, anchor: anchor, items: items))
    case .mapping(
      let line, let column, let anchor, var pairs, let pendingKey, var skipValue, var firstKeys):
      if let key = pendingKey {
        if !skipValue { pairs.append(YAMLPair(key: key, value: node)) }
        skipValue = false
        stack.append(
          .mapping(
            line: line, column: column, anchor: anchor, pairs: pairs, pendingKey: nil,
            skipValue: false, firstKeys: firstKeys))
        return
      }
      switch node.content {
      case .scalar(let text, _):
        if let first = firstKeys[text] {
          // libyaml accepts duplicate keys; a config where the later one silently wins
          // hides mistakes, so it is an error and only the first is kept.
          error(
            line: node.line, column: node.column,
            message: "duplicate key '\(text)'; it is first at line \(first.line)",
            hint: "remove one of them")
          skipValue = true
        } else {
          firstKeys[text] = node
        }
      case .invalid:
        skipValue = true
      case .mapping, .sequence:
        error(
          line: node.line, column: node.column,
          message: "a key must be a plain word, not \(node.kindDescription)")
        skipValue = true
      }
      stack.append(
        .mapping(
          line: line, column: column, anchor: anchor, pairs: pairs, pendingKey: node,
          skipValue: skipValue, firstKeys: firstKeys))
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
