import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// A temporary directory under /tmp (root's, sticky) with files, directories and links made
/// to order; everything is removed when it goes away.
final class PermissionScratch {
  static let nobody: uid_t = 65534

  let root: String
  private var created: [String] = []

  init() throws {
    var template = Array("/tmp/gestured-perm-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.flatMap { mkdtemp($0) }.map { String(cString: $0) }
    }
    root = try #require(made, "mkdtemp: errno \(errno)")
    try #require(chmod(root, 0o755) == 0)
  }

  deinit {
    for path in created.reversed() {
      // unlink removes files and links; directories need rmdir.
      if unlink(path) != 0 { rmdir(path) }
    }
    rmdir(root)
  }

  /// Creates `name` (relative to `root`) with `contents`, exactly `mode` and `owner`.
  @discardableResult
  func file(_ name: String, mode: mode_t = 0o644, owner: uid_t = 0) throws -> String {
    let path = root + "/" + name
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(descriptor >= 0, "open \(path): errno \(errno)")
    created.append(path)
    _ = write(descriptor, "profiles: []\n", 13)
    close(descriptor)
    try #require(chown(path, owner, 0) == 0)
    // After chown, which may clear set-id bits.
    try #require(chmod(path, mode) == 0)
    return path
  }

  @discardableResult
  func directory(_ name: String, mode: mode_t = 0o755, owner: uid_t = 0) throws -> String {
    let path = root + "/" + name
    try #require(mkdir(path, 0o700) == 0, "mkdir \(path): errno \(errno)")
    created.append(path)
    try #require(chown(path, owner, 0) == 0)
    try #require(chmod(path, mode) == 0)
    return path
  }

  @discardableResult
  func symlink(_ name: String, to target: String, owner: uid_t = 0) throws -> String {
    let path = root + "/" + name
    try #require(Glibc.symlink(target, path) == 0, "symlink \(path): errno \(errno)")
    created.append(path)
    try #require(lchown(path, owner, 0) == 0)
    return path
  }
}

@Suite(
  "Config permissions as root",
  .enabled(if: geteuid() == 0, "needs root: creates root- and nobody-owned files (chown)"))
