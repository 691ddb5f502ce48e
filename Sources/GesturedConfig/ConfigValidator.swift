import GestureCore

/// Turns the YAML tree into a `Configuration`, reporting every problem it finds.
///
/// Each part is checked on its own and a broken part is left out, so one mistake does not
/// hide the next: the operator sees every error of the file in one `gestured check`.
struct ConfigValidator {
  var reader: ValueReader

  var diagnostics: [Diagnostic] { reader.diagnostics }

  init(file: String) { reader = ValueReader(file: file) }

  static let topLevelKeys = ["thresholds", "devices", "regions", "bindings", "max-devices"]
  /// `max-devices` above this would let the daemon run into its file descriptor limit.
  static let maximumMaxDevices = 1000
  static let deviceKeys = [
    "name", "match", "rotation", "size", "calibration", "thresholds", "simultaneous", "regions",
    "bindings", "grab", "forward", "forward-fingers", "wake", "environment", "user",
  ]
  /// `wake:`; `key` joins `run` once key actions exist (`wakeAction`).
  static let wakeKeys = ["after", "run", "key", "timeout", "cooldown", "environment", "user"]
  static let matchKeys = ["name", "vendor", "product", "udev", "virtual"]
  static let sizeKeys = ["width", "height"]
  static let regionKeys = ["name", "area", "independent"]
  static let areaKeys = ["x", "y", "width", "height"]
  static let bindingKeys = [
    "gesture", "taps", "fingers", "direction", "edge", "region", "step", "run", "key", "wheel", "hwheel",
    "end", "name", "timeout", "cooldown", "environment", "user",
  ]

  /// Largest magnitude of a calibration entry, and smallest of its determinant.
  static let maximumCalibrationEntry = 1000.0
  static let minimumCalibrationDeterminant = 1e-6

  // MARK: Top level

  /// What to recognize, and what each profile's bindings run (parallel to its profiles).
  mutating func configuration(root: YAMLNode?) -> (Configuration, [ProfileActions]) {
    guard let root else {
      reader.warning(
        at: reader.location(line: 1, column: 1),
        "the config is empty: no bindings, so nothing runs",
        hint: "add a 'bindings:' list")
      return (Configuration(), [ProfileActions()])
    }
    let top = Value(name: "the top level", key: nil, node: root)
    let fields = reader.fields(top, allowed: Self.topLevelKeys) { name in
      Self.deviceKeys.contains(name)
        ? "'\(name)' is a per-device setting: put it in an entry under 'devices:'" : nil
    }
    guard let fields else { return (Configuration(), [ProfileActions()]) }

    var global = Thresholds()
    if let value = fields["thresholds"] { global = thresholds(value, base: global) }
    var maximumDevices = Configuration.defaultMaximumDevices
    if let value = fields["max-devices"], let number = maxDevices(value) { maximumDevices = number }

    guard let devicesValue = fields["devices"] else {
      // The shorthand: top-level regions and bindings form the one default profile.
      var profile = Profile()
      var actions = ProfileActions()
      profile.thresholds = global
      profile.location = reader.location(of: root)
      fillRegionsAndBindings(
        &profile, &actions, regions: fields["regions"], bindings: fields["bindings"])
      if profile.bindings.isEmpty && !hasError {
        reader.warning(at: reader.location(of: root), ConfigRules.noBindings)
      }
      return (Configuration(profiles: [profile], maximumDevices: maximumDevices), [actions])
    }

    for name in ["regions", "bindings"] {
      guard let value = fields[name], let key = value.key else { continue }
      reader.error(
        at: reader.location(of: key), "top-level '\(name)' cannot be combined with 'devices:'",
        hint:
          "move '\(name)' into a device entry; an entry without 'match' covers every other touchscreen"
      )
    }
    if fields["regions"] != nil || fields["bindings"] != nil {
      // Still checked, so their own mistakes are reported in the same run.
      var ignored = Profile()
      var ignoredActions = ProfileActions()
      fillRegionsAndBindings(
        &ignored, &ignoredActions, regions: fields["regions"], bindings: fields["bindings"])
    }
    let entries = devices(devicesValue, global: global)
    return (
      Configuration(profiles: entries.map(\.profile), maximumDevices: maximumDevices), entries.map(\.actions)
    )
  }

  private mutating func maxDevices(_ value: Value) -> Int? {
    guard let number = reader.integer(value) else { return nil }
    guard number >= 1 && number <= Self.maximumMaxDevices else {
      reader.error(
        value, "'max-devices' must be 1 to \(Self.maximumMaxDevices), not \(number)",
        hint:
          "how many input devices gestured keeps open at once; the default is \(Configuration.defaultMaximumDevices)")
      return nil
    }
    return number
  }

