import GestureCore
import GesturedConfig
import GesturedSystem
import Testing

@testable import GesturedRuntime

/// The launcher's own config: two profiles, the second with a step binding.
private let launcherConfigText = """
  devices:
    - name: entrance
      match: { name: "Entrance Panel" }
      forward: true
      wake: { after: 60s, run: "screen-on" }
      regions:
        - { name: help, area: { x: 0.8, y: 0.8, width: 0.2, height: 0.2 } }
      bindings:
        - { name: help, gesture: tap, region: help, run: "show-help" }
        - { name: next, gesture: swipe, direction: left, run: "next-page" }
    - name: counter
      bindings:
        - { name: zoom, gesture: pinch, direction: out, step: 10%, run: "zoom-in", end: "zoom-done" }
  """

@Suite("Channel between recognizer and launcher")
struct ChannelMessageTests {
  let loaded = ConfigLoader.parse(launcherConfigText, file: "launcher.yaml")

  var configuration: Configuration { loaded.configuration! }

  func tap(binding: Int = 0, region: Int? = 0) -> GestureEvent {
    GestureEvent(
      time: Timestamp(microseconds: 1_500_000), binding: binding, gesture: .tap, sequence: 3, fingers: 1,
      position: Point(x: 0.9, y: 0.9), region: region)
  }

  func firing(
    profile: Int = 0, event: GestureEvent? = nil, generation: UInt32 = 1, deviceName: String = "Entrance Panel",
    devnode: String = "/dev/input/event5"
  ) -> ChannelFiring {
    ChannelFiring(
      generation: generation, profile: profile, event: event ?? tap(), deviceName: deviceName, devnode: devnode)
  }

  /// What the launcher does with a datagram: decode, check against its config, look the
  /// command up in its own binding table. nil: nothing runs.
  func launcherRequest(for bytes: [UInt8]) -> Result<ActionRunner.Request?, ChannelError> {
    do {
      guard case .fired(let firing) = try ChannelMessage.decode(bytes) else { return .success(nil) }
      try firing.check(against: configuration, generation: 1)
      let table = BindingTable(
        profile: configuration.profiles[firing.profile], profileIndex: firing.profile,
        actions: loaded.actions[firing.profile], devnode: firing.devnode, deviceName: firing.deviceName,
        daemonPath: "/usr/bin:/bin", daemonIsRoot: true)
      return .success(table.firing(for: firing.event).flatMap { table.request(for: $0) })
    } catch {
      return .failure(error)
    }
  }

  func error(of bytes: [UInt8]) -> ChannelError? {
    if case .failure(let error) = launcherRequest(for: bytes) { return error }
    return nil
  }

  @Test func everyMessageComesBackAsItWasSent() throws {
    let pinch = GestureEvent(
      time: Timestamp(microseconds: 9), binding: 0, gesture: .pinch, phase: .end(steps: 4), sequence: 12,
      fingers: 2, direction: .out, scale: 1.7, position: Point(x: 0.25, y: 0.5), region: nil, endReason: .lift)
    let messages: [ChannelMessage] = [
      .fired(firing()),
      .fired(firing(profile: 1, event: pinch, deviceName: "ILITEK “TP” ünïcode")),
      .woke(
        ChannelWake(
          generation: 3, profile: 0, time: Timestamp(microseconds: 77), deviceName: "Panel",
          devnode: "/dev/input/event2")),
      .streamEnd(.stopping), .streamEnd(.failed),
      .ready(generation: 7, devices: 2),
      .reloadRequest(generation: 8, identity: ConfigIdentity(of: Array("bindings: []".utf8))),
      .reloadAgreed(generation: 8),
      .reloadRefused(generation: 8, reason: .differentFile),
      .alive,
      .uinputDescriptors(generation: 9, count: ChannelMessage.maximumPassedDescriptors),
    ]
    for message in messages {
      #expect(try ChannelMessage.decode(message.encoded()) == message)
    }
  }

