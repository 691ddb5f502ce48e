import GesturedSystem
import Testing

#if canImport(Glibc)
  import Glibc
#endif

@Suite("The recognizer's socket, descriptors and confinement")
struct ChannelSocketTests {
  @Test func messagesArriveWholeAndInOrderAndTheEndIsSeen() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    defer { launcher.close() }
    try recognizer.send([1, 2, 3])
    try recognizer.send([4])
    try recognizer.send([UInt8](repeating: 9, count: 20))
    #expect(try launcher.receive(maximumLength: 8) == .message([1, 2, 3]))
    #expect(try launcher.receive(maximumLength: 8) == .message([4]))
    #expect(try launcher.receive(maximumLength: 8) == .oversized(length: 20))
    #expect(try launcher.receive(maximumLength: 8) == SeqPacketSocket.Received.none)
    recognizer.close()
    launcher.waitForThePeersEnd()
    #expect(try launcher.receive(maximumLength: 8) == .closed)
  }

  @Test func sendingToAClosedPeerFailsWithoutASignal() throws {
    let (launcher, recognizer) = try SeqPacketSocket.pair()
    recognizer.close()
    defer { launcher.close() }
    launcher.waitForThePeersEnd()
    #expect(throws: SystemError.self) { try launcher.send([1]) }
  }

  @Test func aChildKeepsExactlyTheInheritedDescriptorsWithoutNewPrivileges() throws {
    let (parent, child) = try SeqPacketSocket.pair()
    defer { parent.close() }
    let (other, otherPeer) = try SeqPacketSocket.pair()
    defer {
      other.close()
      otherPeer.close()
    }
    // The child writes on descriptor 3 what it holds: whether 4 is open, and its NoNewPrivs.
    let script = """
      if [ -e /proc/self/fd/4 ]; then echo four; else echo none; fi >&3
      grep '^NoNewPrivs:' /proc/self/status | tr -d ' \\t' >&3
      """
    let process = try ChildProcess.spawn(
      path: "/bin/sh", arguments: ["sh", "-c", script], environment: ["PATH=/usr/bin:/bin"],
      inherited: [child.descriptor],
      credentials: nil, noNewPrivileges: true
    ).get()
    child.close()
    #expect(try process.waitForExit() == .exited(0))
    var lines: [String] = []
    while case .message(let bytes) = try parent.receive(maximumLength: 64) {
      lines.append(String(decoding: bytes, as: UTF8.self))
    }
    #expect(lines.joined() == "none\nNoNewPrivs:1\n")
  }

  @Test func capabilitiesAreReadFromTheStatusFile() {
    let status = "Name:\tgestured\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t000001ffffffffff\n"
    let capabilities = Confinement.capabilities(status: status)
    #expect(capabilities.effective == 0x1ff_ffff_ffff)
    #expect(capabilities.permitted == 0)
    #expect(Confinement.capabilities(status: "Name:\tx\n").effective == nil)
  }
}
