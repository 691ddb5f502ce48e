import GestureCore
import Testing

@testable import TouchScript

// What gestured-touch asks uinput for and when it writes each event; the uinput calls
// themselves run in the VM scenarios (Tests/VM), where /dev/uinput exists.

private func setup(_ panelLine: String) throws -> UinputDeviceSetup {
  let parsed = try TouchScript.parse(panelLine + "\n", file: "panel.touch")
  return try UinputDeviceSetup(device: parsed.device)
}

private func axis(_ setup: UinputDeviceSetup, _ code: UInt16) -> AxisInfo? {
  setup.axes.first { $0.code == code }?.info
}

@Suite("gestured-touch device setup")
struct UinputDeviceSetupTests {
  @Test("protocol B with resolution: slots, tracking ids, positions, pointer emulation, ids")
  func protocolBWithResolution() throws {
    let device = try setup(
      "panel mt-b name=\"VM Panel\" vendor=0x1234 product=0x5678 version=7 x=0..4095 y=0..2303 resolution=16 slots=5"
    )
    #expect(device.name == "VM Panel")
    #expect(device.bus == 0x03)
    #expect(device.vendor == 0x1234 && device.product == 0x5678 && device.version == 7)
    #expect(device.eventTypes == [EventType.syn, EventType.key, EventType.abs])
    #expect(device.keys == [KeyCode.btnTouch])
    #expect(device.properties == [InputProperty.direct])
    #expect(
      device.axes.map(\.code) == [
        AbsCode.x, AbsCode.y, AbsCode.mtSlot, AbsCode.mtPositionX, AbsCode.mtPositionY,
        AbsCode.mtTrackingID,
      ])
    #expect(
      axis(device, AbsCode.mtPositionX) == AxisInfo(minimum: 0, maximum: 4095, resolution: 16))
    #expect(
      axis(device, AbsCode.mtPositionY) == AxisInfo(minimum: 0, maximum: 2303, resolution: 16))
    #expect(axis(device, AbsCode.x) == AxisInfo(minimum: 0, maximum: 4095, resolution: 16))
    #expect(axis(device, AbsCode.mtSlot) == AxisInfo(minimum: 0, maximum: 4))
    #expect(axis(device, AbsCode.mtTrackingID) == AxisInfo(minimum: 0, maximum: 65535))
  }

  @Test("protocol B without resolution keeps resolution 0 on every axis")
  func protocolBWithoutResolution() throws {
    let device = try setup("panel mt-b x=0..32767 y=0..32767 resolution=0")
    #expect(device.axes.allSatisfy { $0.info.resolution == 0 })
    #expect(axis(device, AbsCode.mtPositionX)?.maximum == 32767)
  }

  @Test("protocol A has positions but neither slots nor tracking ids, nor pointer emulation")
  func protocolA() throws {
    let device = try setup("panel mt-a x=0..32767 y=0..18431 resolution=128")
    #expect(device.axes.map(\.code) == [AbsCode.mtPositionX, AbsCode.mtPositionY])
    #expect(device.keys == [KeyCode.btnTouch])
  }

  @Test("single-touch kinds: ABS_X/ABS_Y with BTN_TOUCH, or BTN_LEFT as Elo panels report")
  func singleTouch() throws {
    let touch = try setup("panel single x=0..4095 y=0..2303 resolution=16")
    #expect(touch.axes.map(\.code) == [AbsCode.x, AbsCode.y])
    #expect(touch.keys == [KeyCode.btnTouch])
    let elo = try setup("panel single-left vendor=0x04e7 product=0x0020 direct=no")
    #expect(elo.keys == [KeyCode.btnLeft])
    #expect(elo.properties.isEmpty)
  }

  @Test("a name longer than uinput keeps is refused, not cut")
  func longName() throws {
    let fits = String(repeating: "n", count: UinputDeviceSetup.maximumNameBytes)
    #expect(try setup("panel mt-b name=\"\(fits)\"").name == fits)
    // 40 two-byte characters: 80 bytes, one more than fits.
    let tooLong = String(repeating: "é", count: 40)
    #expect(throws: UinputPlanError.self) { try setup("panel mt-b name=\"\(tooLong)\"") }
  }

  @Test("descriptions the kernel would reject are refused with a message")
  func invalidDescriptions() {
    var upsideDown = DeviceDescription(name: "x")
    upsideDown.axes[AbsCode.x] = AxisInfo(minimum: 10, maximum: 0)
    #expect(throws: UinputPlanError.self) { try UinputDeviceSetup(device: upsideDown) }

    var tooManySlots = DeviceDescription(name: "x")
    tooManySlots.axes[AbsCode.mtSlot] = AxisInfo(minimum: 0, maximum: 64)
    #expect(throws: UinputPlanError.self) { try UinputDeviceSetup(device: tooManySlots) }

    var unknownKey = DeviceDescription(name: "x")
    unknownKey.keys = [KeyCode.max + 1]
    #expect(throws: UinputPlanError.self) { try UinputDeviceSetup(device: unknownKey) }

    #expect(throws: UinputPlanError.self) {
      try UinputDeviceSetup(device: DeviceDescription(name: "two\nlines"))
    }
  }
}

