#if canImport(FoundationEssentials)
  import FoundationEssentials
#else
  import Foundation
#endif

/// The real recordings in `<package root>/../shared/fixtures/real`.
///
/// They are not part of the repository (other people's files, see their SOURCES.md); CI
/// clones the repository with a copy of `shared/` beside it. Tests over them use
/// `.enabled(if: SharedFixtures.root != nil)` so they are reported as skipped when absent.
enum SharedFixtures {
  /// Absolute path of the fixtures folder, or nil when it is not there.
  static let root: String? = {
    // #filePath is <package root>/Tests/GestureCoreTests/SharedFixtures.swift.
    var components = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    guard components.count > 4 else { return nil }
    components.removeLast(4)
    let path = components.joined(separator: "/") + "/shared/fixtures/real"
    var isDirectory: Bool = false
    guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory
    else { return nil }
    return path
  }()

  /// Absolute path of a file given relative to the fixtures folder, e.g. "evemu/3m.event".
  static func path(_ relative: String) -> String? {
    root.map { $0 + "/" + relative }
  }

  /// The bytes of a fixture file, or nil when the folder or the file is missing.
  static func bytes(_ relative: String) -> [UInt8]? {
    guard let path = path(relative), let data = FileManager.default.contents(atPath: path) else {
      return nil
    }
    return [UInt8](data)
  }

  /// "folder/name" for every file in the given folders, sorted; empty when absent.
  static func files(in folders: [String]) -> [String] {
    guard let root else { return [] }
    var result: [String] = []
    for folder in folders {
      let names = (try? FileManager.default.contentsOfDirectory(atPath: root + "/" + folder)) ?? []
      result += names.map { folder + "/" + $0 }
    }
    return result.sorted()
  }
}
