import CGesturedShim

#if canImport(Glibc)
  import Glibc
#endif

/// One end of the channel between the launcher and the recognizer: an AF_UNIX
/// SOCK_SEQPACKET socket, so that each message arrives whole and alone, in order, and the
/// peer's exit reads as the end.
public struct SeqPacketSocket: Sendable, Hashable {
  public let descriptor: Int32

  public init(descriptor: Int32) { self.descriptor = descriptor }

  /// A connected pair, both ends close-on-exec.
  public static func pair() throws(SystemError) -> (SeqPacketSocket, SeqPacketSocket) {
    var ends: [Int32] = [-1, -1]
    let result = ends.withUnsafeMutableBufferPointer { gestured_seqpacket_pair($0.baseAddress) }
    if case .failure(let error) = valueOrErrno(negated: result) {
      throw SystemError(operation: "socketpair", errno: error)
    }
    return (SeqPacketSocket(descriptor: ends[0]), SeqPacketSocket(descriptor: ends[1]))
  }

  /// Sends one message without blocking; EAGAIN when the peer has not read what it was sent
  /// (the socket's buffer is full), EPIPE when it is gone.
  public func send(_ bytes: [UInt8]) throws(SystemError) {
    let result = retryOnInterrupt {
      valueOrErrno(negated: bytes.withUnsafeBytes { gestured_seqpacket_send(descriptor, $0.baseAddress, $0.count) })
    }
    switch result {
    case .success(let sent) where sent == bytes.count: return
    case .success: throw SystemError(operation: "send", errno: .noBufferSpace)
    case .failure(let error): throw SystemError(operation: "send", errno: error)
    }
  }

  public enum Received: Hashable, Sendable {
    case message([UInt8])
    /// Longer than the caller's limit: its bytes are dropped.
    case oversized(length: Int)
    /// Nothing waiting.
    case none
    /// The peer closed its end (or exited).
    case closed
  }

  /// The next message, of at most `maximumLength` bytes, without blocking.
  public func receive(maximumLength: Int) throws(SystemError) -> Received {
    // One byte more than allowed, so that a message of exactly the limit is told from a longer one.
    var buffer = [UInt8](repeating: 0, count: maximumLength + 1)
    let result = retryOnInterrupt {
      valueOrErrno(
        negated: buffer.withUnsafeMutableBytes {
          gestured_seqpacket_receive(descriptor, $0.baseAddress, $0.count)
        })
    }
    switch result {
    case .success(0): return .closed
    case .success(let length) where length > maximumLength: return .oversized(length: length)
    case .success(let length): return .message(Array(buffer[..<length]))
    case .failure(.wouldBlock): return .none
    case .failure(let error): throw SystemError(operation: "recv", errno: error)
    }
  }

  /// As `send(_:)`, passing `descriptors` along with the message (SCM_RIGHTS): the peer
  /// receives its own duplicates of them, and the caller still owns and closes its own.
  public func send(_ bytes: [UInt8], passing descriptors: [Int32]) throws(SystemError) {
    let result = retryOnInterrupt {
      valueOrErrno(
        negated: bytes.withUnsafeBytes { message in
          descriptors.withUnsafeBufferPointer {
            gestured_seqpacket_send_descriptors(
              descriptor, message.baseAddress, message.count, $0.baseAddress, $0.count)
          }
        })
    }
    switch result {
    case .success(let sent) where sent == bytes.count: return
    case .success: throw SystemError(operation: "sendmsg", errno: .noBufferSpace)
    case .failure(let error): throw SystemError(operation: "sendmsg", errno: error)
    }
  }

  /// As `receive(maximumLength:)`, with the descriptors passed along with the message (at
  /// most `maximumDescriptors`; a message that carried more brings none), close-on-exec and
  /// the caller's to close. Those of a message that is not returned (oversized) are closed.
  public func receive(maximumLength: Int, maximumDescriptors: Int) throws(SystemError) -> (
    Received, descriptors: [Int32]
  ) {
    var buffer = [UInt8](repeating: 0, count: maximumLength + 1)
    var descriptors = [Int32](repeating: -1, count: max(maximumDescriptors, 1))
    var count = 0
    let result = retryOnInterrupt {
      valueOrErrno(
        negated: buffer.withUnsafeMutableBytes { message in
          descriptors.withUnsafeMutableBufferPointer {
            gestured_seqpacket_receive_descriptors(
              descriptor, message.baseAddress, message.count, $0.baseAddress, maximumDescriptors, &count)
          }
        })
    }
    let received = Array(descriptors[..<count])
    switch result {
    case .success(0):
      for descriptor in received { _ = Glibc.close(descriptor) }
      return (.closed, [])
    case .success(let length) where length > maximumLength:
      for descriptor in received { _ = Glibc.close(descriptor) }
      return (.oversized(length: length), [])
    case .success(let length): return (.message(Array(buffer[..<length])), received)
    case .failure(.wouldBlock): return (.none, [])
    case .failure(let error): throw SystemError(operation: "recvmsg", errno: error)
    }
  }

  public func close() { _ = Glibc.close(descriptor) }
}

/// The checks the recognizer makes on itself before it reads anything untrusted.
public enum Confinement {
  /// PR_SET_NO_NEW_PRIVS for this process (and what it execs).
  public static func forbidNewPrivileges() throws(SystemError) {
    if case .failure(let error) = valueOrErrno(negated: gestured_no_new_privileges()) {
      throw SystemError(operation: "prctl PR_SET_NO_NEW_PRIVS", errno: error)
    }
  }

  /// The process's effective, permitted and bounding capability sets as /proc/self/status
  /// shows them (`CapEff:` etc., hexadecimal), nil for a line it lacks.
  public static func capabilities(status: String) -> (effective: UInt64?, permitted: UInt64?) {
    func value(_ name: String) -> UInt64? {
      for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
        return UInt64(line.dropFirst(name.count + 1).trimmingPrefix(while: { $0 == " " || $0 == "\t" }), radix: 16)
      }
      return nil
    }
    return (value("CapEff"), value("CapPrm"))
  }

  /// Whether this process holds no capability at all (effective and permitted both 0), read
  /// from /proc/self/status; false when it cannot be read.
  public static func holdsNoCapability() -> Bool {
    guard let bytes = try? InputFile.read(path: "/proc/self/status", maximumSize: 1 << 16) else { return false }
    let text = String(decoding: bytes, as: UTF8.self)
    let capabilities = capabilities(status: text)
    return capabilities.effective == 0 && capabilities.permitted == 0
  }
}