  private var hasError: Bool { reader.errorCount > 0 }

  // MARK: Thresholds

  /// `base` with the keys given here replaced: how a device's thresholds override the
  /// global ones key by key.
  private mutating func thresholds(_ value: Value, base: Thresholds) -> Thresholds {
    var result = base
    guard let fields = reader.fields(value, allowed: Thresholds.keys) else { return result }
    for entry in fields.entries {
      switch entry.name {
      case "tap-slop": if let distance = reader.distance(entry) { result.tapSlop = distance }
      case "tap-max-duration": if let time = reader.duration(entry) { result.tapMaxDuration = time }
      case "multi-tap-gap": if let time = reader.duration(entry) { result.multiTapGap = time }
      case "multi-tap-distance":
        if let distance = reader.distance(entry) { result.multiTapDistance = distance }
      case "long-press": if let time = reader.duration(entry) { result.longPress = time }
      case "finger-landing": if let time = reader.duration(entry) { result.fingerLanding = time }
      case "swipe-min-distance":
        if let distance = reader.distance(entry) { result.swipeMinDistance = distance }
      case "swipe-max-duration":
        if let time = reader.duration(entry) { result.swipeMaxDuration = time }
      case "swipe-min-speed": if let speed = reader.speed(entry) { result.swipeMinSpeed = speed }
      case "swipe-angle":
        guard let angle = reader.angle(entry) else { continue }
        if let problem = ConfigRules.swipeAngle(angle) {
          reader.error(entry, problem)
          continue
        }
        result.swipeAngle = angle
      case "pinch-in":
        guard let scale = reader.number(entry) else { continue }
        if let problem = ConfigRules.pinchIn(scale) {
          reader.error(entry, problem)
          continue
        }
        result.pinchIn = scale
      case "pinch-out":
        guard let scale = reader.number(entry) else { continue }
        if let problem = ConfigRules.pinchOut(scale) {
          reader.error(entry, problem)
          continue
        }
        result.pinchOut = scale
      case "rotate-angle":
        guard let angle = reader.angle(entry) else { continue }
        if let problem = ConfigRules.rotateAngle(angle) {
          reader.error(entry, problem)
          continue
        }
        result.rotateAngle = angle
      case "edge-width": if let distance = reader.distance(entry) { result.edgeWidth = distance }
      case "stuck-contact": if let time = reader.duration(entry) { result.stuckContact = time }
      case "palm-size": if let size = reader.distance(entry, allowZero: true) { result.palmSize = size }
      default: break
      }
    }
    return result
  }

  // MARK: Devices

  private mutating func devices(_ value: Value, global: Thresholds) -> [(
    profile: Profile, actions: ProfileActions
  )] {
    guard let items = reader.list(value, itemName: "device entry") else { return [] }
    if items.isEmpty {
      reader.warning(
        at: reader.location(of: value), "'devices' is empty, so every touchscreen is ignored",
        hint: "add an entry; one without 'match' applies to every touchscreen")
    }
    var profiles: [(profile: Profile, actions: ProfileActions)] = []
    var firstDefault: Profile? = nil
    var namesSeen: [String: SourceLocation] = [:]
    var matchesSeen: [DeviceMatch: Profile] = [:]
    for item in items {
      guard let parsed = profile(item, global: global) else { continue }
      var profile = parsed.profile
      let here = reader.location(of: item.node)
      profile.location = here

      if let first = namesSeen[profile.name] {
        let location = parsed.nameValue.map { reader.location(of: $0) } ?? here
        reader.error(
          at: location, "profile name '\(profile.name)' is already used at line \(first.line)",
          hint: parsed.nameValue == nil
            ? "an entry without 'name' is called 'default'; give each entry its own 'name:'"
            : "profile names must be unique")
      } else {
        namesSeen[profile.name] = here
      }

      // Profiles are tried in order and the default takes every device, so whatever
      // follows it could never apply: an error rather than a silent dead entry.
      if let first = firstDefault, let line = first.location?.line {
        if profile.match == nil {
          reader.error(
            at: here,
            "a second default profile: '\(first.name)' at line \(line) has no 'match' either",
            hint: "give one of them a 'match:'; only one entry may apply to every touchscreen")
        } else {
          reader.error(
            at: here,
            "profile '\(profile.name)' can never match: the default profile '\(first.name)' at line \(line) comes first and takes every touchscreen",
            hint: "move the entry without 'match' to the end of 'devices:'")
        }
      } else if let match = profile.match {
        if let same = matchesSeen[match], let line = same.location?.line {
          reader.error(
            at: here,
            "profile '\(profile.name)' can never match: profile '\(same.name)' at line \(line) has the same match and comes first",
            hint: "merge the two entries or make one match narrower")
        }
        if parsed.matchIsValid, matchesSeen[match] == nil { matchesSeen[match] = profile }
      } else if parsed.matchIsValid {
        firstDefault = profile
      }

      if profile.bindings.isEmpty && parsed.bindingsAreValid {
        reader.warning(
          at: here, "profile '\(profile.name)' has no bindings, so its touchscreens fire nothing",
          hint: "add 'bindings:' to the entry")
      }
      profiles.append((profile, parsed.actions))
    }
    return profiles
  }

