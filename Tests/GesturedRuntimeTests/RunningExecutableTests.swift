import Testing

@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

@Suite("The path the launcher execs the recognizer from")
struct RunningExecutableTests {
  let recognizer = ChildCredentials(uid: 990, gid: 990, groups: [105])
  let open: RunningExecutable.Status = (0o755, 0, 0)

  @Test func theLinksTargetWhenTheChildCanReachAndRunIt() {
    let path = RunningExecutable.path(linkTarget: "/usr/bin/gestured", executableBy: recognizer) { _ in open }
    #expect(path == "/usr/bin/gestured")
  }

  @Test func theLinkItselfForABinaryReplacedOrRemovedSinceItStarted() {
    let path = RunningExecutable.path(linkTarget: "/usr/bin/gestured (deleted)", executableBy: recognizer) { _ in
      open
    }
    #expect(path == "/proc/self/exe")
    #expect(RunningExecutable.path(linkTarget: "gestured", executableBy: recognizer) { _ in open } == "/proc/self/exe")
  }

  @Test func theLinkItselfWhenADirectoryOnTheWayIsClosedToTheChild() {
    let statuses: [String: RunningExecutable.Status] = [
      "/root": (0o700, 0, 0), "/root/build": (0o755, 0, 0), "/root/build/gestured": (0o755, 0, 0),
    ]
    let path = RunningExecutable.path(linkTarget: "/root/build/gestured", executableBy: recognizer) { statuses[$0] }
    #expect(path == "/proc/self/exe")
    // The path cannot be examined: the link, which needs no search permission.
    #expect(
      RunningExecutable.path(linkTarget: "/gone/gestured", executableBy: recognizer) { _ in nil } == "/proc/self/exe")
  }

  @Test func theExecuteBitThatAppliesIsTheOwnersTheGroupsOrTheOthers() {
    // Group 105 (the recognizer's supplementary group) may run it; others may not.
    let groupOnly: RunningExecutable.Status = (0o750, 0, 105)
    #expect(RunningExecutable.permitsExecution(groupOnly, to: recognizer))
    #expect(!RunningExecutable.permitsExecution(groupOnly, to: ChildCredentials(uid: 65534, gid: 65534, groups: [])))
    // The owner's bit applies to the owner even when the others' is set.
    #expect(!RunningExecutable.permitsExecution((0o055, 990, 0), to: recognizer))
  }

  @Test func aPrivateDirectoryOnDiskKeepsTheLink() throws {
    let directory = TemporaryDirectory()
    let file = directory.write("gestured", "#!/bin/sh\n")
    chmod(file, 0o755)
    chmod(directory.path, 0o700)
    let nobody = ChildCredentials(uid: 65534, gid: 65534, groups: [])
    let path = RunningExecutable.path(
      linkTarget: file, executableBy: nobody, status: RunningExecutable.fileStatus)
    #expect(path == "/proc/self/exe")
    chmod(directory.path, 0o755)
    #expect(
      RunningExecutable.path(linkTarget: file, executableBy: nobody, status: RunningExecutable.fileStatus) == file)
  }

  @Test func thisProcesssBinaryIsFoundByItsPath() throws {
    let path = try RunningExecutable.path(executableBy: ChildCredentials(uid: getuid(), gid: getgid(), groups: []))
    var link = [CChar](repeating: 0, count: Int(PATH_MAX))
    let count = readlink("/proc/self/exe", &link, link.count)
    try #require(count > 0)
    let target = String(decoding: link[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    #expect(path == target)
    #expect(!path.hasSuffix("/exe"))
  }
}
