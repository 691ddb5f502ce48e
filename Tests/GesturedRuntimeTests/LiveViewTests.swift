import GestureCore
import GesturedConfig
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// `monitor --pretty`'s formatter, fed as the daemon feeds it (an engine's frames, records
/// and firings) from a scripted recording instead of a kernel device.
@Suite("monitor --pretty")
struct LiveViewTests {
  /// Runs `evemu` through an engine into a live view, as Daemon.drain and Daemon.fire do.
  func show(_ evemu: String, config: String, redraws: Bool) throws -> String {
    let loaded = ConfigLoader.parse(bytes: Array(config.utf8), file: "live.yaml")
    let configuration = try #require(loaded.configuration)
    let profile = configuration.profiles[0]
    let recording = try EvemuParser.parse(Array(evemu.utf8), file: "live.evemu")
    let device = try #require(recording.device)
    var engine = try #require(DeviceEngine(device: device, profile: profile))
    engine.keepsRecords = true
    let output = CapturedOutput()
    let view = LiveViewOutput(output: output, redraws: redraws)
    let devnode = "/dev/input/event7"
    view.deviceAdded(
      devnode: devnode, name: "Panel\u{1B}[2J", profile: profile, geometry: engine.geometry,
      at: Timestamp(microseconds: 0))
    var firings: [GestureEvent] = []
    func fire() {
      view.records(engine.takeRecords(), devnode: devnode)
      for event in firings {
        if let firing = ResolvedFiring(event: event, profile: profile, actions: loaded.actions[0]),
          firing.command != nil
        {
          view.fired(firing, devnode: devnode)
        }
      }
      firings.removeAll()
      view.show()
    }
    for event in recording.events {
      engine.handle(event, into: &firings)
      if let frame = engine.completedFrame {
        view.frame(frame, devnode: devnode)
        view.records(engine.takeRecords(), devnode: devnode)
      }
      fire()
    }
    engine.advance(to: Timestamp(microseconds: 10_000_000), into: &firings)
    fire()
    return output.text
  }

  let config = configText(bindings: [#"{ name: "go\u0007", gesture: tap, run: "true" }"#])

  @Test func withoutATerminalEachChangeIsOneLine() throws {
    let text = try show(Evemu.description() + Evemu.tap(at: 1), config: config, redraws: false)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    #expect(lines.first == "0.000000 /dev/input/event7: added 'Panel\\u{1b}[2J', profile 'default', 153.6 × 86.4 mm")
    #expect(lines.contains("1.000000 /dev/input/event7: touch sequence #1 began, region none"))
    #expect(lines.contains("1.000000 /dev/input/event7: sequence: finger down → landing"))
    #expect(lines.contains("1.000000 /dev/input/event7: contacts 1 down (76.8, 43.2) mm"))
    #expect(lines.contains("1.080000 /dev/input/event7: contacts 1 up (76.8, 43.2) mm"))
    #expect(lines.contains("1.080000 /dev/input/event7: tap: tapped"))
    #expect(lines.contains { $0.hasPrefix("1.080000 /dev/input/event7: swipe: failed (travelled 0.0 mm") })
    #expect(lines.contains("1.080000 /dev/input/event7: FIRED go\\u{7} (tap, 1 finger) region none"))
    // Nothing but the escaped forms: no escape sequence from a device's name reaches stdout.
    #expect(!text.contains("\u{1B}"))
    #expect(!text.contains("\u{07}"))
    #expect(text.hasSuffix("\n"))
  }

  @Test func onATerminalTheViewIsRedrawnWithTheRecognizersStates() throws {
    let text = try show(Evemu.description() + Evemu.tap(at: 1), config: config, redraws: true)
    let screens = text.split(separator: "\u{1B}[H\u{1B}[2J", omittingEmptySubsequences: true).map(String.init)
    #expect(screens.count >= 3)
    let last = try #require(screens.last)
    #expect(last.contains("gestured monitor: 1 touchscreen"))
    #expect(last.contains("/dev/input/event7 'Panel\\u{1b}[2J'"))
    #expect(last.contains("sequence #1 (region none): idle"))
    #expect(last.contains("    tap         tapped\n"))
    #expect(last.contains("no contact down"))
    #expect(last.contains("FIRED go\\u{7} (tap, 1 finger)"))
    // While the finger was down, a screen showed it.
    #expect(screens.contains { $0.contains("contact 1 at (76.8, 43.2) mm") && $0.contains("landing") })
  }

  @Test func monitorTakesPrettyAndTheDaemonDoesNot() {
    guard case .monitor(let options) = Invocation.parse(["monitor", "--pretty"]) else {
      Issue.record("not a monitor")
      return
    }
    #expect(options.pretty)
    guard case .usageError(let message, _) = Invocation.parse(["--pretty"]) else {
      Issue.record("the daemon took --pretty")
      return
    }
    #expect(message == "unknown option '--pretty'")
  }
}
