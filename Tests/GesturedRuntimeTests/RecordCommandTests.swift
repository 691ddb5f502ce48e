import CEvdev
import GestureCore
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

/// `gestured record`'s writer without a kernel: what it writes for a device and its events
/// is read back by EvemuParser as the same device and the same events. (The VM scenario
/// `record-...` records a live panel.)
@Suite("gestured record")
struct RecordCommandTests {
  /// The repository's example recording: a real-looking protocol B panel and 161 events.
  static let example = packageRoot + "/examples/double-tap-and-swipe.evemu"

  static func readExample() throws -> Recording {
    var bytes: [UInt8] = []
    let stream = try #require(fopen(example, "r"))
    defer { fclose(stream) }
    while case let byte = fgetc(stream), byte != EOF { bytes.append(UInt8(byte)) }
    return try EvemuParser.parse(bytes, file: example)
  }

  /// What `gestured record` writes for `device` and `events`.
  static func recorded(_ device: DeviceDescription, _ events: [RawEvent]) -> String {
    var recorder = EvemuRecorder(device: device, comment: "test")
    return recorder.header + events.map { recorder.line(for: $0) }.joined()
  }

  @Test func aRecordingReadsBackAsTheSameDeviceAndEvents() throws {
    let original = try Self.readExample()
    let device = try #require(original.device)
    let text = Self.recorded(device, original.events)
    let again = try EvemuParser.parse(text, file: "recorded.evemu")
    #expect(again.device == device)
    #expect(again.events.count == original.events.count)
    // Times count from the first event; everything else is as read.
    let start = try #require(original.events.first).time
    let shifted = original.events.map {
      RawEvent(time: Timestamp(microseconds: $0.time - start), type: $0.type, code: $0.code, value: $0.value)
    }
    #expect(again.events == shifted)
    #expect(again.events.first?.time == Timestamp(microseconds: 0))
  }

  /// The description as libevdev gives it for a live node (here a handle built in memory
  /// from the example's description) is what the recording says.
  @Test func aLibevdevDescriptionIsRecordedCompletely() throws {
    let original = try #require(try Self.readExample().device)
    let handle = try #require(libevdev_new())
    defer { libevdev_free(handle) }
    libevdev_set_name(handle, original.name)
    libevdev_set_id_bustype(handle, Int32(original.bus))
    libevdev_set_id_vendor(handle, Int32(original.vendor))
    libevdev_set_id_product(handle, Int32(original.product))
    libevdev_set_id_version(handle, Int32(original.version))
    for property in original.properties { libevdev_enable_property(handle, UInt32(property)) }
    for key in original.keys { libevdev_enable_event_code(handle, UInt32(EV_KEY), UInt32(key), nil) }
    for (code, axis) in original.axes {
      var info = input_absinfo(
        value: 0, minimum: axis.minimum, maximum: axis.maximum, fuzz: axis.fuzz, flat: axis.flat,
        resolution: axis.resolution)
      libevdev_enable_event_code(handle, UInt32(EV_ABS), UInt32(code), &info)
    }
    let live = DeviceDescription(libevdev: handle)
    #expect(live == original)

    let text = Self.recorded(live, [])
    #expect(text.hasPrefix("# EVEMU 1.3\n# test\n"))
    #expect(text.contains("\nN: \(original.name)\n"))
    let again = try EvemuParser.parse(text, file: "description.evemu")
    #expect(again.device == original)
    #expect(again.events.isEmpty)
  }

  @Test func eventLinesAreTimedFromTheFirstEventWithEvemusComments() {
    var recorder = EvemuRecorder(device: DeviceDescription(name: "panel"), comment: "test")
    let at = { (microseconds: Int64) in Timestamp(microseconds: 5_000_000_000 + microseconds) }
    let lines = [
      recorder.line(for: RawEvent(time: at(0), type: EventType.abs, code: AbsCode.mtTrackingID, value: 7)),
      recorder.line(for: RawEvent(time: at(0), type: EventType.syn, code: SynCode.report, value: 0)),
      recorder.line(for: RawEvent(time: at(12_345), type: EventType.abs, code: AbsCode.mtTrackingID, value: -1)),
      recorder.line(for: RawEvent(time: at(12_345), type: EventType.syn, code: SynCode.report, value: 0)),
    ]
    #expect(
      lines == [
        "E: 0.000000 0003 0039 0007\t# EV_ABS / ABS_MT_TRACKING_ID   7\n",
        "E: 0.000000 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +0ms\n",
        "E: 0.012345 0003 0039 -001\t# EV_ABS / ABS_MT_TRACKING_ID   -1\n",
        "E: 0.012345 0000 0000 0000\t# ------------ SYN_REPORT (0) ---------- +12ms\n",
      ])
  }

  @Test func aMissingDeviceExits66WithAHint() {
    let errors = CapturedOutput()
    let code = RecordCommand(devicePath: "/dev/input/event-none").run(errors: errors)
    #expect(code == .missingFile)
    #expect(errors.text.hasPrefix("gestured: record: /dev/input/event-none: cannot open: No such file or directory\n"))
    #expect(errors.text.contains("hint: 'gestured devices' lists the input nodes"))
  }

  @Test func aFileThatIsNotAnInputDeviceExits66() {
    let errors = CapturedOutput()
    let code = RecordCommand(devicePath: Self.example).run(errors: errors)
    #expect(code == .missingFile)
    #expect(errors.text.contains("(not an evdev device)"))
  }

  @Test func theCommandLineTakesOneDevice() {
    guard case .record(let command) = Invocation.parse(["record", "/dev/input/event5"]) else {
      Issue.record("record was not recognized")
      return
    }
    #expect(command == RecordCommand(devicePath: "/dev/input/event5"))
    guard case .help(let help) = Invocation.parse(["help", "record"]) else {
      Issue.record("help record was not recognized")
      return
    }
    #expect(help == Usage.record)
    for (arguments, message) in [
      (["record"], "record: no DEVICE given (e.g. /dev/input/event5)"),
      (["record", "a", "b"], "record: unexpected argument 'b'"),
      (["record", "--config", "x"], "record: unknown option '--config'"),
    ] {
      guard case .usageError(let actual, _) = Invocation.parse(arguments) else {
        Issue.record("\(arguments) should be a usage error")
        continue
      }
      #expect(actual == message)
    }
  }
}