  @Test func numbersAreSentLeastSignificantByteFirstAndStringsWithTheirLength() {
    #expect(
      ChannelMessage.reloadAgreed(generation: 0x0102_0304).encoded() == [
        ChannelMessage.version, ChannelMessage.Kind.reloadAgreed.rawValue, ChannelMessage.FieldType.unsigned.rawValue,
        4, 3, 2, 1, 0, 0, 0, 0,
      ])
    let wake = ChannelMessage.woke(
      ChannelWake(generation: 1, profile: 0, time: Timestamp(microseconds: 2), deviceName: "Pü", devnode: "/dev/x"))
    #expect(
      wake.encoded().suffix(15) == [ChannelMessage.FieldType.string.rawValue, 3, 0, 0x50, 0xC3, 0xBC]
        + [ChannelMessage.FieldType.string.rawValue, 6, 0] + Array("/dev/x".utf8))
  }

  @Test func aValidFiringRunsTheLaunchersCommandWithTheStringsOnlyInTheEnvironment() throws {
    let name = "Panel; rm -rf / $(reboot)"
    let bytes = ChannelMessage.fired(firing(deviceName: name)).encoded()
    let request = try #require(try launcherRequest(for: bytes).get())
    #expect(request.command == "show-help")
    #expect(request.environment.variables["GESTURED_DEVICE"] == name)
    #expect(!request.command.contains(name))
  }

  @Test func anUnknownBindingRunsNothing() {
    let bytes = ChannelMessage.fired(firing(event: tap(binding: 2))).encoded()
    #expect(error(of: bytes) == .unknownBinding(profile: 0, binding: 2))
  }

  @Test func anUnknownRegionRunsNothing() {
    let bytes = ChannelMessage.fired(firing(event: tap(region: 1))).encoded()
    #expect(error(of: bytes) == .unknownBinding(profile: 0, binding: 0))
  }

  @Test func aBindingOfAnotherProfileRunsNothing() {
    // Binding 0 exists in profile 1 too, but is a pinch there: the tap does not fit it.
    #expect(error(of: ChannelMessage.fired(firing(profile: 1)).encoded()) == .wrongProfile(profile: 1, binding: 0))
    // A profile the launcher's config does not have.
    #expect(error(of: ChannelMessage.fired(firing(profile: 2)).encoded()) == .wrongProfile(profile: 2, binding: 0))
    // Steps of a one-shot binding.
    var step = tap()
    step.phase = .step(1)
    #expect(error(of: ChannelMessage.fired(firing(event: step)).encoded()) == .wrongProfile(profile: 0, binding: 0))
  }

  @Test func aFiringOfAnotherConfigRunsNothing() {
    #expect(error(of: ChannelMessage.fired(firing(generation: 2)).encoded()) == .staleConfig(generation: 2))
  }

  @Test func aStringWhereANumberBelongsIsAWrongType() {
    var bytes = ChannelMessage.fired(firing()).encoded()
    // The profile field (after version, kind and the generation's 9 bytes): a string "0".
    let profileField = 2 + 9
    bytes.replaceSubrange(profileField..<profileField + 9, with: [4, 1, 0, UInt8(ascii: "0")])
    #expect(error(of: bytes) == .wrongType("profile"))
  }

  @Test func aNumberWhereAStringBelongsIsAWrongType() {
    var writer = ChannelWriter()
    writer.kind(.fired)
    let valid = ChannelMessage.fired(firing()).encoded()
    // Every field up to the device name as sent, then a number in its place.
    let deviceNameStart = valid.count - (3 + "Entrance Panel".utf8.count) - (3 + "/dev/input/event5".utf8.count)
    writer.bytes = Array(valid[..<deviceNameStart])
    writer.signed(0)
    writer.string("/dev/input/event5")
    #expect(error(of: writer.bytes) == .wrongType("device name"))
  }

  @Test func oversizedMessagesAndStringsAreRefused() {
    #expect(error(of: [UInt8](repeating: 1, count: ChannelMessage.maximumLength + 1)) == .oversized("1025 bytes"))
    let longName = String(repeating: "x", count: ChannelMessage.maximumDeviceNameLength + 1)
    #expect(
      error(of: ChannelMessage.fired(firing(deviceName: longName)).encoded()) == .oversized("device name of 256 bytes"))
  }

  @Test func malformedMessagesAreRefused() {
    let valid = ChannelMessage.fired(firing()).encoded()
    let hostile: [[UInt8]] = [
      [],
      [ChannelMessage.version],
      [2, 1],  // another version
      [ChannelMessage.version, 99],  // unknown kind
      Array(valid.dropLast()),  // truncated
      valid + [0],  // trailing
      ChannelMessage.alive.encoded() + [ChannelMessage.FieldType.absent.rawValue],  // a keep-alive has no fields
      ChannelMessage.uinputDescriptors(generation: 2, count: 0).encoded(),
      ChannelMessage.uinputDescriptors(generation: 2, count: ChannelMessage.maximumPassedDescriptors + 1).encoded(),
      ChannelMessage.fired(firing(deviceName: "x\nforged log line")).encoded(),
      ChannelMessage.fired(firing(deviceName: "nul\u{0}inside")).encoded(),
      ChannelMessage.fired(firing(deviceName: "")).encoded(),
      ChannelMessage.fired(firing(devnode: "event5")).encoded(),
      ChannelMessage.fired(firing(devnode: "/dev/input/../../etc/shadow")).encoded(),
      ChannelMessage.fired(firing(devnode: "/dev/input/..")).encoded(),
    ]
    for bytes in hostile {
      guard case .malformed? = error(of: bytes) else {
        Issue.record("accepted or misjudged: \(bytes)")
        continue
      }
    }
  }

  @Test func aReceiverThatKeepsTheLastDevicesNamesReusesThemAndChecksEveryOtherDevice() throws {
    var names: ChannelMessage.DeviceNames? = nil
    let first = try ChannelMessage.decode(ChannelMessage.fired(firing()).encoded(), reusing: &names)
    #expect(first == .fired(firing()))
    #expect(names?.devnode == "/dev/input/event5" && names?.deviceName == "Entrance Panel")
    let again = try ChannelMessage.decode(ChannelMessage.fired(firing()).encoded(), reusing: &names)
    #expect(again == first)
    let other = firing(deviceName: "Counter", devnode: "/dev/input/event6")
    #expect(try ChannelMessage.decode(ChannelMessage.fired(other).encoded(), reusing: &names) == .fired(other))
    #expect(names?.devnode == "/dev/input/event6" && names?.deviceName == "Counter")
    // A devnode one byte off the kept one is checked as any other.
    let climbing = firing(deviceName: "Counter", devnode: "/dev/input/..")
    #expect(throws: ChannelError.malformed("devnode")) {
      try ChannelMessage.decode(ChannelMessage.fired(climbing).encoded(), reusing: &names)
    }
    #expect(names?.devnode == "/dev/input/event6")
  }

  @Test func aDevnodeWithAParentComponentIsFoundByItsBytes() {
    #expect(ChannelMessage.hasParentComponent("/dev/input/../event5"))
    #expect(ChannelMessage.hasParentComponent("/dev/.."))
    #expect(ChannelMessage.hasParentComponent("../dev"))
    #expect(!ChannelMessage.hasParentComponent("/dev/input/event5"))
    #expect(!ChannelMessage.hasParentComponent("/dev/input/..event5"))
    #expect(!ChannelMessage.hasParentComponent("/dev/input/.../event5"))
    #expect(!ChannelMessage.hasParentComponent("/dev/a./.b"))
  }

  @Test func numbersOutOfRangeAreMalformed() {
    var nan = tap()
    nan.position = Point(x: .nan, y: 0)
    var negativeFingers = tap()
    negativeFingers.fingers = -1
    var endWithoutReason = tap()
    endWithoutReason.phase = .end(steps: 1)
    for event in [nan, negativeFingers, endWithoutReason] {
      guard case .malformed? = error(of: ChannelMessage.fired(firing(event: event)).encoded()) else {
        Issue.record("accepted: \(event)")
        continue
      }
    }
    // Invalid UTF-8 in a string.
    var bytes = ChannelMessage.fired(firing(deviceName: "ab")).encoded()
    let at = bytes.count - (3 + "/dev/input/event5".utf8.count) - 2
    bytes[at] = 0xFF
    #expect(error(of: bytes) == .malformed("device name is not UTF-8"))
  }

  @Test func anEndRunsTheBindingsEndAndAStepItsRun() throws {
    var end = GestureEvent(
      time: Timestamp(microseconds: 1), binding: 0, gesture: .pinch, phase: .end(steps: 2), sequence: 1,
      fingers: 2, direction: .out, position: Point(x: 0.5, y: 0.5), region: nil, endReason: .cancel)
    let endRequest = try #require(
      try launcherRequest(for: ChannelMessage.fired(firing(profile: 1, event: end)).encoded()).get())
    #expect(endRequest.command == "zoom-done")
    end.phase = .step(3)
    end.endReason = nil
    end.scale = 1.3
    let stepRequest = try #require(
      try launcherRequest(for: ChannelMessage.fired(firing(profile: 1, event: end)).encoded()).get())
    #expect(stepRequest.command == "zoom-in")
  }

  @Test func everyFuzzSeedOfTheChannelIsAMessage() throws {
    let directory = packageRoot + "/Tests/Fuzz/Seeds/channel"
    let names = try #require(directoryEntries(directory)).filter { !$0.hasPrefix(".") }
    #expect(names.contains("alive") && names.contains("uinput-descriptors"))
    for name in names {
      let bytes = try InputFile.read(path: directory + "/" + name, maximumSize: ChannelMessage.maximumLength)
      #expect(throws: Never.self, "\(name)") { try ChannelMessage.decode(bytes) }
    }
  }

  @Test func oneMessagePassesTheRecognizersWholePool() {
    #expect(ChannelMessage.maximumPassedDescriptors == Daemon.maximumPooledUinputDescriptors)
  }

  @Test func theConfigIdentityNoticesAChangedFile() {
    let old = ConfigIdentity(of: Array("bindings: [{ gesture: tap, run: a }]".utf8))
    #expect(old == ConfigIdentity(of: Array("bindings: [{ gesture: tap, run: a }]".utf8)))
    #expect(old != ConfigIdentity(of: Array("bindings: [{ gesture: tap, run: b }]".utf8)))
  }

  @Test func theRecognizerSendsDeviceNamesTheLauncherAccepts() throws {
    let hostile = "x\n<3>forged" + String(repeating: "é", count: 200)
    let name = ChannelFiring.sendable(hostile, maximumLength: ChannelMessage.maximumDeviceNameLength)
    #expect(name.hasPrefix("x\\n<3>forged"))
    #expect(name.utf8.count <= ChannelMessage.maximumDeviceNameLength)
    let bytes = ChannelMessage.fired(firing(deviceName: name)).encoded()
    #expect(try launcherRequest(for: bytes).get()?.environment.variables["GESTURED_DEVICE"] == name)
    #expect(ChannelFiring.sendable("", maximumLength: 8) == "?")
  }

  @Test func theRecognizerSubcommandTakesOnlyWhatTheLauncherWrites() {
    let parsed = Invocation.parse(["__recognizer", "--config", "/etc/g.yaml", "--config-identity", "12:34"])
    guard case .recognizer(let options) = parsed else {
      Issue.record("not the recognizer: \(parsed)")
      return
    }
    #expect(options.configPath == "/etc/g.yaml")
    #expect(options.expectedIdentity == ConfigIdentity(length: 12, hash: 34))
    for arguments in [["__recognizer"], ["__recognizer", "--config-identity", "12"], ["__recognizer", "--pretty"]] {
      guard case .usageError = Invocation.parse(arguments) else {
        Issue.record("accepted: \(arguments)")
        continue
      }
    }
  }

  @Test func aWakeRunsOnlyForAProfileOfTheLaunchersThatWakes() throws {
    func checked(profile: Int, generation: UInt32 = 1) throws(ChannelError) -> ChannelWake {
      let wake = ChannelWake(
        generation: generation, profile: profile, time: Timestamp(microseconds: 5), deviceName: "Entrance Panel",
        devnode: "/dev/input/event5")
      guard case .woke(let received) = try ChannelMessage.decode(ChannelMessage.woke(wake).encoded()) else {
        throw .malformed("not a wake")
      }
      return try received.validated(
        profileCount: configuration.profiles.count, hasWake: { loaded.actions[$0].wake != nil }, generation: 1)
    }
    #expect(try checked(profile: 0).profile == 0)
    #expect(loaded.actions[0].wake?.run == "screen-on")
    #expect(throws: ChannelError.wrongProfile(profile: 1, binding: -1)) { try checked(profile: 1) }
    #expect(throws: ChannelError.wrongProfile(profile: 2, binding: -1)) { try checked(profile: 2) }
    #expect(throws: ChannelError.staleConfig(generation: 4)) { try checked(profile: 0, generation: 4) }
  }
}
