import Testing

@testable import GestureCore

@Suite("Replay: which profile a recording runs with")
struct ReplayProfileTests {
  /// Replay cannot tell whether a recorded device was virtual: `virtual:` is not checked, and
  /// a note says so, whichever way it is set.
  @Test(arguments: [false, true])
  func virtualIsIgnoredWithANote(virtual: Bool) {
    let configuration = Configuration(profiles: [
      Profile(name: "panel", match: DeviceMatch(virtual: virtual)), Profile(name: "rest"),
    ])
    let result = Replay.run(device: TestPanel.device, events: [], configuration: configuration)
    #expect(result.profile == 0)
    #expect(
      result.notes == ["profile 'panel' sets 'virtual: \(virtual)', which replay cannot check; it is ignored here"])
  }

  @Test func aMatchIsStillCheckedOnEverythingElse() {
    let configuration = Configuration(profiles: [
      Profile(name: "other", match: DeviceMatch(name: "Other*", virtual: false)), Profile(name: "rest"),
    ])
    #expect(Replay.run(device: TestPanel.device, events: [], configuration: configuration).profile == 1)
  }
}
