import GestureCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A file (config, recording, description) that could not be read; every such file is
/// exit 66 (EX_NOINPUT).
public struct FileReadError: Error, Equatable, Sendable, CustomStringConvertible {
  public enum Reason: Equatable, Sendable {
    /// Opening, checking or reading it failed.
    case system(SystemError)
    /// A FIFO, a device, a socket or a directory: reading it could block or never end.
    case notRegularFile(kind: String)
    /// More bytes than the caller's limit.
    case tooLarge(limit: Int)

    /// open, fstat or read failed with `errno`: the message names the file, not the call.
    public static func system(errno: Errno) -> Reason { .system(SystemError(operation: "read it", errno: errno)) }
  }

  public var path: String
  public var reason: Reason

  public init(path: String, reason: Reason) {
    self.path = path
    self.reason = reason
  }

  public var description: String {
    switch reason {
    case .system(let failure): failure.errno.description
    case .notRegularFile(let kind): "not a regular file (it is \(kind))"
    case .tooLarge(let limit): "larger than \(limit) bytes"
    }
  }
}

/// The runtime's one reader of whole files: configs, recordings and device descriptions.
public enum InputFile {
  /// The whole file's bytes. Opened with O_NONBLOCK and checked with fstat before any read,
  /// so a FIFO (or a tty, or a device node) given as a file is refused at once instead of
  /// blocking the daemon in open(2) or read(2); `maximumSize` stops a wrong path (a disk
  /// image) from eating memory.
  public static func read(path: String, maximumSize: Int) throws(FileReadError) -> [UInt8] {
    let (descriptor, status) = try openRegularFile(path)
    defer { close(descriptor) }
    return try read(descriptor: descriptor, status: status, path: path, maximumSize: maximumSize)
  }

  /// The whole of a regular file open as `descriptor` (another process may have opened it:
  /// the launcher hands its recognizer the config this way), from its start whatever its
  /// offset, checked as `read(path:)` checks; `path` is only named in errors. The caller
  /// closes `descriptor`.
  public static func read(openDescriptor descriptor: Int32, path: String, maximumSize: Int) throws(FileReadError)
    -> [UInt8]
  {
    var status = stat()
    if case .failure(let error) = valueOrErrno(fstat(descriptor, &status)) {
      throw FileReadError(path: path, reason: .system(errno: error))
    }
    let type = status.st_mode & S_IFMT
    guard type == S_IFREG else { throw FileReadError(path: path, reason: .notRegularFile(kind: kindName(type))) }
    return try read(descriptor: descriptor, status: status, path: path, maximumSize: maximumSize)
  }

  /// An open regular file from its start (`status` is its fstat), read as `read(path:)`
  /// reads, with pread so that a descriptor shared with another process is read whole and
  /// its offset left alone; `path` is only named in errors. The caller closes `descriptor`.
  static func read(
    descriptor: Int32, status: stat, path: String, maximumSize: Int
  ) throws(FileReadError) -> [UInt8] {
    guard status.st_size <= maximumSize else {
      throw FileReadError(path: path, reason: .tooLarge(limit: maximumSize))
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(status.st_size))
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    while true {
      let offset = off_t(bytes.count)
      let result = retryOnInterrupt {
        valueOrErrno(chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) })
      }
      guard case .success(let count) = result else {
        if case .failure(let error) = result { throw FileReadError(path: path, reason: .system(errno: error)) }
        return bytes
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[0..<count])
      // The file may grow while it is read (a recording still being written).
      if bytes.count > maximumSize {
        throw FileReadError(path: path, reason: .tooLarge(limit: maximumSize))
      }
    }
  }

  /// What `forEachPiece` ends with: the file could not be read, or `body` threw.
  public enum PieceError<BodyError: Error>: Error {
    case read(FileReadError)
    case body(BodyError)
  }

  /// The file in pieces of 256 KiB, in order, each valid only during its call: a file of
  /// any size in constant memory. Opened and checked as `read` does; no size limit.
  public static func forEachPiece<BodyError: Error>(
    path: String, _ body: (UnsafeBufferPointer<UInt8>) throws(BodyError) -> Void
  ) throws(PieceError<BodyError>) {
    let descriptor: Int32
    do {
      descriptor = try openRegularFile(path).descriptor
    } catch {
      throw .read(error)
    }
    defer { close(descriptor) }
    let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 256 * 1024)
    defer { buffer.deallocate() }
    while true {
      switch retryOnInterrupt({ valueOrErrno(readBytes(descriptor, buffer.baseAddress, buffer.count)) }) {
      case .failure(let error):
        throw .read(FileReadError(path: path, reason: .system(errno: error)))
      case .success(0):
        return
      case .success(let count):
        do {
          try body(UnsafeBufferPointer(rebasing: buffer[0..<count]))
        } catch {
          throw .body(error)
        }
      }
    }
  }

  /// Opens with O_NONBLOCK and refuses anything but a regular file (see `read`).
  private static func openRegularFile(_ path: String) throws(FileReadError) -> (descriptor: Int32, status: stat) {
    let descriptor: Int32
    switch retryOnInterrupt({ valueOrErrno(open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) }) {
    case .success(let opened): descriptor = opened
    case .failure(let error): throw FileReadError(path: path, reason: .system(errno: error))
    }
    var status = stat()
    if case .failure(let error) = valueOrErrno(fstat(descriptor, &status)) {
      close(descriptor)
      throw FileReadError(path: path, reason: .system(errno: error))
    }
    let type = status.st_mode & S_IFMT
    guard type == S_IFREG else {
      close(descriptor)
      throw FileReadError(path: path, reason: .notRegularFile(kind: kindName(type)))
    }
    return (descriptor, status)
  }

  static func kindName(_ type: mode_t) -> String {
    switch type {
    case S_IFIFO: "a FIFO"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    case S_IFDIR: "a directory"
    default: "not a file"
    }
  }
}

/// read(2), under a name the static `read(path:maximumSize:)` does not shadow.
private func readBytes(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
  read(descriptor, buffer, count)
}
