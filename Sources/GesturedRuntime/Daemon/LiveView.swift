import GestureCore
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured monitor --pretty`: what the monitor sees, for a person at a terminal: the
/// devices, each contact as it moves (mm from the panel's top left as the user sees it),
/// the state each recognizer is in, and firings as they happen.
///
/// Pure: the daemon feeds it what its engines report (frames, `TraceRecord`s, firings) and
/// writes what it returns. Names from devices and the config are escaped as they come in.
/// Two forms: `lines` to append (stdout is not a terminal: a log
/// that tests and pipes can read), or `screen()` to redraw a terminal with.
struct LiveView {
  struct Device {
    var devnode: String
    var name: String
    var profile: String
    var geometry: PanelGeometry
    var regions: [String]
    var sequence: Int?
    var sequenceState = "idle"
    var region: String?
    /// Recognizer name → its state, in the order they first moved in this sequence.
    var recognizers: [(name: String, state: String)] = []
    /// Contacts down now: id → position.
    var contacts: [(id: UInt32, position: Point)] = []
  }

  /// Firings kept for the screen.
  static let recentFirings = 12

  private(set) var devices: [Device] = []
  private(set) var firings: [String] = []

  // MARK: Events (each returns the lines of the plain form)

  mutating func deviceAdded(
    devnode: String, name: String, profile: Profile, geometry: PanelGeometry, at time: Timestamp
  )
    -> [String]
  {
    let devnode = devnode.escapingControlCharacters()
    let device = Device(
      devnode: devnode, name: name.escapingControlCharacters(), profile: profile.name.escapingControlCharacters(),
      geometry: geometry, regions: profile.regions.map { $0.name.escapingControlCharacters() })
    devices.removeAll { $0.devnode == devnode }
    devices.append(device)
    return ["\(time) \(devnode): added '\(device.name)', profile '\(device.profile)', \(Self.size(geometry))"]
  }

  mutating func deviceRemoved(devnode: String, at time: Timestamp) -> [String] {
    let devnode = devnode.escapingControlCharacters()
    devices.removeAll { $0.devnode == devnode }
    return ["\(time) \(devnode): removed"]
  }

  /// One frame of a device: a line listing every contact that changed.
  mutating func frame(_ frame: TouchFrame, devnode: String) -> [String] {
    let devnode = devnode.escapingControlCharacters()
    guard let d = devices.firstIndex(where: { $0.devnode == devnode }) else { return [] }
    var parts: [String] = []
    for change in frame.changes {
      let at = Self.millimetres(change.position, devices[d].geometry)
      switch change.phase {
      case .began:
        devices[d].contacts.append((change.id, change.position))
        parts.append("\(change.id) down \(at)")
      case .moved:
        if let c = devices[d].contacts.firstIndex(where: { $0.id == change.id }) {
          devices[d].contacts[c].position = change.position
        }
        parts.append("\(change.id) \(at)")
      case .ended, .cancelled:
        devices[d].contacts.removeAll { $0.id == change.id }
        parts.append("\(change.id) \(change.phase == .ended ? "up" : "cancelled") \(at)")
      }
    }
    guard !parts.isEmpty else { return [] }
    return ["\(frame.time) \(devnode): contacts " + parts.joined(separator: ", ")]
  }

  /// The engine's records: sequence starts, state changes, recognizer transitions.
  mutating func records(_ records: [TraceRecord], devnode: String) -> [String] {
    let devnode = devnode.escapingControlCharacters()
    guard let d = devices.firstIndex(where: { $0.devnode == devnode }) else { return [] }
    var lines: [String] = []
    for record in records {
      let prefix = "\(record.time) \(devnode):"
      switch record.what {
      case .sequenceBegan(let number, let region):
        let name = region.flatMap { devices[d].regions.indices.contains($0) ? devices[d].regions[$0] : nil }
        devices[d].sequence = number
        devices[d].region = name
        devices[d].recognizers.removeAll()
        lines.append("\(prefix) touch sequence #\(number) began, region \(name ?? "none")")
      case .sequence(let state, let event):
        devices[d].sequenceState = state
        lines.append("\(prefix) sequence: \(event) → \(state)")
      case .recognizer(let name, let state, _):
        if let r = devices[d].recognizers.firstIndex(where: { $0.name == name }) {
          devices[d].recognizers[r].state = state
        } else {
          devices[d].recognizers.append((name, state))
        }
        lines.append("\(prefix) \(name): \(state)")
      case .tapChainEnded(let taps, let fingers, _, let bound):
        lines.append(
          "\(prefix) tap chain: \(taps) × \(fingers)-finger\(bound ? "" : ", nothing bound for it")")
      }
    }
    return lines
  }

  mutating func fired(_ firing: ResolvedFiring, devnode: String) -> [String] {
    let devnode = devnode.escapingControlCharacters()
    let event = firing.event
    var text = "FIRED \(firing.bindingName.escapingControlCharacters()) (\(event.gesture.rawValue)"
    if let direction = event.direction { text += " \(direction.rawValue)" }
    text += ", \(event.fingers) finger\(event.fingers == 1 ? "" : "s")"
    if event.taps > 1 { text += ", \(event.taps) taps" }
    text += ")"
    switch event.phase {
    case .oneShot: break
    case .step(let k): text += " step \(k)"
    case .end(let n): text += " end after \(n) steps"
    }
    if let scale = event.scale { text += " scale \(DecimalText.fourDecimals(scale) ?? "?")" }
    if let angle = event.angle { text += " angle \(DecimalText.fourDecimals(angle) ?? "?")°" }
    if let dx = event.dx, let dy = event.dy {
      text += " offset \(DecimalText.fourDecimals(dx) ?? "?"), \(DecimalText.fourDecimals(dy) ?? "?") mm"
    }
    text += " region \(firing.regionName?.escapingControlCharacters() ?? "none")"
    if let input = firing.input { text += ": \(InputActionWriter.description(of: input).escapingControlCharacters())" }
    let line = "\(event.time) \(devnode): \(text)"
    firings.append(line)
    if firings.count > Self.recentFirings { firings.removeFirst(firings.count - Self.recentFirings) }
    return [line]
  }

  // MARK: The terminal form

  /// The whole view, for a terminal: clear, then draw from the top left.
  func screen() -> String {
    var out = "\u{1B}[H\u{1B}[2J"
    out += "gestured monitor: \(devices.count) touchscreen\(devices.count == 1 ? "" : "s") (Ctrl-C stops)\n"
    for device in devices {
      out +=
        "\n\u{1B}[1m\(device.devnode) '\(device.name)'\u{1B}[0m profile '\(device.profile)', \(Self.size(device.geometry))\n"
      if let sequence = device.sequence {
        out += "  sequence #\(sequence) (region \(device.region ?? "none")): \(device.sequenceState)\n"
      } else {
        out += "  no touch yet\n"
      }
      for recognizer in device.recognizers {
        out += "    \(Self.padded(recognizer.name, 11)) \(recognizer.state)\n"
      }
      if device.contacts.isEmpty {
        out += "  no contact down\n"
      } else {
        for contact in device.contacts {
          out += "  contact \(contact.id) at \(Self.millimetres(contact.position, device.geometry))\n"
        }
      }
    }
    out += "\nfirings:\n"
    if firings.isEmpty { out += "  none yet\n" }
    for line in firings { out += "  \(line)\n" }
    return out
  }

  // MARK: Formatting

  static func size(_ geometry: PanelGeometry) -> String {
    "\(oneDecimal(geometry.width)) × \(oneDecimal(geometry.height)) mm"
      + (geometry.sizeSource == .guessed ? " (guessed)" : "")
  }

  /// A point as mm from the top left of the panel as the user sees it.
  static func millimetres(_ p: Point, _ geometry: PanelGeometry) -> String {
    "(\(oneDecimal(p.x * geometry.width)), \(oneDecimal(p.y * geometry.height))) mm"
  }

  static func oneDecimal(_ value: Double) -> String { TracePicture.decimals(value, 1) }

  static func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
  }
}

/// Where `LiveView` goes: appended lines, or, when stdout is a terminal, the whole view
/// redrawn after each batch of events (`show()`).
final class LiveViewOutput {
  private var view = LiveView()
  private let output: any OutputSink
  private let redraws: Bool
  private var changed = false

  init(output: any OutputSink, redraws: Bool = isatty(1) == 1) {
    self.output = output
    self.redraws = redraws
  }

  private func emit(_ lines: [String]) {
    guard !lines.isEmpty else { return }
    if redraws {
      changed = true
    } else {
      output.write(lines.map { $0 + "\n" }.joined())
    }
  }

  func deviceAdded(devnode: String, name: String, profile: Profile, geometry: PanelGeometry, at time: Timestamp) {
    emit(view.deviceAdded(devnode: devnode, name: name, profile: profile, geometry: geometry, at: time))
    show()
  }

  func deviceRemoved(devnode: String, at time: Timestamp) {
    emit(view.deviceRemoved(devnode: devnode, at: time))
    show()
  }

  func frame(_ frame: TouchFrame, devnode: String) { emit(view.frame(frame, devnode: devnode)) }
  func records(_ records: [TraceRecord], devnode: String) {
    guard !records.isEmpty else { return }
    emit(view.records(records, devnode: devnode))
  }
  func fired(_ firing: ResolvedFiring, devnode: String) { emit(view.fired(firing, devnode: devnode)) }

  /// Redraws the terminal if anything changed since the last time.
  func show() {
    guard redraws, changed else { return }
    changed = false
    output.write(view.screen())
  }
}
