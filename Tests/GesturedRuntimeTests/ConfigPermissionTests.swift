import GestureCore
import Synchronization
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
  func file(
    _ name: String, contents: String = "profiles: []\n", mode: mode_t = 0o644, owner: uid_t = 0
  ) throws -> String {
    let path = root + "/" + name
    let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    try #require(descriptor >= 0, "open \(path): errno \(errno)")
    created.append(path)
    _ = write(descriptor, contents, contents.utf8.count)
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

  /// What `read` makes of `path` as root: the bytes, or the error.
  func readAsRoot(_ path: String) -> Result<[UInt8], ConfigPermissions.ReadError> {
    Result { () throws(ConfigPermissions.ReadError) in
      try ConfigPermissions.read(path: path, maximumSize: 1 << 20, effectiveUserID: 0)
    }
  }

  func failure(_ path: String, _ errno: Errno) -> Result<[UInt8], ConfigPermissions.ReadError> {
    .failure(.unreadable(FileReadError(path: path, reason: .system(errno: errno))))
  }

  @Test func theBytesReadAreTheCheckedFilesContent() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file("gestured.yaml", contents: "devices: []\n")
    #expect(try readAsRoot(config).get() == Array("devices: []\n".utf8))
    let link = try scratch.symlink("link.yaml", to: "gestured.yaml")
    #expect(try readAsRoot(link).get() == Array("devices: []\n".utf8))
  }

  @Test func missingPathsAreUnreadableAndLoopsStopLikeTheKernel() throws {
    let scratch = try PermissionScratch()
    let absent = scratch.root + "/absent.yaml"
    #expect(ConfigPermissions.check(path: absent) == nil)
    #expect(readAsRoot(absent) == failure(absent, .noSuchFileOrDirectory))
    try scratch.symlink("loop-a", to: "loop-b")
    try scratch.symlink("loop-b", to: "loop-a")
    #expect(readAsRoot(scratch.root + "/loop-a") == failure(scratch.root + "/loop-a", .tooManySymbolicLinks))
  }

  @Test func fortyLinksInARowAreFollowedAndTheFortyFirstIsALoop() throws {
    let scratch = try PermissionScratch()
    try scratch.file("gestured.yaml")
    // link-0 -> link-1 -> ... -> link-40 -> gestured.yaml: 41 links from link-0, 40 from link-1.
    for index in 0...40 {
      try scratch.symlink("link-\(index)", to: index == 40 ? "gestured.yaml" : "link-\(index + 1)")
    }
    #expect((try? readAsRoot(scratch.root + "/link-1").get()) != nil)
    #expect(readAsRoot(scratch.root + "/link-0") == failure(scratch.root + "/link-0", .tooManySymbolicLinks))
  }

  @Test func aLinkChainIsCheckedAtEveryComponentOfEveryTarget() throws {
    let scratch = try PermissionScratch()
    try scratch.directory("etc")
    try scratch.directory("safe")
    try scratch.file("safe/gestured.yaml")
    let writable = try scratch.directory("safe/shared", mode: 0o775)
    try scratch.file("safe/shared/gestured.yaml")
    // etc/a -> ../hop/b, hop/b -> ../safe/shared/gestured.yaml: only the second target's
    // middle directory is unsafe.
    try scratch.directory("hop")
    try scratch.symlink("hop/b", to: "../safe/shared/gestured.yaml")
    let first = try scratch.symlink("etc/a", to: "../hop/b")
    let message = try #require(ConfigPermissions.check(path: first))
    #expect(message.contains("directory \(writable) is writable by its group (mode 0775)"))
    // The same chain to the safe file is accepted.
    try scratch.symlink("hop/c", to: "../safe/gestured.yaml")
    #expect(try readAsRoot(try scratch.symlink("etc/d", to: "../hop/c")).get().isEmpty == false)
    // A link whose target goes through a directory owned by someone else.
    try scratch.directory("theirs", owner: PermissionScratch.nobody)
    let toTheirs = try scratch.symlink("etc/e", to: scratch.root + "/theirs/gestured.yaml")
    #expect(try #require(ConfigPermissions.check(path: toTheirs)).contains("owned by uid 65534"))
  }

  @Test func aFailedLookupNeverSkipsTheDirectoriesBeforeIt() throws {
    let scratch = try PermissionScratch()
    let writable = try scratch.directory("writable", mode: 0o777)
    // Missing: still refused for the directory, so a config that appears later is never read.
    let missing = writable + "/gestured.yaml"
    #expect(readAsRoot(missing) == .failure(.unsafe(try #require(ConfigPermissions.check(path: missing)))))
    #expect(try #require(ConfigPermissions.check(path: missing)).contains("directory \(writable)"))
    // A dangling link into it is refused too; one into a safe directory is merely missing.
    let dangling = try scratch.symlink("dangling.yaml", to: "writable/absent.yaml")
    #expect(ConfigPermissions.check(path: dangling) != nil)
    let danglingSafe = try scratch.symlink("dangling-safe.yaml", to: "absent.yaml")
    #expect(readAsRoot(danglingSafe) == failure(danglingSafe, .noSuchFileOrDirectory))
  }

  @Test func onlyARegularFileIsOpenedForReading() throws {
    let scratch = try PermissionScratch()
    let file = try scratch.file("gestured.yaml")
    #expect(readAsRoot(file + "/more") == failure(file + "/more", .notADirectory))
    let directory = try scratch.directory("etc")
    #expect(
      readAsRoot(directory)
        == .failure(.unreadable(FileReadError(path: directory, reason: .notRegularFile(kind: "a directory")))))
    // A FIFO would block a reader: it is refused from its O_PATH descriptor, never opened.
    let fifo = scratch.root + "/fifo.yaml"
    try #require(mkfifo(fifo, 0o600) == 0)
    defer { unlink(fifo) }
    #expect(
      readAsRoot(fifo) == .failure(.unreadable(FileReadError(path: fifo, reason: .notRegularFile(kind: "a FIFO")))))
  }

  /// The attack the check exists for: while a root process loads the config again and again
  /// (restarts, SIGHUPs), someone swaps a safe file and one they own in and out of its place.
  /// Whatever the interleaving, the unsafe file's bytes are never returned: each load reads
  /// the very file it checked. Also swaps a whole directory on the path.
  @Test(arguments: [false, true])
  func renameSwapsNeverGetAnUncheckedFileRead(swapsDirectory: Bool) throws {
    let scratch = try PermissionScratch()
    let safeText = "# safe\n"
    let unsafeText = "# UNSAFE\n"
    let config: String
    let places: (String, String, String)
    if swapsDirectory {
      try scratch.directory("a")
      try scratch.file("a/gestured.yaml", contents: safeText)
      try scratch.directory("b", owner: PermissionScratch.nobody)
      try scratch.file("b/gestured.yaml", contents: unsafeText)
      try scratch.directory("etc")
      // etc/gestured.yaml -> ../a/gestured.yaml, and "a" is swapped with the unsafe directory.
      config = try scratch.symlink("etc/gestured.yaml", to: "../a/gestured.yaml")
      places = (scratch.root + "/a", scratch.root + "/b", scratch.root + "/stash")
    } else {
      config = try scratch.file("gestured.yaml", contents: safeText)
      try scratch.file("other.yaml", contents: unsafeText, owner: PermissionScratch.nobody)
      places = (config, scratch.root + "/other.yaml", scratch.root + "/stash.yaml")
    }

    let swapper = try RenameSwapper(places.0, places.1, through: places.2)
    var loadsOfTheSafeFile = 0
    var refusals = 0
    var missing = 0
    var iterations = 0
    let deadline = MonotonicClock.now() + 10_000_000
    while MonotonicClock.now() < deadline {
      if iterations >= 400 && refusals > 0 && loadsOfTheSafeFile > 0 { break }
      iterations += 1
      switch readAsRoot(config) {
      case .success(let bytes):
        #expect(bytes == Array(safeText.utf8), "read a file that was not the checked safe one")
        loadsOfTheSafeFile += 1
      case .failure(.unsafe):
        refusals += 1
      case .failure(.unreadable):
        missing += 1
      }
    }
    let swaps = swapper.stop()
    try #require(swaps > 0, "the swapping thread never ran")
    #expect(iterations >= 400)
    #expect(loadsOfTheSafeFile + refusals + missing == iterations)
    // Both files were seen in place: the race was run, not avoided.
    #expect(loadsOfTheSafeFile > 0)
    #expect(refusals > 0)
  }

  /// The same race through the daemon's own load (start, each restart, each SIGHUP): a
  /// config it accepts never holds the other file's command.
  @Test func theDaemonsRepeatedLoadsNeverTakeTheSwappedInCommands() throws {
    let scratch = try PermissionScratch()
    let config = try scratch.file(
      "gestured.yaml", contents: "bindings: [{ gesture: tap, run: \"echo safe\" }]\n")
    try scratch.file(
      "other.yaml", contents: "bindings: [{ gesture: tap, run: \"echo UNSAFE\" }]\n",
      owner: PermissionScratch.nobody)
    let swapper = try RenameSwapper(
      config, scratch.root + "/other.yaml", through: scratch.root + "/stash.yaml")
    var loads = 0
    var refusals = 0
    var iterations = 0
    let deadline = MonotonicClock.now() + 10_000_000
    while MonotonicClock.now() < deadline {
      if iterations >= 200 && loads > 0 && refusals > 0 { break }
      iterations += 1
      switch Daemon.loadConfiguration(path: config, logger: Logger(sink: CapturedOutput())) {
      case .success(let loaded):
        #expect(loaded.actions.flatMap(\.bindings).map(\.run) == ["echo safe"])
        loads += 1
      case .failure(let code):
        if code == .badConfig { refusals += 1 }
      }
    }
    let swaps = swapper.stop()
    try #require(swaps > 0, "the swapping thread never ran")
    #expect(iterations >= 200)
    #expect(loads > 0)
    #expect(refusals > 0)
  }
}

