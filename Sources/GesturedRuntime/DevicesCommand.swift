import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured devices [--config FILE]`: every input event node, what it is, and which profile
/// of the config takes it (or why none does). Reads devices; runs nothing.
public struct DevicesCommand: Sendable {
  public static let defaultConfigPath = "/etc/gestured/gestured.yaml"

  /// nil: the default path, where a missing file means the built-in default profile.
  public var configPath: String?

  public init(configPath: String? = nil) { self.configPath = configPath }

  // Seams for tests: where nodes and device descriptions come from.
  typealias NodeLister = @Sendable () -> Result<[InputNode], UdevError>
  typealias DeviceProber =
    @Sendable (_ devnode: String, _ logger: Logger) -> Result<
      DeviceDescription, DeviceError
    >

  var defaultPath = DevicesCommand.defaultConfigPath

  var listNodes: NodeLister = {
    do throws(UdevError) {
      return .success(try UdevContext().eventNodes(includingUninitialized: true))
    } catch {
      return .failure(error)
    }
  }

  var probe: DeviceProber = { devnode, logger in
    do throws(DeviceError) {
      let device = try EvdevDevice(devnode: devnode, logger: logger)
      defer { device.close() }
      return .success(device.description)
    } catch {
      return .failure(error)
    }
  }

  /// The listing goes to `output`; config diagnostics and libevdev's messages to `errors`.
  public func run(output: some OutputSink, errors: some OutputSink) -> ExitCode {
    let configuration: Configuration
    let path = configPath ?? defaultPath
    if configPath == nil && !Self.fileExists(path) {
      configuration = Configuration()
      output.write(
        "config: \(path) does not exist; showing what the built-in default would take"
          + " (one profile for every touchscreen, no bindings)\n")
    } else {
      switch ConfigStep.load(path: path, errors: errors) {
      case .failure(let code): return code
      case .success(let loaded): configuration = loaded.configuration
      }
      let names = configuration.profiles.map { "'\($0.name)'" }.joined(separator: ", ")
      output.write(
        "config: \(path) (\(counted(configuration.profiles.count, "profile")): \(names))\n")
    }

    let nodes: [InputNode]
    switch listNodes() {
    case .failure(let error):
      errors.write("gestured: cannot list input devices through udev: \(error)\n")
      return .systemError
    case .success(let listed):
      nodes = listed.sorted { Self.sortKey($0) < Self.sortKey($1) }
    }
    guard !nodes.isEmpty else {
      output.write(
        "\nno input event nodes: udev lists none in the input subsystem"
          + " (no /dev/input/event*; in a container or VM, pass the devices in)\n")
      return .success
    }

    let logger = Logger(sink: errors)
    let reports = nodes.map { node in
      NodeReport(node: node, probed: probe(node.devnode, logger), configuration: configuration)
    }
    for report in reports {
      output.write("\n" + render(report, among: nodes, configuration: configuration))
    }
    output.write("\n" + summary(reports, configuration: configuration))
    return .success
  }

  // MARK: - What is known about one node

  struct NodeReport {
    var node: InputNode
    var probed: Result<DeviceDescription, DeviceError>
    var verdict: DeviceSelection.Verdict?
    /// The profile that takes the node, as configured.
    var configuredProfile: Profile?
    /// The same with udev's calibration applied when it sets none.
    var profile: Profile?
    var geometry: PanelGeometry?

    init(
      node: InputNode, probed: Result<DeviceDescription, DeviceError>,
      configuration: Configuration
    ) {
      self.node = node
      self.probed = probed
      guard case .success(let device) = probed else { return }
      let verdict = DeviceSelection.verdict(for: node, device: device, in: configuration)
      self.verdict = verdict
      if let index = verdict.profile, configuration.profiles.indices.contains(index) {
        configuredProfile = configuration.profiles[index]
        profile = DeviceSelection.effectiveProfile(configuration.profiles[index], node: node)
      }
      // A node no profile takes is measured as the default would measure it.
      geometry = PanelGeometry(device: device, profile: profile ?? Profile())
    }

    var device: DeviceDescription? { try? probed.get() }
  }

  // MARK: - Rendering

  private static let labelWidth = 12

  private func line(_ label: String, _ value: String) -> String {
    let padding = max(1, Self.labelWidth - label.count)
    // Values come from the device and udev: a name with a newline stays on its line.
    return "  " + label + String(repeating: " ", count: padding) + value.escapingControlCharacters()
      + "\n"
  }

  func render(_ report: NodeReport, among nodes: [InputNode], configuration: Configuration)
    -> String
  {
    let node = report.node
    let device = report.device
    var text = node.devnode.escapingControlCharacters()
    if let name = device?.name ?? node.name { text += "  \"\(name.escapingControlCharacters())\"" }
    text += "\n"

    if let device {
      text += line(
        "ids",
        "bus 0x\(Self.hex(device.bus))\(Self.busName(device.bus).map { " (\($0))" } ?? ""),"
          + " vendor 0x\(Self.hex(device.vendor)), product 0x\(Self.hex(device.product)),"
          + " version 0x\(Self.hex(device.version))")
    }
    text += line("ID_PATH", node.idPath ?? "none")
    text += line(
      "udev",
      node.isInitialized
        ? node.classification
        : "\(node.classification); not initialized by udev yet (the daemon waits for udev)")

    if case .failure(let error) = report.probed {
      text += line("open", "cannot \(error.operation): \(error.errno)")
      if error.isPermissionDenied {
        text += line("", "hint: run as root, or as a member of the 'input' group")
      } else if error.operation == .readCapabilities && error.errno == .notATerminal {
        text += line("", "not an evdev device")
      }
    }

    if let device {
      if let touch = device.touchProtocol {
        text += line("protocol", Self.protocolName(touch))
        text += line("slots", Self.slotsText(touch))
      } else {
        text += line("protocol", "none: no touch axes")
      }
    }

    if let geometry = report.geometry {
      text += line(
        "size",
        "\(Self.millimetres(geometry.deviceWidth)) x \(Self.millimetres(geometry.deviceHeight)) mm"
          + " (\(Self.sizeSource(geometry.sizeSource)))")
      if geometry.sizeSource == .guessed, let profile = report.profile {
        text += line(
          "", "warning: size guessed: set `size:` in the profile '\(profile.name)'")
      }
    }

    text += calibrationLines(report, configuration: configuration)

    for (twin, reason) in node.twins(in: nodes) {
      text += line("twin", "\(twin.devnode) (\(reason))")
    }

    text += line("profile", profileText(report, configuration: configuration))
    text += regionLines(report)
    text += forwardLines(report)
    text += matchHint(report, among: nodes)
    return text
  }

  private func calibrationLines(_ report: NodeReport, configuration: Configuration) -> String {
    let udevText = report.node.properties[InputNode.calibrationProperty]
    guard let configured = report.configuredProfile, let profile = report.profile else {
      guard let udevText else { return "" }
      if let problem = report.node.calibrationProblem {
        return line(
          "calibration",
          "udev \(InputNode.calibrationProperty)=\"\(udevText)\" is unusable: \(problem)")
      }
      return line("calibration", "udev \(InputNode.calibrationProperty)=\"\(udevText)\"")
    }
    var text = ""
    switch DeviceSelection.calibrationSource(of: configured, node: report.node) {
    case .profile:
      text += line(
        "calibration",
        "\(Self.matrix(profile.calibration ?? [])) from the profile '\(profile.name)'")
      if let udevText {
        text += line(
          "", "udev \(InputNode.calibrationProperty)=\"\(udevText)\" ignored: the profile sets one")
      }
    case .udev:
      text += line(
        "calibration",
        "\(Self.matrix(profile.calibration ?? [])) from udev \(InputNode.calibrationProperty)")
    case .none:
      if let udevText, let problem = report.node.calibrationProblem {
        text += line(
          "calibration",
          "none: udev \(InputNode.calibrationProperty)=\"\(udevText)\" is unusable: \(problem)")
      }
    }
    return text
  }

  private func profileText(_ report: NodeReport, configuration: Configuration) -> String {
    if case .failure = report.probed { return "unknown: the node cannot be read" }
    guard let verdict = report.verdict else { return "unknown" }
    if let profile = report.profile {
      return "'\(profile.name)'\(profile.grab ? " (grab: takes the device exclusively)" : "")"
    }
    let reason = DeviceSelection.reason(verdict, node: report.node, in: configuration) ?? "unknown"
    return "none: \(reason)"
  }

  /// The taking profile's regions, the independent ones marked: gestures there run beside
  /// the rest of the panel's.
  private func regionLines(_ report: NodeReport) -> String {
    guard let profile = report.profile, !profile.regions.isEmpty else { return "" }
    let names = profile.regions.map { "'\($0.name)'" + ($0.independent ? " (independent)" : "") }
    var text = line("regions", names.joined(separator: ", "))
    if profile.regions.contains(where: \.independent) {
      text += line(
        "", "touches that land in an independent region form sequences of their own, beside the rest of the panel's")
    }
    return text
  }

  /// `forward: true`: where the other touches go and how long a touch can be held back,
  /// per region.
  private func forwardLines(_ report: NodeReport) -> String {
    guard let profile = report.profile, profile.forward else { return "" }
    var text = line(
      "forward",
      "grabbed; every touch that is not a gesture goes to a uinput clone with the same name and ids"
        + " (phys '\(UinputClone.markerPrefix)…', which gestured never takes)")
    for (region, limit) in HoldLimit.perRegion(of: profile) {
      let place = region.map { "region '\($0)'" } ?? (profile.regions.isEmpty ? "everywhere" : "elsewhere")
      text += line("", "\(place): \(limit)")
    }
    return text
  }

  /// For a panel udev calls a mouse or tablet (Elo with BTN_LEFT, eGalax with a pen bit):
  /// the `match` that would take it. Not for the mouse or pen twin of a touchscreen node:
  /// the panel is served by that node already.
  private func matchHint(_ report: NodeReport, among nodes: [InputNode]) -> String {
    guard report.verdict == .notTouchscreen, report.node.isMouseOrTablet,
      let device = report.device, device.touchProtocol != nil,
      !report.node.twins(in: nodes).contains(where: { $0.node.isTouchscreen })
    else { return "" }
    return line(
      "",
      "hint: if this is a touch panel, a profile with match: { name: \(Self.yamlQuoted(Self.globEscaped(device.name))),"
        + " vendor: 0x\(Self.hex(device.vendor)), product: 0x\(Self.hex(device.product)) } takes it"
    )
  }

  /// The name as a glob that matches only itself.
  static func globEscaped(_ name: String) -> String {
    var escaped = ""
    for character in name {
      if "*?[]\\".contains(character) { escaped.append("\\") }
      escaped.append(character)
    }
    return escaped
  }

  /// A YAML single-quoted scalar: backslashes stay literal, quotes are doubled.
  static func yamlQuoted(_ text: String) -> String {
    "'" + text.replacingQuotes() + "'"
  }

  private func summary(_ reports: [NodeReport], configuration: Configuration) -> String {
    let taken = reports.filter { $0.profile != nil }
    var text = "\(counted(reports.count, "input node")), \(taken.count) taken by a profile\n"
    let denied = reports.filter {
      if case .failure(let error) = $0.probed { return error.isPermissionDenied }
      return false
    }
    if !denied.isEmpty {
      text +=
        "hint: \(counted(denied.count, "node")) could not be read: run as root, or as a member of"
        + " the 'input' group (e.g. sudo gestured devices)\n"
    }
    text += twinsTakenWarning(reports)
    text += identicalPanelsHint(reports)
    return text
  }

  /// Two nodes of one panel both taken: each touch may be seen on both and fire twice.
  private func twinsTakenWarning(_ reports: [NodeReport]) -> String {
    let taken = reports.filter { $0.profile != nil }
    var text = ""
    var warned: Set<String> = []
    for report in taken where !warned.contains(report.node.syspath) {
      let twins = report.node.twins(in: taken.map(\.node)).map(\.node)
      guard !twins.isEmpty else { continue }
      let group = [report.node] + twins
      for node in group { warned.insert(node.syspath) }
      text +=
        "warning: \(group.map(\.devnode).joined(separator: " and ")) are one panel and all taken:"
        + " a touch may be seen on each and fire twice; narrow the profile's match (e.g. by name)\n"
    }
    return text
  }

  /// Two panels with the same name and ids take the same profile unless a `match` tells
  /// them apart; ID_PATH (the port) does.
  private func identicalPanelsHint(_ reports: [NodeReport]) -> String {
    var groups: [String: [NodeReport]] = [:]
    var order: [String] = []
    for report in reports {
      guard let device = report.device, device.touchProtocol != nil,
        report.node.isTouchscreen || report.profile != nil
      else { continue }
      let key = "\(device.name)\u{0}\(device.vendor)\u{0}\(device.product)"
      if groups[key] == nil { order.append(key) }
      groups[key, default: []].append(report)
    }
    var text = ""
    for key in order {
      guard let group = groups[key] else { continue }
      let paths = Set(group.compactMap(\.node.idPath))
      guard paths.count > 1, let name = group.first?.device?.name else { continue }
      text += "hint: identical panels \"\(name)\" at "
      text += group.map { "\($0.node.devnode)" }.joined(separator: ", ")
      text += ": to give them different profiles, match on the port, e.g.\n"
      for report in group {
        guard let path = report.node.idPath else { continue }
        text += "  match: { udev: { ID_PATH: \"\(path)\" } }    # \(report.node.devnode)\n"
      }
    }
    return text
  }

  // MARK: - Formatting helpers

  static func fileExists(_ path: String) -> Bool {
    var status = stat()
    return stat(path, &status) == 0 || errno != ENOENT
  }

  /// event2 before event10.
  static func sortKey(_ node: InputNode) -> (Int, String) {
    let digits = node.sysname.reversed().prefix { $0.isASCII && $0.isNumber }
    return (Int(String(digits.reversed())) ?? Int.max, node.devnode)
  }

  static func hex(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  /// BUS_* names from linux/input.h for the buses touchscreens come on.
  static func busName(_ bus: UInt16) -> String? {
    switch bus {
    case 0x01: "pci"
    case 0x03: "usb"
    case 0x05: "bluetooth"
    case 0x06: "virtual"
    case 0x11: "i8042"
    case 0x13: "rs232"
    case 0x18: "i2c"
    case 0x19: "host"
    case 0x1c: "spi"
    default: nil
    }
  }

  static func protocolName(_ touch: TouchProtocol) -> String {
    switch touch {
    case .multitouchB: "multitouch B (slots and tracking ids)"
    case .multitouchA: "multitouch A (anonymous contacts)"
    case .singleTouch(let button):
      button == KeyCode.btnLeft
        ? "single-touch, contact by BTN_LEFT" : "single-touch, contact by BTN_TOUCH"
    }
  }

  static func slotsText(_ touch: TouchProtocol) -> String {
    switch touch {
    case .multitouchB(let slots): String(slots)
    case .multitouchA: "none (protocol A)"
    case .singleTouch: "1"
    }
  }

  static func sizeSource(_ source: SizeSource) -> String {
    switch source {
    case .resolution: "from the axis resolution"
    case .configured: "from the profile's size:"
    case .guessed:
      "guessed: no resolution reported, the longer side is taken as"
        + " \(millimetres(PanelGeometry.guessedLongerSideMillimetres)) mm"
    }
  }

  /// One decimal, never exponent notation.
  static func millimetres(_ value: Double) -> String {
    guard value.isFinite, let tenths = Int64(exactly: (value * 10).rounded()) else { return "?" }
    let magnitude = tenths.magnitude
    return (tenths < 0 ? "-" : "") + "\(magnitude / 10).\(magnitude % 10)"
  }

  static func matrix(_ numbers: [Double]) -> String {
    "[" + numbers.map { DecimalText.fourDecimals($0) ?? "?" }.joined(separator: ", ") + "]"
  }
}

extension String {
  fileprivate func replacingQuotes() -> String {
    var result = ""
    for character in self {
      if character == "'" { result.append("'") }
      result.append(character)
    }
    return result
  }
}