  private struct ParsedProfile {
    var profile: Profile
    var actions = ProfileActions()
    /// Where the `name:` value is, for duplicate-name errors.
    var nameValue: Value?
    /// False when `match:` was given but broken: then the entry is neither default nor matched.
    var matchIsValid: Bool
    var bindingsAreValid: Bool
  }

  private mutating func profile(_ item: Value, global: Thresholds) -> ParsedProfile? {
    guard let fields = reader.fields(item, allowed: Self.deviceKeys, emptyIsFine: false) else {
      return nil
    }
    var profile = Profile()
    var parsed = ParsedProfile(
      profile: profile, nameValue: nil, matchIsValid: true, bindingsAreValid: true)

    if let value = fields["name"], let name = reader.string(value) {
      profile.name = name
      parsed.nameValue = value
    }
    if let value = fields["match"] {
      if let match = deviceMatch(value) {
        profile.match = match
      } else {
        parsed.matchIsValid = false
        // Keeps the entry from counting as a default when its match is merely broken.
        profile.match = DeviceMatch(name: "")
      }
    }
    if let value = fields["rotation"], let degrees = reader.integer(value) {
      if let rotation = Rotation(rawValue: degrees) {
        profile.rotation = rotation
      } else {
        reader.error(
          value, "rotation \(degrees) is not a quarter turn", hint: "one of 0, 90, 180, 270")
      }
    }
    if let value = fields["size"] { profile.size = panelSize(value) }
    if let value = fields["calibration"] { profile.calibration = calibration(value) }
    profile.thresholds = fields["thresholds"].map { thresholds($0, base: global) } ?? global
    let group = fields["simultaneous"].flatMap { simultaneous($0) }
    let errorsBefore = errorCount
    var actions = ProfileActions()
    fillRegionsAndBindings(
      &profile, &actions, regions: fields["regions"], bindings: fields["bindings"])
    parsed.bindingsAreValid = errorCount == errorsBefore
    if let group {
      profile.simultaneous = group.kinds
      warnAboutGroup(group, bindings: profile.bindings)
    }
    let grabGiven = fields["grab"].flatMap { reader.bool($0) }
    if let grabGiven { profile.grab = grabGiven }
    if let value = fields["forward"], let forward = reader.bool(value), forward {
      profile.forward = true
      if let grabValue = fields["grab"], grabGiven == false {
        reader.error(
          grabValue, "'grab: false' contradicts 'forward: true', which grabs the touchscreen",
          hint: "remove 'grab': forward takes the panel and passes every other touch on through a clone")
      }
      profile.grab = true
    }
    if let value = fields["forward-fingers"] {
      if !profile.forward {
        reader.error(value, ConfigRules.needsForward("forward-fingers"))
      } else if let number = reader.integer(value) {
        if let problem = ConfigRules.forwardFingers(number) {
          reader.error(value, problem)
        } else {
          profile.forwardFingers = number
        }
      }
    }
    if let value = fields["wake"] {
      if !profile.forward {
        reader.error(value, ConfigRules.needsForward("wake"))
      } else if let (after, action) = wake(value) {
        profile.wakeAfter = after
        actions.wake = action
      }
    }
    if let value = fields["environment"], let environment = environment(value) {
      actions.environment = environment
    }
    if let value = fields["user"], let user = reader.string(value) { actions.user = user }

    parsed.profile = profile
    parsed.actions = actions
    return parsed
  }

  private var errorCount: Int { reader.errorCount }