/// Swaps two names with rename(2) through a third, on a thread of its own (not one of the
/// pool's, which the tests themselves may be holding), until stopped.
final class RenameSwapper {
  /// What the thread reads: made before it starts, so it never waits for the swapper.
  private final class State: Sendable {
    let names: (first: String, second: String, stash: String)
    let running = Atomic<Bool>(true)
    let swaps = Atomic<Int>(0)

    init(_ names: (String, String, String)) { self.names = names }

    func swapUntilStopped() {
      while running.load(ordering: .relaxed) {
        rename(names.first, names.stash)
        rename(names.second, names.first)
        rename(names.stash, names.second)
        swaps.add(1, ordering: .relaxed)
      }
    }
  }

  private let state: State
  private let thread: pthread_t

  init(_ first: String, _ second: String, through stash: String) throws {
    state = State((first, second, stash))
    var thread = pthread_t()
    let context = Unmanaged.passRetained(state).toOpaque()
    let result = pthread_create(
      &thread, nil,
      { context in
        Unmanaged<State>.fromOpaque(context!).takeRetainedValue().swapUntilStopped()
        return nil
      }, context)
    if result != 0 { Unmanaged<State>.fromOpaque(context).release() }
    try #require(result == 0, "pthread_create: \(result)")
    self.thread = thread
  }

  /// Stops the thread; how many swaps it made. The names may end up either way round.
  func stop() -> Int {
    state.running.store(false, ordering: .relaxed)
    pthread_join(thread, nil)
    return state.swaps.load(ordering: .relaxed)
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
