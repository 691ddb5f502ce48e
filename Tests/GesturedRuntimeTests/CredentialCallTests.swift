import GesturedSystem
import Glibc
import Testing

@testable import GesturedRuntime

/// The shim's credential calls (credentials.c) compiled on their own and run as root, for
/// this machine's word size and for 32-bit x86 (`gcc -m32`, Debian's gcc-multilib), where
/// the plain system call numbers are the 16-bit calls: the uid and groups must arrive whole.
@Suite("Credential system calls", .serialized)
struct CredentialCallTests {
  let directory = TemporaryDirectory()

  /// Takes uid 65536, gid 65537 and groups 1001 and 24 through the shim, then prints its
  /// status lines: 16-bit calls would leave uid 0 and groups 1001 and 0.
  static let driver = """
    #include "gestured_credentials.h"
    #include <errno.h>
    #include <stdio.h>
    #include <string.h>

    int main(void) {
      gid_t groups[] = {1001, 24};
      struct gestured_credentials credentials = {65536, 65537, groups, 2};
      const char *failed = gestured_set_credentials(&credentials);
      if (failed != NULL) {
        fprintf(stderr, "%s: %s\\n", failed, strerror(errno));
        return 1;
      }
      FILE *status = fopen("/proc/self/status", "r");
      char line[512];
      while (status != NULL && fgets(line, sizeof line, status) != NULL) {
        if (strncmp(line, "Uid:", 4) == 0 || strncmp(line, "Gid:", 4) == 0 || strncmp(line, "Groups:", 7) == 0)
          fputs(line, stdout);
      }
      printf("bits: %zu\\n", 8 * sizeof(void *));
      return 0;
    }
    """

  static let shim = packageRoot + "/Sources/CGesturedShim"

  /// Runs `command` in a shell, its output (both streams) returned.
  func shell(_ command: String) throws -> (status: ProcessStatus, output: String) {
    let file = directory.path + "/output"
    let status = try spawnShell(
      "(\(command)) > '\(file)' 2>&1",
      environment: ActionEnvironment(variables: ["PATH": ActionEnvironment.defaultPath])
    ).waitForExit()
    return (status, directory.read("output") ?? "")
  }

  /// Whether gcc can build and link a 32-bit program here.
  static let canBuild32Bit: Bool = {
    let directory = TemporaryDirectory()
    let source = directory.write("probe.c", "int main(void) { return 0; }\n")
    let status = try? spawnShell(
      "gcc -m32 -o '\(directory.path)/probe' '\(source)' >/dev/null 2>&1",
      environment: ActionEnvironment(variables: ["PATH": ActionEnvironment.defaultPath])
    ).waitForExit()
    return status == .exited(0)
  }()

  /// CI sets it (.ci/run): there the 32-bit test must run, never be skipped.
  static let required32Bit = getenv("GESTURED_REQUIRE_32BIT_TEST").map { String(cString: $0) == "1" } ?? false

  func compileAndRun(flags: String, bits: Int) throws {
    let source = directory.write("driver.c", Self.driver)
    let binary = directory.path + "/driver"
    let compiled = try shell(
      "gcc \(flags) -std=c11 -D_GNU_SOURCE -Wall -Werror -I'\(Self.shim)/include' -o '\(binary)' "
        + "'\(Self.shim)/credentials.c' '\(source)'")
    try #require(compiled.status == .exited(0), "gcc \(flags): \(compiled.output)")
    let ran = try shell("'\(binary)'")
    #expect(ran.status == .exited(0), "\(ran.output)")
    let lines = ran.output.split(separator: "\n").map { $0.split(whereSeparator: { $0 == "\t" || $0 == " " }) }
    func fields(_ name: String) -> [String] {
      lines.first { $0.first == Substring(name + ":") }.map { $0.dropFirst().map(String.init) } ?? []
    }
    #expect(fields("Uid") == ["65536", "65536", "65536", "65536"], "\(ran.output)")
    #expect(fields("Gid") == ["65537", "65537", "65537", "65537"], "\(ran.output)")
    #expect(Set(fields("Groups")) == ["1001", "24"], "\(ran.output)")
    #expect(fields("bits") == ["\(bits)"])
  }

  @Test(.enabled(if: geteuid() == 0, "taking another uid needs root"))
  func theCallsKeep32BitIdsOnThisMachine() throws {
    try compileAndRun(flags: "", bits: MemoryLayout<Int>.size * 8)
  }

  @Test(
    .enabled(if: geteuid() == 0 || required32Bit, "taking another uid needs root"),
    .enabled(
      if: canBuild32Bit || required32Bit,
      "SKIPPED: gcc -m32 cannot build here (install gcc-multilib: make test-deps); CI requires it"))
  func theCallsKeep32BitIdsInA32BitBuild() throws {
    try compileAndRun(flags: "-m32", bits: 32)
  }
}
