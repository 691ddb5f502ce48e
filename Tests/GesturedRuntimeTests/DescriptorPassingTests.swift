import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// /dev/uinput descriptors the launcher passes over the channel (SCM_RIGHTS) on a reload
/// that makes a profile forward; a pipe stands for /dev/uinput: whether its read end sees
/// the end shows whether a passed write end is still open somewhere.
@Suite("Descriptors passed over the channel", .serialized)
struct DescriptorPassingTests {
  /// A pipe whose read end does not block.
  func pipe() throws -> PipeEnds {
    let ends = try PipeEnds()
    _ = fcntl(ends.read, F_SETFL, O_NONBLOCK)
    return ends
  }

  /// 0: every write end is closed; -1 (EAGAIN): one is open and nothing was written. A
  /// process another suite spawns at that moment holds copies of this process's descriptors
  /// until its exec closes them: the end is waited for, a little, unless the test expects
  /// a write end open.
  func readEnd(_ descriptor: Int32, waitingForTheEnd: Bool = true) -> Int {
    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    if waitingForTheEnd { _ = poll(&ready, 1, 2000) }
    var byte: UInt8 = 0
    return read(descriptor, &byte, 1)
  }

  @Test func aDescriptorArrivesWithItsMessageCloseOnExecAndWorks() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    defer {
      launcher.close()
      recognizer.close()
    }
    let ends = try pipe()
    defer { close(ends.read) }
    let message = ChannelMessage.uinputDescriptors(generation: 2, count: 1).encoded()
    try launcher.send(message, passing: [ends.write])
    close(ends.write)
    let (received, descriptors) = try recognizer.receive(
      maximumLength: ChannelMessage.maximumLength, maximumDescriptors: 4)
    #expect(received == .message(message))
    try #require(descriptors.count == 1)
    #expect(fcntl(descriptors[0], F_GETFD) & FD_CLOEXEC != 0)
    var byte: UInt8 = 7
    #expect(write(descriptors[0], &byte, 1) == 1)
    byte = 0
    #expect(read(ends.read, &byte, 1) == 1 && byte == 7)
    close(descriptors[0])
    #expect(readEnd(ends.read) == 0)
  }

  @Test func moreDescriptorsThanThereIsRoomForBringNoneAndAreClosed() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    defer {
      launcher.close()
      recognizer.close()
    }
    let ends = try pipe()
    defer { close(ends.read) }
    try launcher.send([1, 9], passing: [ends.write, ends.write, ends.write])
    close(ends.write)
    let (received, descriptors) = try recognizer.receive(maximumLength: 8, maximumDescriptors: 2)
    #expect(received == .message([1, 9]))
    #expect(descriptors.isEmpty)
    #expect(readEnd(ends.read) == 0)
  }

  @Test func theDescriptorsOfAnOversizedMessageAreClosed() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    defer {
      launcher.close()
      recognizer.close()
    }
    let ends = try pipe()
    defer { close(ends.read) }
    try launcher.send([UInt8](repeating: 1, count: 20), passing: [ends.write])
    close(ends.write)
    let (received, descriptors) = try recognizer.receive(maximumLength: 8, maximumDescriptors: 2)
    #expect(received == .oversized(length: 20))
    #expect(descriptors.isEmpty)
    #expect(readEnd(ends.read) == 0)
  }

  @Test func aMessageWithoutDescriptorsReadsAsBefore() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    defer { recognizer.close() }
    try launcher.send([1, 8])
    let (received, descriptors) = try recognizer.receive(maximumLength: 8, maximumDescriptors: 2)
    #expect(received == .message([1, 8]) && descriptors.isEmpty)
    #expect(try recognizer.receive(maximumLength: 8, maximumDescriptors: 2).0 == SeqPacketSocket.Received.none)
    launcher.close()
    recognizer.waitForThePeersEnd()
    #expect(try recognizer.receive(maximumLength: 8, maximumDescriptors: 2).0 == .closed)
  }

  // MARK: The recognizer's side of a reload

  let plain = configText(bindings: ["{ gesture: tap, run: 'true' }"])
  let forwarding = """
    devices:
      - name: panel
        match: { name: "Test Panel" }
        forward: true
        bindings:
          - { gesture: tap, run: 'true' }
    """

  /// A recognizer on `plain`, its channel's other end, and where its log goes;
  /// `configDescriptor` (given the config's path) hands it the config open, as the launcher does.
  func recognizer(
    _ directory: TemporaryDirectory, configDescriptor: ((String) -> Int32)? = nil
  ) throws -> (Daemon, SeqPacketSocket, CapturedOutput) {
    let path = directory.write("gestured.yaml", plain)
    var options = Daemon.Options(configPath: path)
    options.expectedIdentity = ConfigIdentity(of: Array(plain.utf8))
    options.configDescriptor = configDescriptor?(path)
    let log = CapturedOutput()
    guard
      case .success(let daemon) = Daemon.make(
        mode: .recognizer, options: options, output: CapturedOutput(), errors: log, environment: [:])
    else {
      Issue.record("the recognizer did not start: \(log.text)")
      throw CancellationError()
    }
    let (launcher, recognizerEnd) = try SeqPacketSocket.pair()
    daemon.channel = recognizerEnd
    return (daemon, launcher, log)
  }

  /// What the launcher reads from the recognizer.
  func answers(_ launcher: SeqPacketSocket) throws -> [ChannelMessage] {
    var messages: [ChannelMessage] = []
    while case .message(let bytes) = try launcher.receive(maximumLength: ChannelMessage.maximumLength) {
      messages.append(try ChannelMessage.decode(bytes))
    }
    return messages
  }

  @Test func theRecognizerPoolsThePassedDescriptorsWhenItAgrees() throws {
    defer { UinputPool.reset() }
    let directory = TemporaryDirectory()
    let (daemon, launcher, log) = try recognizer(directory)
    defer {
      launcher.close()
      daemon.channel?.close()
    }
    directory.write("gestured.yaml", forwarding)
    let ends = try pipe()
    defer { close(ends.read) }
    try launcher.send(ChannelMessage.uinputDescriptors(generation: 2, count: 1).encoded(), passing: [ends.write])
    close(ends.write)
    try launcher.send(
      ChannelMessage.reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(forwarding.utf8))).encoded())

    daemon.channelReadable()

    #expect(try answers(launcher).first == .reloadAgreed(generation: 2), "log: \(log.text)")
    #expect(daemon.configuration.profiles[0].forward)
    // The pool keeps it open.
    #expect(readEnd(ends.read, waitingForTheEnd: false) == -1)
    UinputPool.reset()
    #expect(readEnd(ends.read) == 0)
  }

  @Test func theRecognizerClosesThePassedDescriptorsWhenItRefuses() throws {
    let directory = TemporaryDirectory()
    let (daemon, launcher, _) = try recognizer(directory)
    defer {
      launcher.close()
      daemon.channel?.close()
    }
    // The launcher read other bytes than the file now holds.
    directory.write("gestured.yaml", forwarding)
    let ends = try pipe()
    defer { close(ends.read) }
    try launcher.send(ChannelMessage.uinputDescriptors(generation: 2, count: 1).encoded(), passing: [ends.write])
    close(ends.write)
    try launcher.send(
      ChannelMessage.reloadRequest(generation: 2, identity: ConfigIdentity(of: Array("other".utf8))).encoded())

    daemon.channelReadable()

    #expect(try answers(launcher) == [.reloadRefused(generation: 2, reason: .differentFile)])
    #expect(!daemon.configuration.profiles[0].forward)
    #expect(readEnd(ends.read) == 0)
  }

  // MARK: The config, passed open

  /// The recognizer's own mount namespace and user may not reach the config's path (/tmp, a
  /// home, a directory only root enters): it reads the file the launcher passed open, at
  /// its start (descriptor 4) and with each reload request.
  @Test func theRecognizerReadsTheConfigItWasPassedOpenWhereThePathIsGone() throws {
    defer { UinputPool.reset() }
    let directory = TemporaryDirectory()
    var passed: Int32 = -1
    let (daemon, launcher, log) = try recognizer(directory) { path in
      passed = open(path, O_RDONLY | O_CLOEXEC)
      // Read from another offset than the start: the file is read whole all the same.
      _ = lseek(passed, 5, SEEK_SET)
      unlink(path)
      return passed
    }
    defer {
      launcher.close()
      daemon.channel?.close()
    }
    // Closed once read (its number may already serve the channel: it is no longer the file).
    var status = stat()
    #expect(passed >= 0 && (fstat(passed, &status) != 0 || status.st_mode & S_IFMT != S_IFREG))

    let replacement = directory.write("other-name.yaml", forwarding)
    let reloaded = open(replacement, O_RDONLY | O_CLOEXEC)
    unlink(replacement)
    try launcher.send(
      ChannelMessage.reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(forwarding.utf8))).encoded(),
      passing: [reloaded])
    close(reloaded)
    daemon.channelReadable()

    #expect(try answers(launcher).first == .reloadAgreed(generation: 2), "log: \(log.text)")
    #expect(daemon.configuration.profiles[0].forward)
  }

  @Test func aReloadWhosePassedConfigDiffersFromTheLaunchersIsRefused() throws {
    let directory = TemporaryDirectory()
    let (daemon, launcher, log) = try recognizer(directory)
    defer {
      launcher.close()
      daemon.channel?.close()
    }
    let other = directory.write("other.yaml", forwarding)
    let passed = open(other, O_RDONLY | O_CLOEXEC)
    try launcher.send(
      ChannelMessage.reloadRequest(generation: 2, identity: ConfigIdentity(of: Array(plain.utf8))).encoded(),
      passing: [passed])
    close(passed)
    daemon.channelReadable()

    #expect(try answers(launcher) == [.reloadRefused(generation: 2, reason: .differentFile)], "log: \(log.text)")
    #expect(!daemon.configuration.profiles[0].forward)
  }

  @Test func descriptorsWithAnotherMessageOrAWrongCountAreClosed() throws {
    let directory = TemporaryDirectory()
    let (daemon, launcher, log) = try recognizer(directory)
    defer {
      launcher.close()
      daemon.channel?.close()
    }
    let ends = try pipe()
    defer { close(ends.read) }
    try launcher.send(ChannelMessage.alive.encoded(), passing: [ends.write])
    try launcher.send(ChannelMessage.uinputDescriptors(generation: 2, count: 2).encoded(), passing: [ends.write])
    close(ends.write)

    daemon.channelReadable()

    #expect(readEnd(ends.read) == 0)
    #expect(daemon.pendingUinput == nil)
    #expect(log.text.contains("announced 2 /dev/uinput descriptors and passed 1"))
  }
}