@Suite("gestured-touch playback schedule")
struct PlaybackScheduleTests {
  private func event(_ microseconds: Int64, _ code: UInt16 = SynCode.report) -> RawEvent {
    RawEvent(time: Timestamp(microseconds: microseconds), type: EventType.syn, code: code, value: 0)
  }

  @Test("offsets count from the first event, whatever clock the events are on")
  func offsetsFromFirstEvent() {
    let schedule = PlaybackSchedule(events: [event(5_000_000), event(5_000_000), event(5_080_000)])
    #expect(schedule.steps.map(\.offset) == [0, 0, 80_000])
    #expect(schedule.duration == 80_000)
  }

  @Test("an event stamped before its predecessor is written right after it, never earlier")
  func neverBackwards() {
    let schedule = PlaybackSchedule(events: [event(0), event(50_000), event(40_000), event(60_000)])
    #expect(schedule.steps.map(\.offset) == [0, 50_000, 50_000, 60_000])
  }

  @Test("a script's events keep their order, types, codes and values")
  func scriptEvents() throws {
    let parsed = try TouchScript.parse(
      "panel mt-b\ntap at=100ms x=0.5 y=0.5 duration=80ms\n", file: "tap.touch")
    let schedule = PlaybackSchedule(events: parsed.events)
    #expect(schedule.steps.count == parsed.events.count)
    #expect(schedule.steps.map(\.code) == parsed.events.map(\.code))
    #expect(schedule.steps.map(\.value) == parsed.events.map(\.value))
    // The script starts at 100 ms; playback starts with its first event.
    #expect(schedule.steps.first?.offset == 0)
    #expect(schedule.duration == 80_000)
  }

  @Test("no events: an empty schedule")
  func empty() {
    #expect(PlaybackSchedule(events: []).steps.isEmpty)
    #expect(PlaybackSchedule(events: []).duration == 0)
  }
}

@Suite("gestured-touch command line")
struct TouchPlayerInvocationTests {
  @Test("play takes its defaults: 1 s create wait, no hold, real timing")
  func playDefaults() {
    #expect(
      TouchPlayerInvocation.parse(["play", "a.touch"]) == .play(PlayOptions(script: "a.touch")))
    #expect(PlayOptions(script: "a.touch").createWait == 1_000_000)
  }

  @Test("play options in any order, as milliseconds or times with a unit")
  func playOptions() {
    var expected = PlayOptions(script: "a.touch")
    expected.createWait = 250_000
    expected.holdOpen = 1_500_000
    expected.instant = true
    #expect(
      TouchPlayerInvocation.parse([
        "play", "--hold-open", "1.5s", "a.touch", "--instant", "--create-wait", "250",
      ]) == .play(expected))

    var signalled = PlayOptions(script: "a.touch")
    signalled.waitForSignal = true
    #expect(
      TouchPlayerInvocation.parse(["play", "a.touch", "--wait-for-signal"]) == .play(signalled))
  }

  @Test("record and create")
  func recordAndCreate() {
    #expect(
      TouchPlayerInvocation.parse(["record", "a.touch", "-o", "a.evemu"])
        == .record(script: "a.touch", output: "a.evemu"))
    #expect(
      TouchPlayerInvocation.parse(["record", "--output", "-", "a.touch"])
        == .record(script: "a.touch", output: "-"))
    #expect(TouchPlayerInvocation.parse(["create", "a.touch"]) == .create(script: "a.touch"))
  }

  @Test("help wins wherever it is asked for")
  func help() {
    #expect(TouchPlayerInvocation.parse(["--help"]) == .help)
    #expect(TouchPlayerInvocation.parse(["play", "x", "-h"]) == .help)
    #expect(TouchPlayerInvocation.parse(["help"]) == .help)
  }

  @Test(
    "bad command lines are usage errors that say what is wrong",
    arguments: [
      ([], "missing command"),
      (["dance", "a.touch"], "unknown command 'dance'"),
      (["play"], "SCRIPT.touch is required"),
      (["play", "a.touch", "b.touch"], "more than one script"),
      (["play", "a.touch", "--create-wait"], "--create-wait needs a value"),
      (["play", "a.touch", "--create-wait", "soon"], "expected milliseconds"),
      (["play", "a.touch", "--create-wait", "-5"], "expected milliseconds"),
      (["play", "a.touch", "--hold-open", "1", "--hold-open", "2"], "given twice"),
      (["play", "a.touch", "--create-wait", "1", "--wait-for-signal"], "exclude each other"),
      (["record", "a.touch"], "-o FILE is required"),
      (["record", "a.touch", "-o"], "needs a file name"),
      (["create", "a.touch", "-o", "x"], "for record only"),
      (["create", "a.touch", "--instant"], "unknown option '--instant'"),
    ])
  func usageErrors(arguments: [String], message: String) throws {
    guard case .usageError(let text) = TouchPlayerInvocation.parse(arguments) else {
      Issue.record("\(arguments) parsed without an error")
      return
    }
    #expect(text.contains(message), "\(text)")
  }
}
