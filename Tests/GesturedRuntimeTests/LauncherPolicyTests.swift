import GestureCore
import GesturedConfig
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The launcher's own handling of what the recognizer says (`Launcher.received`) and of a
/// reload, with the channel's other end in the test's hand and the requests recorded
/// instead of run: no recognizer process and no action starts.
@Suite("The launcher's policy")
struct LauncherPolicyTests {
  let original = """
    devices:
      - name: entrance
        match: { name: "Entrance Panel" }
        bindings:
          - { name: help, gesture: tap, run: "show-help" }
          - { name: zoom, gesture: pinch, direction: out, step: 10%, run: "zoom-in" }

    """
  let changed = """
    devices:
      - name: entrance
        match: { name: "Entrance Panel" }
        bindings:
          - { name: help, gesture: tap, run: "show-help-v2" }

    """
  let forwarding = """
    devices:
      - name: entrance
        match: { name: "Entrance Panel" }
        forward: true
        bindings:
          - { name: help, gesture: tap, run: "show-help-v2" }

    """

  /// A launcher on `original` (not started), the recognizer's end of its channel, and what
  /// it ran and logged.
  final class Harness {
    let directory = TemporaryDirectory()
    let launcher: Launcher
    let recognizer: SeqPacketSocket
    let log = CapturedOutput()
    var requests: [ActionRunner.Request] = []

    init(config: String) throws {
      let path = directory.write("gestured.yaml", config)
      guard
        case .success(let launcher) = Launcher.make(
          options: Daemon.Options(configPath: path), errors: log, environment: [:])
      else {
        Issue.record("the launcher refused its config: \(log.text)")
        throw CancellationError()
      }
      self.launcher = launcher
      let (launcherEnd, recognizerEnd) = try SeqPacketSocket.pair()
      launcher.channel = launcherEnd
      recognizer = recognizerEnd
      launcher.runAction = { [unowned self] in self.requests.append($0) }
    }

    deinit {
      launcher.channel?.close()
      recognizer.close()
    }

    func rewrite(_ config: String) { directory.write("gestured.yaml", config) }

    /// What the launcher sent the recognizer, with how many descriptors came with each.
    func sent() throws -> [(ChannelMessage, descriptors: Int)] {
      var messages: [(ChannelMessage, descriptors: Int)] = []
      while case (.message(let bytes), let descriptors) = try recognizer.receive(
        maximumLength: ChannelMessage.maximumLength, maximumDescriptors: ChannelMessage.maximumPassedDescriptors)
      {
        for descriptor in descriptors { close(descriptor) }
        messages.append((try ChannelMessage.decode(bytes), descriptors.count))
      }
      return messages
    }
  }

  func tap(generation: UInt32 = 1, binding: Int = 0) -> ChannelMessage {
    .fired(
      ChannelFiring(
        generation: generation, profile: 0,
        event: GestureEvent(
          time: Timestamp(microseconds: 1_000_000), binding: binding, gesture: .tap, sequence: 1, fingers: 1,
          position: Point(x: 0.5, y: 0.5), region: nil),
        deviceName: "Entrance Panel", devnode: "/dev/input/event5"))
  }

  @Test func aFiringItsConfigBindsRunsTheLaunchersCommand() throws {
    let harness = try Harness(config: original)
    try harness.launcher.received(tap())
    #expect(harness.requests.map(\.command) == ["show-help"])
    #expect(harness.requests.first?.environment.variables["GESTURED_DEVICE"] == "Entrance Panel")
  }

  /// A wake-up takes one message: epoll reports the channel again while more wait, and a
  /// lone firing costs no receive that finds nothing. The liveness check takes them all.
  @Test func eachWakeUpTakesOneMessageAndTheLivenessCheckTakesAll() throws {
    let harness = try Harness(config: original)
    for _ in 0..<3 { try harness.recognizer.send(tap().encoded()) }
    harness.launcher.channelReadable()
    #expect(harness.requests.count == 1)
    harness.launcher.drainChannel()
    #expect(harness.requests.count == 3)
    #expect(harness.launcher.receiveFromRecognizer() == false)
  }