  /// `wake: { after: 60s, run: … }`: how long untouched before a touch only wakes the
  /// panel, and what else it does then (nil action: nothing but not forwarding it).
  private mutating func wake(_ value: Value) -> (Microseconds, BindingAction?)? {
    guard let fields = reader.fields(value, allowed: Self.wakeKeys, emptyIsFine: false) else { return nil }
    guard let afterValue = fields["after"] else {
      reader.error(
        value, "'wake' needs 'after', how long the panel is untouched first", hint: "e.g. wake: { after: 60s }")
      return nil
    }
    guard let after = reader.duration(afterValue) else { return nil }
    guard let action = wakeAction(fields, of: value) else { return nil }
    return (after, action)
  }

  /// The action inside `wake:`, if any (`.some(nil)`: none; nil: an error was reported).
  private mutating func wakeAction(_ fields: Fields, of value: Value) -> BindingAction?? {
    guard fields["run"] != nil || fields["key"] != nil else {
      for name in ["timeout", "cooldown", "environment", "user"] {
        if let extra = fields[name] {
          reader.error(
            extra, "'\(name)' in 'wake' belongs to its 'run' or 'key'", hint: "add 'run' or 'key', or remove '\(name)'")
          return nil
        }
      }
      return .some(nil)
    }
    guard let firing = firingAction(in: fields, of: value, allowing: ["run", "key"]) else { return nil }
    var action = BindingAction(firing)
    if let entry = fields["timeout"], let time = reader.duration(entry) { action.timeout = time }
    if let entry = fields["cooldown"], let time = reader.duration(entry, allowZero: true) { action.cooldown = time }
    if let entry = fields["environment"], let variables = environment(entry) { action.environment = variables }
    if let entry = fields["user"], let user = reader.string(entry) { action.user = user }
    return .some(action)
  }

  private mutating func deviceMatch(_ value: Value) -> DeviceMatch? {
    guard let fields = reader.fields(value, allowed: Self.matchKeys) else { return nil }
    guard !fields.entries.isEmpty else {
      reader.error(
        value, "'match' is empty, so it would match every touchscreen",
        hint:
          "remove 'match' to make this the default profile, or give name, vendor, product, udev or virtual")
      return nil
    }
    var match = DeviceMatch()
    var valid = true
    if let entry = fields["name"] {
      if let glob = reader.string(entry) { match.name = glob } else { valid = false }
    }
    for key in ["vendor", "product"] {
      guard let entry = fields[key] else { continue }
      guard let number = reader.integer(entry) else {
        valid = false
        continue
      }
      guard let id = UInt16(exactly: number) else {
        reader.error(
          entry, "'\(key)' must be 0 to 0xffff, not \(number)",
          hint: "USB ids are 4 hex digits, e.g. 0x222a")
        valid = false
        continue
      }
      if key == "vendor" { match.vendor = id } else { match.product = id }
    }
    if let entry = fields["udev"] {
      if let properties = reader.stringMap(entry) { match.udev = properties } else { valid = false }
    }
    if let entry = fields["virtual"] {
      if let virtual = reader.bool(entry) { match.virtual = virtual } else { valid = false }
    }
    return valid ? match : nil
  }

  private mutating func panelSize(_ value: Value) -> PanelSize? {
    guard let fields = reader.fields(value, allowed: Self.sizeKeys, emptyIsFine: false) else {
      return nil
    }
    var millimetres: [Double] = []
    for key in Self.sizeKeys {
      guard let entry = fields[key] else {
        reader.error(
          value, "'size' needs both width and height; '\(key)' is missing",
          hint: "e.g. { width: 344mm, height: 194mm }")
        continue
      }
      if let distance = reader.distance(entry, allowPercent: false) {
        millimetres.append(distance.millimetres(diagonal: 0))
      }
    }
    guard millimetres.count == 2 else { return nil }
    return PanelSize(width: millimetres[0], height: millimetres[1])
  }

  private mutating func calibration(_ value: Value) -> [Double]? {
    guard let items = reader.list(value, itemName: "calibration value") else { return nil }
    guard items.count == 6 else {
      reader.error(
        value, "'calibration' needs 6 numbers, not \(items.count)",
        hint:
          "the first two rows of the matrix, as LIBINPUT_CALIBRATION_MATRIX: [1, 0, 0, 0, 1, 0] changes nothing"
      )
      return nil
    }
    var numbers: [Double] = []
    for item in items {
      guard let number = reader.number(item) else { continue }
      // Bounded entries keep every calibrated position (and the determinant) finite.
      guard abs(number) <= Self.maximumCalibrationEntry else {
        reader.error(
          item, "a calibration value must be -1000 to 1000, not \(Self.shortDecimal(number))",
          hint: "the matrix maps panel fractions to panel fractions; its entries are near 0 and 1")
        continue
      }
      numbers.append(number)
    }
    guard numbers.count == 6 else { return nil }
    // A (nearly) singular matrix maps the whole panel onto a line or a point.
    let determinant = numbers[0] * numbers[4] - numbers[1] * numbers[3]
    if !(abs(determinant) >= Self.minimumCalibrationDeterminant) {
      reader.error(
        value, "this calibration maps the whole panel onto a line (a*e - b*d is \(determinant))",
        hint: "a*e - b*d must be at least 0.000001 in magnitude; [1, 0, 0, 0, 1, 0] changes nothing")
      return nil
    }
    return numbers
  }

