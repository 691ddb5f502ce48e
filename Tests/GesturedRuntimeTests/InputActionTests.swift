import CEvdev
import GestureCore
import GesturedConfig
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

@Suite("key and wheel actions")
struct InputActionTests {
  typealias Event = VirtualInputDevice.Event

  private static func key(_ code: Int32, _ value: Int32) -> Event {
    Event(type: UInt16(EV_KEY), code: UInt16(code), value: value)
  }
  private static let report = Event(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0)

  @Test("a chord presses in order and releases in reverse, a report after each change")
  func chordOrder() {
    let events = InputActionWriter.events(
      of: .keys([
        KeyChord(codes: [UInt16(KEY_LEFTCTRL), UInt16(KEY_LEFTSHIFT), UInt16(KEY_T)], written: "ctrl+shift+t"),
        KeyChord(codes: [UInt16(KEY_F5)], written: "F5"),
      ]))
    let r = Self.report
    #expect(
      events == [
        Self.key(KEY_LEFTCTRL, 1), r, Self.key(KEY_LEFTSHIFT, 1), r, Self.key(KEY_T, 1), r,
        Self.key(KEY_T, 0), r, Self.key(KEY_LEFTSHIFT, 0), r, Self.key(KEY_LEFTCTRL, 0), r,
        Self.key(KEY_F5, 1), r, Self.key(KEY_F5, 0), r,
      ])
  }

  @Test("positive wheel clicks scroll down (REL_WHEEL negative), positive hwheel clicks right")
  func wheelSigns() {
    let rel = UInt16(EV_REL)
    #expect(
      InputActionWriter.events(of: .wheel(2)) == [
        Event(type: rel, code: UInt16(REL_WHEEL), value: -2),
        Event(type: rel, code: UInt16(REL_WHEEL_HI_RES), value: -240), Self.report,
      ])
    #expect(
      InputActionWriter.events(of: .horizontalWheel(-1)) == [
        Event(type: rel, code: UInt16(REL_HWHEEL), value: -1),
        Event(type: rel, code: UInt16(REL_HWHEEL_HI_RES), value: -120), Self.report,
      ])
  }

  @Test("the keyboard has every KEY_ code from ESC on, and no button")
  func keyboardCodes() {
    let codes = VirtualInputDevice.keyboardCodes
    // udev calls a device a keyboard only with every code from KEY_ESC to KEY_D.
    #expect((UInt32(KEY_ESC)...UInt32(KEY_D)).allSatisfy(codes.contains))
    #expect(codes.contains(UInt32(KEY_VOLUMEUP)) && codes.contains(UInt32(KEY_OK)))
    #expect(!codes.contains(UInt32(BTN_LEFT)) && !codes.contains(UInt32(BTN_TOUCH)) && !codes.contains(0))
  }

  @Test("gestured's virtual devices are never taken, whatever matches them")
  func neverTaken() {
    #expect(VirtualInputDevice.isVirtualInput(phys: "gestured-input:keyboard"))
    #expect(!VirtualInputDevice.isVirtualInput(phys: "usb-0000:00:14.0-1/input0"))
    #expect(!VirtualInputDevice.isVirtualInput(phys: nil))
  }

  @Test("a one-shot firing within its cooldown is dropped, steps never; without the device it fails")
  func cooldown() {
    let log = CapturedOutput()
    let writer = InputActionWriter(logger: Logger(sink: log))
    let keys = InputAction.keys([KeyChord(codes: [UInt16(KEY_F5)], written: "F5")])
    func write(at microseconds: Int64, oneShot: Bool = true) -> InputActionWriter.Decision {
      writer.write(
        PreparedInput(keys, label: "kiosk/reload"), key: "0#1", label: "kiosk/reload",
        firedAt: Timestamp(microseconds: microseconds),
        cooldown: 300_000, oneShot: oneShot)
    }
    // No config asked for the keyboard: nothing to write to, and the log says why.
    #expect(write(at: 1_000_000) == .failed("no virtual keyboard (see the error at start)"))
    #expect(write(at: 1_200_000) == .droppedCooldown)
    #expect(write(at: 1_250_000, oneShot: false) != .droppedCooldown)
    #expect(write(at: 1_300_000) != .droppedCooldown)
    #expect(log.text.contains("[kiosk/reload] key F5 not written: no virtual keyboard"))
    #expect(log.text.contains("[kiosk/reload] firing dropped: 200 ms after the previous one"))
  }

  @Test("a binding's key action is made ready once: its events and its log line, escaped")
  func preparedOnce() {
    let chords = [
      KeyChord(codes: [UInt16(KEY_LEFTCTRL), UInt16(KEY_L)], written: "ctrl+l"),
      KeyChord(codes: [UInt16(KEY_F5)], written: "F5"),
    ]
    let prepared = PreparedInput(.keys(chords), label: "kiosk/re\nload")
    #expect(prepared.events == InputActionWriter.events(of: .keys(chords)))
    #expect(prepared.description == "key ctrl+l F5")
    #expect(prepared.writtenLine.hasPrefix("[kiosk/re") && prepared.writtenLine.hasSuffix("load] key ctrl+l F5"))
    #expect(!prepared.writtenLine.contains("\n"), "a label cannot start a log line of its own")
    #expect(PreparedInput(.wheel(-2), label: "kiosk/up").writtenLine == "[kiosk/up] wheel -2")
  }

  @Test("replay and monitor print the action as written")
  func firingLine() throws {
    var profile = Profile(name: "kiosk")
    profile.bindings = [
      Binding(gesture: .swipe, direction: .left), Binding(gesture: .pan, direction: .down, step: 10),
      Binding(gesture: .pan, direction: .right, step: 10),
    ]
    let actions = ProfileActions(bindings: [
      BindingAction(
        .input(
          .keys([
            KeyChord(codes: [UInt16(KEY_LEFTCTRL), UInt16(KEY_L)], written: "ctrl+l"),
            KeyChord(codes: [UInt16(KEY_F5)], written: "F5"),
          ]))),
      BindingAction(.input(.wheel(1)), end: "logger done"),
      BindingAction(.input(.horizontalWheel(-2))),
    ])
    func line(_ event: GestureEvent) throws -> String {
      let firing = try #require(ResolvedFiring(event: event, profile: profile, actions: actions))
      #expect(firing.isReported && firing.command == nil)
      return FiringReport.jsonLine(file: "f", deviceName: "d", firing: firing)
    }
    let swipe = GestureEvent(
      time: Timestamp(microseconds: 1), binding: 0, gesture: .swipe, fingers: 1, direction: .left,
      position: Point(x: 0.5, y: 0.5), region: nil)
    #expect(try line(swipe).contains(#""direction":"left","key":"ctrl+l F5","x""#))
    var step = GestureEvent(
      time: Timestamp(microseconds: 1), binding: 1, gesture: .pan, phase: .step(3), fingers: 1, direction: .down,
      position: Point(x: 0.5, y: 0.5), region: nil)
    #expect(try line(step).contains(#""step":3,"wheel":1,"#))
    step.binding = 2
    step.direction = .right
    #expect(try line(step).contains(#""step":3,"hwheel":-2,"#))
    // The end runs its command and prints no wheel.
    var end = step
    end.binding = 1
    end.phase = .end(steps: 3)
    let endFiring = try #require(ResolvedFiring(event: end, profile: profile, actions: actions))
    #expect(endFiring.input == nil && endFiring.command == "logger done")
    #expect(!FiringReport.jsonLine(file: "f", deviceName: "d", firing: endFiring).contains("wheel"))
  }

  @Test("a key or wheel binding's request comes from its table, and its resolved firing's is the same")
  func inputRequestFromTheTable() throws {
    var profile = Profile(name: "kiosk")
    profile.regions = [Region(name: "top", area: Area(x: 0, y: 0, width: 1, height: 0.5))]
    profile.bindings = [
      Binding(gesture: .swipe, direction: .left), Binding(gesture: .pan, direction: .down, step: 10),
      Binding(gesture: .tap),
    ]
    let f5 = InputAction.keys([KeyChord(codes: [UInt16(KEY_F5)], written: "F5")])
    var keyAction = BindingAction(.input(f5))
    keyAction.cooldown = 250_000
    keyAction.user = "kiosk"
    keyAction.environment = ["PAGE": "next"]
    let actions = ProfileActions(
      environment: ["KIOSK": "1"],
      bindings: [keyAction, BindingAction(.input(.wheel(1)), end: "logger done"), BindingAction(run: "echo tap")])
    let table = BindingTable(
      profile: profile, profileIndex: 2, actions: actions, devnode: "/dev/input/event4", deviceName: "Panel",
      daemonPath: "/usr/bin:/bin", daemonIsRoot: true)
    func resolvedRequest(_ event: GestureEvent) -> ActionRunner.Request? {
      table.firing(for: event).flatMap { table.request(for: $0) }
    }
    let swipe = GestureEvent(
      time: Timestamp(microseconds: 7_000), binding: 0, gesture: .swipe, fingers: 1, direction: .left,
      position: Point(x: 0.5, y: 0.2), region: 0)
    let request = try #require(table.inputRequest(for: swipe))
    #expect(request.key == "2#0" && request.label == "kiosk/swipe" && request.command == "")
    #expect(request.kind == .input(PreparedInput(f5, label: "kiosk/swipe")))
    #expect(request.timeout == keyAction.timeout && request.cooldown == 250_000 && request.user == "kiosk")
    #expect(request.firedAt == Timestamp(microseconds: 7_000) && request.schedule == .oneShot)
    // The binding's shared variables only, as for every key firing: none of the firing's own.
    let shared = ActionEnvironment.Shared(
      profileName: "kiosk", profileEnvironment: ["KIOSK": "1"], bindingName: "swipe",
      bindingEnvironment: ["PAGE": "next"], deviceName: "Panel", devnode: "/dev/input/event4",
      path: ActionEnvironment.startingPath(user: "kiosk", daemonPath: "/usr/bin:/bin", daemonIsRoot: true))
    #expect(request.environment == ActionEnvironment(shared: shared))
    #expect(resolvedRequest(swipe)?.environment == request.environment)
    #expect(resolvedRequest(swipe)?.kind == request.kind && resolvedRequest(swipe)?.firedAt == request.firedAt)
    let step = GestureEvent(
      time: Timestamp(microseconds: 9_000), binding: 1, gesture: .pan, phase: .step(3), sequence: 12, fingers: 1,
      direction: .down, position: Point(x: 0.5, y: 0.5), region: nil)
    let stepRequest = try #require(table.inputRequest(for: step))
    #expect(stepRequest.key == "2#1" && stepRequest.kind == .input(PreparedInput(.wheel(1), label: "kiosk/pan")))
    #expect(stepRequest.firedAt == Timestamp(microseconds: 9_000))
    #expect(stepRequest.schedule == .step(stream: "/dev/input/event4#12/pan"))
    #expect(resolvedRequest(step)?.schedule == stepRequest.schedule)
    // An end runs its command; a command binding's firing and an unknown region or binding
    // take the resolved firing's way (which refuses the last two).
    var end = step
    end.phase = .end(steps: 3)
    end.endReason = .lift
    #expect(table.inputRequest(for: end) == nil)
    #expect(resolvedRequest(end)?.command == "logger done")
    var tap = swipe
    tap.binding = 2
    tap.gesture = .tap
    #expect(table.inputRequest(for: tap) == nil)
    #expect(resolvedRequest(tap)?.command == "echo tap")
    var unknownRegion = swipe
    unknownRegion.region = 5
    #expect(table.inputRequest(for: unknownRegion) == nil && resolvedRequest(unknownRegion) == nil)
    var unknownBinding = swipe
    unknownBinding.binding = 9
    #expect(table.inputRequest(for: unknownBinding) == nil && resolvedRequest(unknownBinding) == nil)
  }
}
