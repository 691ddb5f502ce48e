import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

/// Scripts are small text files; a cap keeps a wrong path (a device, a huge file) harmless.
private let largestScript = 16 << 20

func readTextFile(_ path: String) -> Result<String, UinputPlanError> {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else {
    return .failure(UinputPlanError("cannot read '\(path)': \(String(cString: strerror(errno)))"))
  }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = retryingOnInterrupt { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
    if count < 0 {
      return .failure(UinputPlanError("cannot read '\(path)': \(String(cString: strerror(errno)))"))
    }
    if count == 0 { break }
    bytes.append(contentsOf: chunk[0..<count])
    guard bytes.count <= largestScript else {
      return .failure(UinputPlanError("'\(path)' is larger than \(largestScript >> 20) MiB"))
    }
  }
  return .success(String(decoding: bytes, as: UTF8.self))
}

/// Writes all of `text` to `fd`, resuming after short writes and signals.
func writeAll(_ text: String, to fd: Int32) -> Bool {
  var bytes = Array(text.utf8)
  var offset = 0
  while offset < bytes.count {
    let count = retryingOnInterrupt {
      bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
    }
    guard count >= 0 else { return false }
    offset += count
  }
  return true
}

func writeTextFile(_ text: String, to path: String) -> Result<Void, UinputPlanError> {
  if path == "-" {
    return writeAll(text, to: STDOUT_FILENO)
      ? .success(()) : .failure(UinputPlanError("cannot write to stdout"))
  }
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
  guard fd >= 0 else {
    return .failure(UinputPlanError("cannot write '\(path)': \(String(cString: strerror(errno)))"))
  }
  let written = writeAll(text, to: fd)
  let closed = close(fd) == 0
  return written && closed
    ? .success(())
    : .failure(UinputPlanError("cannot write '\(path)': \(String(cString: strerror(errno)))"))
}