  /// The gestures that may step in one sequence: one group of two or three continuous
  /// kinds. Tap, long press and swipe are refused with the kind table's reason.
  private mutating func simultaneous(_ value: Value) -> (kinds: GestureKindSet, value: Value)? {
    guard let groups = reader.list(value, itemName: "simultaneous group") else { return nil }
    if !groups.isEmpty,
      groups.allSatisfy({ if case .scalar = $0.node.content { true } else { false } })
    {
      // `[pinch, rotate]`: one level of brackets short.
      reader.error(
        value, "'simultaneous' is a list of groups, each a list of gestures",
        hint: "write e.g. simultaneous: [[pan, pinch, rotate]]")
      return nil
    }
    if groups.count > 1 {
      reader.error(
        groups[1], "'simultaneous' takes one group per device entry",
        hint: "put every gesture that may share a sequence in one group, e.g. [[pan, pinch, rotate]]")
      return nil
    }
    guard let group = groups.first,
      let members = reader.list(group, itemName: "gesture")
    else { return nil }
    var kinds = GestureKindSet()
    var valid = true
    for member in members {
      guard let kind = reader.word(member, among: GestureKind.allCases, what: "a gesture") else {
        valid = false
        continue
      }
      if let problem = ConfigRules.groupMember(kind) {
        reader.error(member, problem)
        valid = false
      } else if kinds.contains(kind) {
        reader.error(member, ConfigRules.repeatedGroupMember(kind))
        valid = false
      } else {
        kinds.insert(kind)
      }
    }
    guard valid else { return nil }
    guard kinds.count >= 2 else {
      reader.error(group, ConfigRules.groupTooSmall)
      return nil
    }
    return (kinds, group)
  }

  /// Warns when no finger count lets two members of the group share a sequence.
  private mutating func warnAboutGroup(
    _ group: (kinds: GestureKindSet, value: Value), bindings: [Binding]
  ) {
    for warning in ConfigRules.groupFingers(group.kinds, bindings: bindings) {
      reader.warning(at: reader.location(of: group.value), warning)
    }
  }

  private mutating func environment(_ value: Value) -> [String: String]? {
    reader.stringMap(value) { name in
      name.isEmpty || name.contains("=") || name.contains("\0")
        ? "'\(name)' cannot be an environment variable name" : nil
    }
  }

  // MARK: Regions

  private mutating func fillRegionsAndBindings(
    _ profile: inout Profile, _ actions: inout ProfileActions, regions: Value?, bindings: Value?
  ) {
    if let regions { profile.regions = self.regions(regions) }
    if let bindings {
      let parsed = self.bindings(bindings, regions: profile.regions)
      profile.bindings = parsed.map(\.binding)
      actions.bindings = parsed.map(\.action)
    }
  }

  private mutating func regions(_ value: Value) -> [Region] {
    guard let items = reader.list(value, itemName: "region") else { return [] }
    var regions: [Region] = []
    var lines: [Int] = []
    var indexOfName: [String: Int] = [:]
    for item in items {
      // Every region is compared with those before it: the cap keeps that cheap.
      guard regions.count < ConfigRules.maximumRegions else {
        reader.error(item, ConfigRules.tooManyRegions)
        break
      }
      guard let fields = reader.fields(item, allowed: Self.regionKeys, emptyIsFine: false) else {
        continue
      }
      let area = fields["area"].map { self.area($0) } ?? .whole
      let independent = fields["independent"].flatMap { self.independent($0, area: fields["area"]) } ?? false
      guard let nameValue = fields["name"] else {
        reader.error(item, "a region needs a 'name'", hint: "bindings refer to regions by name")
        continue
      }
      guard let name = reader.string(nameValue) else { continue }
      if let index = indexOfName[name] {
        reader.error(nameValue, ConfigRules.repeatedRegion(name, line: lines[index]))
        continue
      }
      if let area, let index = regions.firstIndex(where: { ConfigRules.area($0.area, covers: area) }) {
        reader.warning(
          at: reader.location(of: item),
          ConfigRules.regionInside(name, outer: regions[index].name, line: lines[index]))
      }
      // A region with a broken area is still known by name, so bindings naming it do not
      // produce a second, misleading "unknown region" error.
      indexOfName[name] = regions.count
      regions.append(Region(name: name, area: area ?? .whole, independent: independent))
      lines.append(item.line)
    }
    return regions
  }