struct ConfigPermissionTests {
  @Test func rootOwnedFileNobodyElseCanWriteIsAccepted() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file("gestured.yaml", mode: 0o644)
    #expect(ConfigPermissions.check(path: config) == nil)
    let readOnly = try scratch.file("read-only.yaml", mode: 0o400)
    #expect(ConfigPermissions.check(path: readOnly) == nil)
  }

  @Test func groupWritableFileIsRefusedWithTheFix() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file("gestured.yaml", mode: 0o664)
    let message = try #require(ConfigPermissions.check(path: config))
    #expect(message.contains("writable by its group (mode 0664)"))
    #expect(message.hasSuffix("Run: chmod go-w \(config)"))
  }

  @Test func worldWritableFileIsRefused() throws {
    let scratch = try PermissionScratch()
    let others = try scratch.file("others.yaml", mode: 0o646)
    #expect(
      try #require(ConfigPermissions.check(path: others)).contains(
        "writable by everyone (mode 0646)"))
    let both = try scratch.file("both.yaml", mode: 0o666)
    #expect(try #require(ConfigPermissions.check(path: both)).contains("its group and everyone"))
  }

  @Test func fileOwnedBySomeoneElseIsRefusedWithTheFix() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file("gestured.yaml", mode: 0o644, owner: PermissionScratch.nobody)
    let message = try #require(ConfigPermissions.check(path: config))
    #expect(message.contains("owned by uid 65534"))
    #expect(message.hasSuffix("Run: chown root:root \(config); chmod 644 \(config)"))
  }

  @Test func writableDirectoryIsRefusedBecauseTheFileCouldBeReplaced() throws {
    let scratch = try PermissionScratch()
    let directory = try scratch.directory("etc", mode: 0o775)
    let config = try scratch.file("etc/gestured.yaml")
    let message = try #require(ConfigPermissions.check(path: config))
    #expect(message.contains("directory \(directory) is writable by its group (mode 0775)"))
    #expect(message.hasSuffix("Run: chmod go-w \(directory)"))
  }

  @Test func directoryOwnedBySomeoneElseIsRefused() throws {
    let scratch = try PermissionScratch()
    let directory = try scratch.directory("home", mode: 0o755, owner: PermissionScratch.nobody)
    let config = try scratch.file("home/gestured.yaml")
    let message = try #require(ConfigPermissions.check(path: config))
    #expect(message.contains("directory \(directory) is owned by uid 65534"))
    #expect(message.contains("/etc/gestured"))
  }

  @Test func stickyDirectoryLikeTmpIsAccepted() throws {
    let scratch = try PermissionScratch()
    try scratch.directory("shared", mode: 0o1777)
    let config = try scratch.file("shared/gestured.yaml")
    #expect(ConfigPermissions.check(path: config) == nil)
  }

  @Test func linksAreFollowedAndTheTargetsDirectoriesChecked() throws {
    let scratch = try PermissionScratch()
    let safe = try scratch.file("safe.yaml")
    let unsafeDirectory = try scratch.directory("unsafe", mode: 0o777)
    try scratch.file("unsafe/gestured.yaml")
    try scratch.directory("etc")

    let toSafe = try scratch.symlink("etc/to-safe.yaml", to: safe)
    #expect(ConfigPermissions.check(path: toSafe) == nil)
    // Relative targets resolve from the link's directory.
    let relative = try scratch.symlink("etc/relative.yaml", to: "../safe.yaml")
    #expect(ConfigPermissions.check(path: relative) == nil)

    let toUnsafe = try scratch.symlink("etc/to-unsafe.yaml", to: "../unsafe/gestured.yaml")
    let message = try #require(ConfigPermissions.check(path: toUnsafe))
    #expect(message.contains("directory \(unsafeDirectory) is writable by its group and everyone"))

    // A link to a directory in the middle of the path.
    let linkedDirectory = try scratch.symlink("linked", to: unsafeDirectory)
    #expect(ConfigPermissions.check(path: linkedDirectory + "/gestured.yaml") != nil)
  }

  @Test func linkInAStickyDirectoryMustBeRoots() throws {
    let scratch = try PermissionScratch()
    let safe = try scratch.file("safe.yaml")
    try scratch.directory("shared", mode: 0o1777)
    let rootsLink = try scratch.symlink("shared/roots.yaml", to: safe)
    #expect(ConfigPermissions.check(path: rootsLink) == nil)
    let nobodysLink = try scratch.symlink(
      "shared/nobodys.yaml", to: safe, owner: PermissionScratch.nobody)
    let message = try #require(ConfigPermissions.check(path: nobodysLink))
    #expect(message.contains("symbolic link \(nobodysLink)"))
    #expect(message.contains("owned by uid 65534"))
  }

  @Test func dotAndDotDotAreResolved() throws {
    let scratch = try PermissionScratch()
    try scratch.directory("a")
    try scratch.directory("a/b")
    try scratch.file("gestured.yaml", mode: 0o664)
    let config = scratch.root + "/a/./b/../../gestured.yaml"
    #expect(try #require(ConfigPermissions.check(path: config)).contains("mode 0664"))
    try scratch.file("a/ok.yaml")
    #expect(ConfigPermissions.check(path: scratch.root + "//a/b/.././ok.yaml") == nil)
  }

  @Test(
    .enabled(
      if: ConfigPermissions.check(path: ".") == nil,
      "the working directory is not in a root-owned chain, so every relative path is refused"))
  func relativePathsResolveFromTheWorkingDirectory() throws {
    let scratch = try PermissionScratch()
    try scratch.file("good.yaml")
    try scratch.file("bad.yaml", mode: 0o664)
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let cwd = try #require(getcwd(&buffer, buffer.count).map { String(cString: $0) })
    // Up to / from wherever the tests run, then down to the scratch directory.
    let up = String(repeating: "../", count: cwd.split(separator: "/").count)
    let relativeRoot = up + scratch.root.dropFirst()
    #expect(ConfigPermissions.check(path: relativeRoot + "/good.yaml") == nil)
    let message = try #require(ConfigPermissions.check(path: relativeRoot + "/bad.yaml"))
    // The suggested command names the file wherever it was reached from.
    #expect(message.hasSuffix("Run: chmod go-w \(scratch.root)/bad.yaml"))
  }

  @Test func pathsWithSpacesAreQuotedInTheSuggestedCommand() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file("my config's.yaml", mode: 0o666)
    let message = try #require(ConfigPermissions.check(path: config))
    #expect(message.hasSuffix("Run: chmod go-w '\(scratch.root)/my config'\\''s.yaml'"))
  }

  @Test func missingOrLoopingPathsAreLeftToTheLoader() throws {
    let scratch = try PermissionScratch()
    #expect(ConfigPermissions.check(path: scratch.root + "/absent.yaml") == nil)
    try scratch.symlink("loop-a", to: "loop-b")
    try scratch.symlink("loop-b", to: "loop-a")
    #expect(ConfigPermissions.check(path: scratch.root + "/loop-a") == nil)
  }
}

@Suite("Config permissions when not root")
struct ConfigPermissionUnprivilegedTests {
  @Test func anUnprivilegedDaemonChecksNothing() throws {
    // Written as whoever runs the tests; checked as if the daemon ran as uid 1000. Such a
    // daemon can only run commands as itself, so an editable config gains nobody anything.
    var template = Array("/tmp/gestured-perm-XXXXXX".utf8CString)
    let descriptor = template.withUnsafeMutableBufferPointer { buffer in
      buffer.baseAddress.map { mkstemp($0) } ?? -1
    }
    try #require(descriptor >= 0)
    let path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    defer {
      close(descriptor)
      unlink(path)
    }
    try #require(fchmod(descriptor, 0o666) == 0)
    #expect(ConfigPermissions.check(path: path, effectiveUserID: 1000) == nil)
    #expect(ConfigPermissions.check(path: path, effectiveUserID: 0) != nil)
  }

  @Test func modeTextAndWriters() {
    #expect(ConfigPermissions.modeText(0o100644) == "0644")
    #expect(ConfigPermissions.modeText(0o41777) == "1777")
    #expect(ConfigPermissions.writers(0o644) == nil)
    #expect(ConfigPermissions.writers(0o1777) == "its group and everyone")
  }

  @Test func shellQuoting() {
    #expect(
      ConfigPermissions.shellQuoted("/etc/gestured/gestured.yaml") == "/etc/gestured/gestured.yaml")
    #expect(ConfigPermissions.shellQuoted("/a b") == "'/a b'")
    #expect(ConfigPermissions.shellQuoted("/it's") == "'/it'\\''s'")
    #expect(ConfigPermissions.shellQuoted("/$(reboot)") == "'/$(reboot)'")
    #expect(ConfigPermissions.shellQuoted("") == "''")
  }
}
