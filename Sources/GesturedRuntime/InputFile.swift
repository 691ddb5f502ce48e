#if canImport(Glibc)
  import Glibc
#endif

/// A file named on the command line that could not be read.
public struct InputFileError: Error, Hashable, Sendable, CustomStringConvertible {
  public var path: String
  public var errno: Int32

  public init(path: String, errno: Int32) {
    self.path = path
    self.errno = errno
  }

  public var description: String {
    let reason = strerror(errno).map { String(cString: $0) } ?? "errno \(errno)"
    return "cannot read '\(path)': \(reason)"
  }
}

/// Whole-file reads for recordings and device descriptions.
public enum InputFile {
  /// Recordings of long sessions reach tens of megabytes; this only stops a wrong path (a
  /// disk image, /dev/zero) from eating memory. Beyond it the read fails with EFBIG.
  public static let maximumSize = 512 << 20

  public static func read(path: String) throws(InputFileError) -> [UInt8] {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw InputFileError(path: path, errno: errno) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    while true {
      let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw InputFileError(path: path, errno: errno)
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[0..<count])
      if bytes.count > maximumSize { throw InputFileError(path: path, errno: EFBIG) }
    }
  }
}