  /// `independent:`; only a region with an area of its own may be independent, since one
  /// covering the whole panel would take every touch from the panel's shared sequence.
  private mutating func independent(_ value: Value, area: Value?) -> Bool? {
    guard let independent = reader.bool(value) else { return nil }
    guard independent else { return false }
    guard let area, !area.node.isNull else {
      reader.error(value, ConfigRules.independentWithoutArea)
      return nil
    }
    return true
  }

  /// Fractions of the panel as the user sees it; all four keys are required so that an
  /// area always reads unambiguously.
  private mutating func area(_ value: Value) -> Area? {
    if value.node.isNull { return .whole }
    guard let fields = reader.fields(value, allowed: Self.areaKeys, emptyIsFine: false) else {
      return nil
    }
    let missing = Self.areaKeys.filter { fields[$0] == nil }
    if !missing.isEmpty {
      reader.error(
        value, "'area' needs x, y, width and height; missing: \(missing.joined(separator: ", "))",
        hint:
          "fractions of the panel, e.g. { x: 0, y: 0, width: 0.1, height: 0.1 }; leave out 'area' for the whole panel"
      )
    }
    var numbers: [String: Double] = [:]
    for key in Self.areaKeys {
      guard let entry = fields[key], let number = reader.number(entry) else { continue }
      if let problem = ConfigRules.areaValue(key, number) {
        reader.error(entry, problem)
        continue
      }
      numbers[key] = number
    }
    for (origin, size, edge) in [("x", "width", "right"), ("y", "height", "bottom")] {
      guard let start = numbers[origin], let length = numbers[size], let entry = fields[size] else {
        continue
      }
      if let problem = ConfigRules.areaReach(origin: origin, size: size, edge: edge, start: start, length: length) {
        reader.error(entry, problem)
        numbers[size] = nil
      }
    }
    guard let x = numbers["x"], let y = numbers["y"], let width = numbers["width"],
      let height = numbers["height"]
    else { return nil }
    return Area(x: x, y: y, width: width, height: height)
  }

  private static func shortDecimal(_ value: Double) -> String { ConfigRules.shortDecimal(value) }

  // MARK: Bindings

  /// What makes two bindings the same trigger; two equal ones in a profile are an error.
  private struct Trigger: Hashable {
    var gesture: GestureKind
    var taps: Int
    var fingers: Int
    var direction: Direction?
    var edge: Edge?
    var region: Int?
  }

  private mutating func bindings(_ value: Value, regions: [Region]) -> [(
    binding: Binding, action: BindingAction
  )] {
    guard let items = reader.list(value, itemName: "binding") else { return [] }
    var bindings: [(binding: Binding, action: BindingAction)] = []
    var triggers: [Trigger: Int] = [:]
    var names: [String: Int] = [:]
    for item in items {
      guard let (binding, action) = binding(item, regions: regions) else { continue }
      let trigger = Trigger(
        gesture: binding.gesture, taps: binding.taps, fingers: binding.fingers,
        direction: binding.direction,
        edge: binding.edge, region: binding.region)
      if let line = triggers[trigger] {
        reader.error(item, ConfigRules.repeatedTrigger(line: line))
        continue
      }
      triggers[trigger] = item.line
      if let name = binding.name {
        if let line = names[name] {
          reader.error(
            at: binding.location ?? reader.location(of: item),
            "binding name '\(name)' is already used at line \(line)",
            hint: "binding names must be unique within a profile")
          continue
        }
        names[name] = item.line
      }
      bindings.append((binding, action))
    }
    return bindings
  }