  @Test func aFiringThatDoesNotFitTheConfigRunsNothing() throws {
    let harness = try Harness(config: original)
    // Binding 1 is a pinch; binding 2 does not exist.
    #expect(throws: ChannelError.wrongProfile(profile: 0, binding: 1)) {
      try harness.launcher.received(tap(binding: 1))
    }
    #expect(throws: ChannelError.unknownBinding(profile: 0, binding: 2)) {
      try harness.launcher.received(tap(binding: 2))
    }
    #expect(harness.requests.isEmpty)
  }

  @Test func messagesOnlyTheLauncherSendsAreRefusedFromTheRecognizer() throws {
    let harness = try Harness(config: original)
    let hostile: [ChannelMessage] = [
      .reloadRequest(generation: 2, identity: ConfigIdentity(of: [])),
      .uinputDescriptors(generation: 2, count: 1),
    ]
    for message in hostile {
      #expect(throws: ChannelError.self) { try harness.launcher.received(message) }
    }
    #expect(harness.requests.isEmpty)
    #expect(harness.launcher.pending == nil)
  }

  @Test func aWakeRunsTheProfilesWake() throws {
    let waking = forwarding.replacing(
      "forward: true\n", with: "forward: true\n    wake: { after: 60s, run: \"screen-on\" }\n")
    let harness = try Harness(config: waking)
    try harness.launcher.received(
      .woke(
        ChannelWake(
          generation: 1, profile: 0, time: Timestamp(microseconds: 5), deviceName: "Entrance Panel",
          devnode: "/dev/input/event5")))
    #expect(harness.requests.map(\.command) == ["screen-on"])
  }

  @Test func anAgreedReloadMovesTheLauncherAndStaleFiringsRunNothing() throws {
    let harness = try Harness(config: original)
    harness.rewrite(changed)
    harness.launcher.reload()
    let sent = try harness.sent()
    #expect(sent.map(\.0) == [.reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(changed.utf8)))])
    // Until the recognizer agrees, the launcher stays on the old config.
    try harness.launcher.received(tap())
    #expect(harness.requests.map(\.command) == ["show-help"])

    try harness.launcher.received(.reloadAgreed(generation: 2))

    #expect(harness.launcher.generation == 2)
    #expect(harness.launcher.pending == nil)
    #expect(harness.launcher.configuration.profiles[0].bindings.count == 1)
    #expect(throws: ChannelError.staleConfig(generation: 1)) { try harness.launcher.received(tap()) }
    try harness.launcher.received(tap(generation: 2))
    #expect(harness.requests.map(\.command) == ["show-help", "show-help-v2"])
  }

  @Test func aRefusedReloadKeepsTheOldConfigOnTheLauncherToo() throws {
    let harness = try Harness(config: original)
    let before = harness.launcher.configuration
    harness.rewrite(changed)
    harness.launcher.reload()

    try harness.launcher.received(.reloadRefused(generation: 2, reason: .differentFile))

    #expect(harness.launcher.generation == 1)
    #expect(harness.launcher.pending == nil)
    #expect(harness.launcher.configuration == before)
    #expect(throws: ChannelError.staleConfig(generation: 2)) { try harness.launcher.received(tap(generation: 2)) }
    try harness.launcher.received(tap())
    #expect(harness.requests.map(\.command) == ["show-help"])
  }

  @Test func anAnswerToNoPendingReloadIsRefusedAndMovesNothing() throws {
    let harness = try Harness(config: original)
    #expect(throws: ChannelError.staleConfig(generation: 2)) {
      try harness.launcher.received(.reloadAgreed(generation: 2))
    }
    harness.rewrite(changed)
    harness.launcher.reload()
    // An agreement to another generation than the one asked.
    #expect(throws: ChannelError.staleConfig(generation: 3)) {
      try harness.launcher.received(.reloadAgreed(generation: 3))
    }
    #expect(harness.launcher.generation == 1)
    #expect(harness.launcher.pending?.generation == 2)
  }

  @Test func aConfigTheLauncherRefusesIsNeverOffered() throws {
    let harness = try Harness(config: original)
    harness.rewrite("bindings:\n  - { gesture: tap, rnu: x }\n")
    harness.launcher.reload()
    #expect(try harness.sent().isEmpty)
    #expect(harness.launcher.pending == nil)
    #expect(harness.log.text.contains("keeping the previous one"))
  }

  @Test func aSecondReloadWaitsForTheFirstsAnswer() throws {
    let harness = try Harness(config: original)
    harness.rewrite(changed)
    harness.launcher.reload()
    harness.launcher.reload()
    #expect(try harness.sent().count == 1)
    #expect(harness.log.text.contains("a reload is under way"))
  }

  /// The recognizer reads the file from the descriptor, not the path, which its own mount
  /// namespace may not show.
  @Test func aReloadRequestPassesTheConfigItAcceptedOpen() throws {
    let harness = try Harness(config: original)
    harness.rewrite(forwarding)
    harness.launcher.reload()
    let (received, descriptors) = try harness.recognizer.receive(
      maximumLength: ChannelMessage.maximumLength, maximumDescriptors: ChannelMessage.maximumPassedDescriptors)
    defer { for descriptor in descriptors { close(descriptor) } }
    guard case .message(let bytes) = received else {
      Issue.record("no request: \(received)")
      return
    }
    #expect(
      try ChannelMessage.decode(bytes)
        == .reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(forwarding.utf8))))
    try #require(descriptors.count == 1)
    #expect(
      try InputFile.read(openDescriptor: descriptors[0], path: "passed", maximumSize: 4096) == Array(forwarding.utf8))
  }

  @Test func aReloadThatForwardsForTheFirstTimePassesUinputDescriptorsWithTheRequest() throws {
    let harness = try Harness(config: original)
    var opened = 0
    harness.launcher.openUinput = { configuration in
      guard configuration.profiles.contains(where: \.forward) else { return [] }
      opened += 1
      return [open("/dev/null", O_RDWR | O_CLOEXEC), open("/dev/null", O_RDWR | O_CLOEXEC)]
    }
    harness.rewrite(forwarding)
    harness.launcher.reload()
    let sent = try harness.sent()
    #expect(sent.map(\.0).first == .uinputDescriptors(generation: 2, count: 2))
    // The uinput descriptors with their message, the config open with the request.
    #expect(sent.map(\.descriptors) == [2, 1])
    #expect(sent.map(\.0).last == .reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(forwarding.utf8))))
    // Refused: the recognizer closed them, and the next reload (the same generation again)
    // passes them again.
    try harness.launcher.received(.reloadRefused(generation: 2, reason: .invalid))
    #expect(!harness.launcher.recognizerHoldsUinput)
    harness.launcher.reload()
    #expect(try harness.sent().map(\.descriptors) == [2, 1])
    // Agreed: the recognizer holds them; later reloads pass none.
    try harness.launcher.received(.reloadAgreed(generation: 2))
    #expect(harness.launcher.recognizerHoldsUinput)
    harness.launcher.reload()
    #expect(try harness.sent().map(\.descriptors) == [1])
    #expect(opened == 2)
  }

  @Test func everyDatagramFromTheRecognizerIsASignOfLife() throws {
    let harness = try Harness(config: original)
    #expect(!harness.launcher.liveness.heardSinceCheck)
    // Even one the launcher refuses: the recognizer's loop turned to send it.
    try harness.recognizer.send([ChannelMessage.version, 99])
    harness.launcher.channelReadable()
    #expect(harness.launcher.liveness.heardSinceCheck)
    try harness.recognizer.send(ChannelMessage.alive.encoded())
    harness.launcher.channelReadable()
    #expect(harness.launcher.liveness.heardSinceCheck)
    #expect(harness.log.text.contains("refused a message from the recognizer: malformed message: unknown kind 99"))
    #expect(harness.requests.isEmpty)
  }
}
