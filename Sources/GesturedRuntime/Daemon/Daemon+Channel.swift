import GestureCore
import GesturedConfig
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// The recognizer's side of the channel to the root launcher (Launcher.swift): firings go
/// out, reload requests come in.
extension Daemon {
  /// Checks that nothing privileged is left, then watches the channel the launcher handed
  /// over as descriptor 3.
  func openChannel() throws(SystemError) {
    guard geteuid() != 0, Confinement.holdsNoCapability() else {
      logger.error("the recognizer must run as an unprivileged user without capabilities; not starting")
      exit(ExitCode.systemError.rawValue)
    }
    try Confinement.forbidNewPrivileges()
    UinputPool.use(
      (0..<Int32(options.uinputDescriptors)).map { Self.recognizerConfigDescriptor + 1 + $0 })
    let socket = SeqPacketSocket(descriptor: Self.recognizerChannelDescriptor)
    channel = socket
    _ = try multiplexer.watch(socket.descriptor) { [unowned self] in self.channelReadable() }
  }

  /// Sends to the launcher (recognizer only). A launcher that cannot take it is gone or
  /// stuck: the service restarts as a whole.
  func sendToLauncher(_ message: ChannelMessage) {
    guard let channel else { return }
    do {
      try channel.send(message.encoded())
    } catch {
      logger.error("cannot reach the launcher: \(error)")
      exit(ExitCode.systemError.rawValue)
    }
  }

  func channelReadable() {
    guard let channel else { return }
    while true {
      let received: SeqPacketSocket.Received
      let descriptors: [Int32]
      do {
        (received, descriptors) = try channel.receive(
          maximumLength: ChannelMessage.maximumLength, maximumDescriptors: ChannelMessage.maximumPassedDescriptors)
      } catch {
        logger.error("the launcher's channel: \(error)")
        exit(ExitCode.systemError.rawValue)
      }
      switch received {
      case .none: return
      case .closed:
        logger.notice("the launcher is gone; stopping")
        exit(ExitCode.systemError.rawValue)
      case .oversized(let length):
        logger.error("the launcher sent \(length) bytes; ignored")
      case .message(let bytes):
        let decoded = Result { () throws(ChannelError) in try ChannelMessage.decode(bytes) }
        if case .success(.uinputDescriptors(let generation, let count)) = decoded, descriptors.count == count {
          receivedUinput(descriptors, generation: generation)
          continue
        }
        if case .success(.reloadRequest(let generation, let identity)) = decoded, descriptors.count == 1 {
          reloadRequested(generation: generation, identity: identity, configDescriptor: descriptors[0])
          continue
        }
        // Descriptors come with those messages only, and as many as they say.
        for descriptor in descriptors { _ = Glibc.close(descriptor) }
        switch decoded {
        case .success(.reloadRequest(let generation, let identity)):
          reloadRequested(generation: generation, identity: identity, configDescriptor: nil)
        case .success(.alive):
          // The launcher's ping, answered from this event loop: a stuck loop does not answer.
          sendToLauncher(.alive)
        case .success(.uinputDescriptors(_, let count)):
          logger.error("the launcher announced \(count) /dev/uinput descriptors and passed \(descriptors.count)")
        case .success(let other):
          logger.error("unexpected message from the launcher: \(other)")
        case .failure(let error):
          logger.error("from the launcher: \(error)")
        }
      }
    }
  }

  /// Keeps `descriptors` for the reload request of `generation`, which follows.
  func receivedUinput(_ descriptors: [Int32], generation: UInt32) {
    if let stale = pendingUinput { for descriptor in stale.descriptors { _ = Glibc.close(descriptor) } }
    pendingUinput = (generation, descriptors)
  }

  /// The launcher accepted the file as config `generation`: the recognizer moves to it if it
  /// reads the same bytes and accepts them too, and says which it did; the launcher moves
  /// only on its agreement. It reads the file the launcher passed open with the request, or
  /// without one the path.
  func reloadRequested(generation newGeneration: UInt32, identity: ConfigIdentity, configDescriptor: Int32?) {
    logger.notice("reloading \(options.configPath)")
    let loaded = Self.loadIdentifiedConfiguration(
      path: options.configPath, descriptor: configDescriptor, logger: logger)
    if let configDescriptor { _ = Glibc.close(configDescriptor) }
    // The descriptors passed for this request: the pool's if it agrees, closed if not.
    var uinput = pendingUinput?.generation == newGeneration ? pendingUinput?.descriptors ?? [] : []
    if let stale = pendingUinput, stale.generation != newGeneration {
      for descriptor in stale.descriptors { _ = Glibc.close(descriptor) }
    }
    pendingUinput = nil
    defer { for descriptor in uinput { _ = Glibc.close(descriptor) } }
    switch loaded {
    case .failure:
      sendToLauncher(.reloadRefused(generation: newGeneration, reason: .invalid))
    case .success(let new) where new.identity != identity:
      logger.error("\(options.configPath) changed since the launcher read it; keeping the previous config")
      sendToLauncher(.reloadRefused(generation: newGeneration, reason: .differentFile))
    case .success(let new) where !Self.fitsDescriptorBudget(new.configuration, logger: logger):
      sendToLauncher(.reloadRefused(generation: newGeneration, reason: .invalid))
    case .success(let new):
      if !uinput.isEmpty {
        UinputPool.add(uinput)
        logger.notice("took \(uinput.count) /dev/uinput descriptors from the launcher for forwarding")
        uinput = []
      }
      // The ends of closed devices go under the old config, then the agreement; the
      // firings of the new config follow it in the channel.
      adopt(new.configuration, actions: new.actions) {
        generation = newGeneration
        sendToLauncher(.reloadAgreed(generation: newGeneration))
      }
      sendToLauncher(.ready(generation: generation, devices: devices.count))
    }
    ResidentMemory.returnUnusedPages()
  }
}