  private mutating func binding(_ item: Value, regions: [Region]) -> (Binding, BindingAction)? {
    guard let fields = reader.fields(item, allowed: Self.bindingKeys, emptyIsFine: false) else {
      return nil
    }
    let errorsBefore = errorCount

    var gesture: GestureKind? = nil
    if let value = fields["gesture"] {
      gesture = reader.word(value, among: GestureKind.allCases, what: "a gesture")
    } else {
      reader.error(
        item, "a binding needs a 'gesture'",
        hint: "one of \(GestureKind.allCases.map(\.rawValue).joined(separator: ", "))")
    }

    let firing = firingAction(in: fields, of: item)

    var taps = 1
    if let value = fields["taps"], let number = reader.integer(value) {
      if let gesture, !gesture.traits.takesTaps {
        reader.error(
          value, "'taps' applies only to tap, not to \(gesture.rawValue)", hint: "remove 'taps'")
      } else if let problem = ConfigRules.taps(number) {
        reader.error(value, problem)
      } else {
        taps = number
      }
    }

    var fingers: Int? = nil
    if let value = fields["fingers"], let number = reader.integer(value) {
      if let problem = ConfigRules.fingers(number, gesture: gesture) {
        reader.error(value, problem)
      } else {
        fingers = number
      }
    }

    let direction = bindingDirection(fields["direction"], gesture: gesture, item: item)

    var edge: Edge? = nil
    if let value = fields["edge"] {
      if let gesture, !gesture.traits.takesEdge {
        reader.error(
          value, "'edge' applies only to swipe, not to \(gesture.rawValue)", hint: "remove 'edge'")
      } else {
        edge = reader.word(value, among: Edge.allCases, what: "an edge")
      }
    }
    if let edge, let direction, let problem = ConfigRules.edgeSwipe(from: edge, moving: direction),
      let value = fields["edge"]
    {
      reader.warning(at: reader.location(of: value), problem)
    }

    var region: Int? = nil
    if let value = fields["region"], let name = reader.string(value) {
      region = regions.firstIndex { $0.name == name }
      if region == nil {
        let names = regions.map(\.name)
        let hint =
          names.isEmpty
          ? "this profile defines no regions; add a 'regions:' list"
          : Suggestions.closest(to: name, among: names).map { "did you mean '\($0)'?" }
            ?? "regions here: \(names.joined(separator: ", "))"
        reader.error(value, "unknown region '\(name)'", hint: hint)
      }
    }

    let step = self.step(fields["step"], gesture: gesture, item: item)
    if gesture == .longPress { pairHoldAndDrag(direction: fields["direction"], step: fields["step"]) }
    var end: String? = nil
    if let value = fields["end"] {
      if let gesture, Self.stepUnit(of: gesture) == nil {
        reader.error(
          value, "'end' applies only to step bindings, not to \(gesture.rawValue)",
          hint: "remove 'end'")
      } else if fields["step"] == nil {
        reader.error(
          value, "'end' needs 'step': it runs when a step binding's steps end",
          hint: "add a 'step:', or remove 'end'")
      } else {
        end = reader.string(value)
      }
    }

    var name: String? = nil
    if let value = fields["name"] { name = reader.string(value) }
    let timeout = fields["timeout"].flatMap { reader.duration($0) }
    let cooldown = fields["cooldown"].flatMap { reader.duration($0, allowZero: true) }
    let environment = fields["environment"].flatMap { self.environment($0) }
    let user = fields["user"].flatMap { reader.string($0) }

    if case .input? = firing, end == nil {
      // Key and wheel actions start no process: what only commands take would be ignored.
      for name in ["timeout", "environment", "user"] {
        guard let value = fields[name], let key = value.key else { continue }
        reader.warning(
          at: reader.location(of: key), "'\(name)' applies to commands; this binding runs none",
          hint: "remove '\(name)'")
      }
    }
    guard errorCount == errorsBefore, let gesture, let firing else { return nil }
    var binding = Binding(
      name: name, gesture: gesture, taps: taps, fingers: fingers, direction: direction, edge: edge,
      region: region, step: step)
    binding.location = reader.location(of: item)
    var action = BindingAction(firing, end: end)
    if let timeout { action.timeout = timeout }
    if let cooldown { action.cooldown = cooldown }
    if let environment { action.environment = environment }
    action.user = user
    return (binding, action)
  }

  /// A long press drags (steps) only with both `direction` and `step`; either alone is a
  /// half-written binding.
  private mutating func pairHoldAndDrag(direction: Value?, step: Value?) {
    switch (direction, step) {
    case (let direction?, nil): reader.error(direction, ConfigRules.holdAndDragWithoutStep)
    case (nil, let step?): reader.error(step, ConfigRules.holdAndDragWithoutDirection)
    default: break
    }
  }

