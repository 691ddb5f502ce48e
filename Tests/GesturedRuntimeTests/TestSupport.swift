import Dispatch
import GestureCore
import Glibc

@testable import GesturedRuntime
@testable import GesturedSystem

/// A fresh directory under /tmp, emptied and removed when the value goes away.
final class TemporaryDirectory {
  let path: String

  init() {
    var template = Array("/tmp/gestured-runtime-tests.XXXXXX".utf8CString)
    let created = template.withUnsafeMutableBufferPointer { buffer in
      mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
    }
    guard let created else { fatalError("mkdtemp failed: errno \(errno)") }
    path = created
  }

  deinit {
    for name in directoryEntries(path) ?? [] where name != "." && name != ".." {
      unlink(path + "/" + name)
    }
    rmdir(path)
  }

  /// Writes `contents` to `name` in the directory and returns the file's path.
  @discardableResult
  func write(_ name: String, _ contents: String) -> String {
    let file = path + "/" + name
    let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    precondition(descriptor >= 0, "cannot create \(file)")
    var contents = contents
    contents.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
        precondition(written > 0, "cannot write \(file)")
        offset += written
      }
    }
    close(descriptor)
    return file
  }

  func file(_ name: String) -> String { path + "/" + name }

  /// The file's contents, or nil when it cannot be read.
  func read(_ name: String) -> String? { readFile(file(name)) }
}

/// Small evemu texts of our own for the command tests.
enum Evemu {
  /// An evemu 1.3 description of a 5-slot protocol-B panel, 0..3839 × 0..2159 at 25 units/mm.
  static func description(name: String = "Test Panel") -> String {
    var lines = [
      "# EVEMU 1.3",
      "N: \(name)",
      "I: 0003 1209 0001 0100",
      "P: 02 00 00 00 00 00 00 00",
      "B: 00 0b 00 00 00 00 00 00 00",
    ]
    for index in 0..<12 {
      lines.append(index == 5 ? "B: 01 00 04 00 00 00 00 00 00" : "B: 01 00 00 00 00 00 00 00 00")
    }
    lines += [
      "B: 03 03 00 00 00 00 80 60 02",
      "A: 00 0 3839 0 0 25",
      "A: 01 0 2159 0 0 25",
      "A: 2f 0 4 0 0 0",
      "A: 35 0 3839 0 0 25",
      "A: 36 0 2159 0 0 25",
      "A: 39 0 65535 0 0 0",
    ]
    return lines.joined(separator: "\n") + "\n"
  }

  /// One short tap in the middle of the panel, starting at `start` seconds.
  static func tap(at start: Int = 1) -> String {
    """
    E: \(start).000000 0003 0039 0007
    E: \(start).000000 0003 0035 1920
    E: \(start).000000 0003 0036 1080
    E: \(start).000000 0001 014a 0001
    E: \(start).000000 0000 0000 0000
    E: \(start).080000 0003 0039 -001
    E: \(start).080000 0001 014a 0000
    E: \(start).080000 0000 0000 0000

    """
  }
}

/// A config with one profile and the given bindings (YAML flow mappings, one per line).
func configText(bindings: [String], regions: [String] = []) -> String {
  var text = ""
  if !regions.isEmpty {
    text += "regions:\n" + regions.map { "  - \($0)\n" }.joined()
  }
  text += "bindings:\n" + bindings.map { "  - \($0)\n" }.joined()
  return text
}

/// The package's root directory, found from this file's path, for files the tests share
/// with users (examples/).
let packageRoot: String = {
  var path = Substring(#filePath)
  for _ in 0..<3 {
    guard let slash = path.lastIndex(of: "/") else { break }
    path = path[..<slash]
  }
  return String(path)
}()

/// An event loop served from a thread of its own, as the daemon's main thread serves its
/// loop (`EventMultiplexer.run`), until `stop()`: the tests' stand-in for `Daemon.run`.
final class EventLoopThread: @unchecked Sendable {
  // @unchecked: `multiplexer` is served from the loop thread only; `stopping` is under `lock`.
  let multiplexer: EventMultiplexer
  private let lock = DispatchQueue(label: "gestured.tests.event-loop-thread")
  private var stopping = false
  private let finished = DispatchSemaphore(value: 0)

  init(queue: DispatchQueue) throws {
    multiplexer = try EventMultiplexer(queue: queue)
    DispatchQueue.global().async { [self] in
      // A short wait, so that `stop()` is seen soon.
      while !lock.sync(execute: { stopping }) { multiplexer.serve(waitingAtMost: 10) }
      finished.signal()
    }
  }

  /// Returns once the loop thread has left its last wake-up. Not on the loop's queue.
  func stop() {
    let first = lock.sync {
      defer { stopping = true }
      return !stopping
    }
    if first { finished.wait() }
  }

  deinit { stop() }
}

/// The names in the directory at `path` ("." and ".." included), or nil if it cannot be
/// opened.
func directoryEntries(_ path: String) -> [String]? {
  guard let directory = opendir(path) else { return nil }
  defer { closedir(directory) }
  var names: [String] = []
  while let entry = readdir(directory) {
    names.append(
      withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      })
  }
  return names
}

/// The whole file at `path` as text, read as the daemon reads its files; nil if it cannot be
/// read.
func readFile(_ path: String) -> String? {
  (try? InputFile.read(path: path, maximumSize: 1 << 26)).map { String(decoding: $0, as: UTF8.self) }
}

extension SeqPacketSocket {
  /// Waits, a little, until the socket sees its peer's end: a process another suite spawns
  /// at the moment of the close holds copies of this process's descriptors until its exec
  /// closes them, and the end only shows once that copy is gone too.
  func waitForThePeersEnd() {
    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
    for _ in 0..<50 {
      ready.revents = 0
      _ = poll(&ready, 1, 100)
      if ready.revents & Int16(POLLHUP) != 0 { return }
    }
  }
}