  /// The directions a binding of `gesture` may name. Long press is spelled out here rather
  /// than read from the kind table: its directions are optional (hold and drag), which the
  /// table's "needs one of these" cannot say.
  static func directions(of gesture: GestureKind) -> [Direction] {
    gesture == .longPress ? ConfigRules.holdAndDragDirections : gesture.traits.directions
  }

  /// What `step:` of a binding of `gesture` is measured in; a long press's drag steps as a
  /// pan's.
  static func stepUnit(of gesture: GestureKind) -> StepUnit? {
    gesture == .longPress ? .millimetres : gesture.traits.stepUnit
  }

  /// Swipes, pans, pinches and rotations need a direction of their own kind (the kind
  /// table's); a long press may take one with a step; taps take none.
  private mutating func bindingDirection(_ value: Value?, gesture: GestureKind?, item: Value)
    -> Direction?
  {
    guard let gesture else {
      return value.flatMap { reader.word($0, among: Direction.allCases, what: "a direction") }
    }
    let allowed = Self.directions(of: gesture)
    if allowed.isEmpty {
      if let value {
        reader.error(
          value, "'direction' does not apply to \(gesture.rawValue)", hint: "remove 'direction'")
      }
      return nil
    }
    let names = allowed.map(\.rawValue).joined(separator: ", ")
    guard let value else {
      if gesture == .longPress { return nil }
      reader.error(
        item, "a \(gesture.rawValue) binding needs a 'direction'", hint: "one of \(names)")
      return nil
    }
    guard let text = reader.string(value) else { return nil }
    if let direction = allowed.first(where: { $0.rawValue == text }) { return direction }
    let hint =
      Suggestions.closest(to: text, among: allowed.map(\.rawValue)).map { "did you mean '\($0)'?" }
      ?? "one of \(names)"
    reader.error(value, "'\(text)' is not a \(gesture.rawValue) direction", hint: hint)
    return nil
  }

  /// `step:` in the unit of the gesture's kind (`10%` for pinch, `15deg` for rotate, `10mm`
  /// or `1cm` for pan), in that unit's range. Pan requires one.
  private mutating func step(_ value: Value?, gesture: GestureKind?, item: Value) -> Double? {
    guard let gesture else { return nil }
    guard let unit = Self.stepUnit(of: gesture) else {
      if let value {
        let kinds = GestureKind.allCases.filter { Self.stepUnit(of: $0) != nil }.map(\.rawValue)
          .joined(separator: ", ")
        reader.error(
          value, "'step' applies only to \(kinds), not to \(gesture.rawValue)", hint: "remove 'step'")
      }
      return nil
    }
    let example = Self.stepExample(unit)
    guard let value else {
      if gesture != .longPress && gesture.traits.stepRequired {
        reader.error(
          item, "a \(gesture.rawValue) binding needs a 'step'",
          hint: "how far the fingers move per step, e.g. step: \(example)")
      }
      return nil
    }
    guard let text = reader.string(value) else { return nil }
    let (number, suffix) = Units.split(text)
    guard DecimalText(number) != nil, let magnitude = Double(number), magnitude.isFinite else {
      reader.error(value, "'step': '\(text)' is not \(Self.stepNoun(unit))", hint: "write e.g. \(example)")
      return nil
    }
    let written: (StepUnit, Double)?
    switch suffix {
    case "%": written = (.percent, magnitude)
    case "deg", "°": written = (.degrees, magnitude)
    case "mm": written = (.millimetres, magnitude)
    case "cm": written = (.millimetres, magnitude * 10)
    case "":
      reader.error(value, "'step': '\(text)' needs a unit", hint: "write e.g. \(example)")
      return nil
    default: written = nil
    }
    guard let (writtenUnit, amount) = written else {
      reader.error(
        value, "'step': '\(text)' has an unknown unit '\(suffix)'",
        hint: "a \(gesture.rawValue) step is \(Self.stepNoun(unit)), e.g. \(example)")
      return nil
    }
    guard writtenUnit == unit else {
      reader.error(
        value,
        "'step: \(text)' is \(Self.stepNoun(writtenUnit)), but a \(gesture.rawValue) step is \(Self.stepNoun(unit))",
        hint: "write e.g. step: \(example)")
      return nil
    }
    if let problem = ConfigRules.step(amount, written: text, unit: unit) {
      reader.error(value, problem)
      return nil
    }
    return amount
  }

  private static func stepExample(_ unit: StepUnit) -> String { ConfigRules.stepExample(unit) }

  private static func stepNoun(_ unit: StepUnit) -> String {
    switch unit {
    case .percent: "a percentage"
    case .degrees: "an angle"
    case .millimetres: "a distance"
    }
  }
}
