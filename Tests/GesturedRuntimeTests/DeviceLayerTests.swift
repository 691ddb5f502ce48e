import CEvdev
import Dispatch
import GestureCore
import GesturedConfig
import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

// This machine has no /dev/input: udev and libevdev are exercised as far as they go without
// devices; the live read path (drain, SYN_DROPPED, grab, hot-plug) runs in the VM tests.

/// Device descriptions as the kernel reports common panels.
enum Panels {
  /// A 10-slot protocol-B panel, 0..4095 × 0..2303 at 12 units/mm (341.3 × 191.9 mm).
  static func multitouch(name: String = "ILITEK ILITEK-TP", vendor: UInt16 = 0x222a)
    -> DeviceDescription
  {
    DeviceDescription(
      name: name, bus: 0x03, vendor: vendor, product: 0x0001, version: 0x0110,
      properties: [InputProperty.direct], keys: [KeyCode.btnTouch],
      axes: [
        AbsCode.x: AxisInfo(minimum: 0, maximum: 4095, resolution: 12),
        AbsCode.y: AxisInfo(minimum: 0, maximum: 2303, resolution: 12),
        AbsCode.mtSlot: AxisInfo(minimum: 0, maximum: 9),
        AbsCode.mtPositionX: AxisInfo(minimum: 0, maximum: 4095, resolution: 12),
        AbsCode.mtPositionY: AxisInfo(minimum: 0, maximum: 2303, resolution: 12),
        AbsCode.mtTrackingID: AxisInfo(minimum: 0, maximum: 65535),
      ])
  }

  /// An Elo single-touch panel that reports contact as BTN_LEFT and no resolution: udev
  /// calls it a mouse.
  static let eloSingleTouch = DeviceDescription(
    name: "Elo TouchSystems 2700 IntelliTouch", bus: 0x03, vendor: 0x04e7, product: 0x0020,
    keys: [KeyCode.btnLeft],
    axes: [
      AbsCode.x: AxisInfo(minimum: 0, maximum: 4095),
      AbsCode.y: AxisInfo(minimum: 0, maximum: 4095),
    ])

  /// A keyboard node: keys, no absolute axes.
  static let keyboard = DeviceDescription(
    name: "AT Translated Set 2 keyboard", bus: 0x11, vendor: 0x0001, product: 0x0001,
    keys: [30, 31, 32])
}

func node(
  _ number: Int, _ properties: [String: String], idPath: String? = nil,
  physicalDevice: String? = nil
) -> InputNode {
  var properties = properties
  if let idPath { properties["ID_PATH"] = idPath }
  return InputNode(
    syspath: "/sys/devices/test/input/input\(number)/event\(number)",
    devnode: "/dev/input/event\(number)", properties: properties, physicalDevice: physicalDevice)
}

let touchscreenProperties = ["ID_INPUT": "1", "ID_INPUT_TOUCHSCREEN": "1"]
let mouseProperties = ["ID_INPUT": "1", "ID_INPUT_MOUSE": "1"]
let tabletProperties = ["ID_INPUT": "1", "ID_INPUT_TABLET": "1"]
let keyboardProperties = ["ID_INPUT": "1", "ID_INPUT_KEY": "1", "ID_INPUT_KEYBOARD": "1"]

@Suite("InputNode: udev's classification and calibration")
struct InputNodeTests {
  @Test func classificationUsesUdevsWordsInAFixedOrder() {
    #expect(node(1, touchscreenProperties).classification == "touchscreen")
    #expect(node(1, keyboardProperties).classification == "keyboard,key")
    #expect(
      node(1, ["ID_INPUT_MOUSE": "1", "ID_INPUT_TABLET": "1"]).classification == "tablet,mouse")
    #expect(node(1, ["ID_INPUT_JOYSTICK": "1"]).classification == "joystick")
    #expect(node(1, ["ID_INPUT_TOUCHPAD": "1"]).classification == "touchpad")
    #expect(node(1, ["ID_INPUT": "1"]).classification == "unknown")
    #expect(node(1, [:]).classification == "unknown")
  }

  @Test func onlyTheValueOneMakesATouchscreen() {
    #expect(node(1, touchscreenProperties).isTouchscreen)
    #expect(!node(1, ["ID_INPUT_TOUCHSCREEN": "0"]).isTouchscreen)
    #expect(node(1, ["ID_INPUT_TOUCHSCREEN": "0"]).classification == "unknown")
    #expect(!node(1, mouseProperties).isTouchscreen)
    #expect(node(1, mouseProperties).isMouseOrTablet)
    #expect(node(1, tabletProperties).isMouseOrTablet)
    #expect(!node(1, touchscreenProperties).isMouseOrTablet)
  }

  @Test func sysnameComesFromTheDevnodeWhenNotGiven() {
    #expect(
      InputNode(syspath: "/sys/x/event12", devnode: "/dev/input/event12").sysname == "event12")
    #expect(node(1, [:], idPath: "").idPath == nil)
    #expect(
      node(1, [:], idPath: "pci-0000:00:14.0-usb-0:2:1.0").idPath == "pci-0000:00:14.0-usb-0:2:1.0")
  }

  @Test func aGoodCalibrationMatrixIsParsed() throws {
    let rotated = try InputNode.parseCalibration("0 -1 1 1 0 0").get()
    #expect(rotated == [0, -1, 1, 1, 0, 0])
    let scaled = try InputNode.parseCalibration("  1.05\t0 -0.025  0 1.1 -5e-2 ").get()
    #expect(scaled == [1.05, 0, -0.025, 0, 1.1, -0.05])
    let calibrated = node(1, ["LIBINPUT_CALIBRATION_MATRIX": "-1 0 1 0 1 0"])
    #expect(calibrated.calibration == [-1, 0, 1, 0, 1, 0])
    #expect(calibrated.calibrationProblem == nil)
  }

  @Test func aBadCalibrationMatrixIsRefusedWithTheReason() {
    #expect(InputNode.parseCalibration("1 0 0 0 1") == .failure(.wrongCount(5)))
    #expect(InputNode.parseCalibration("1 0 0 0 1 0 0") == .failure(.wrongCount(7)))
    #expect(InputNode.parseCalibration("") == .failure(.wrongCount(0)))
    #expect(InputNode.parseCalibration("1 0 0 0 1 x") == .failure(.notANumber("x")))
    #expect(InputNode.parseCalibration("1,0,0,0,1,0") == .failure(.wrongCount(1)))
    // strtod would take these; libinput does not, and neither do we.
    #expect(InputNode.parseCalibration("nan 0 0 0 1 0") == .failure(.notANumber("nan")))
    #expect(InputNode.parseCalibration("inf 0 0 0 1 0") == .failure(.notANumber("inf")))
    #expect(InputNode.parseCalibration("0x1p0 0 0 0 1 0") == .failure(.notANumber("0x1p0")))
    #expect(InputNode.parseCalibration("1e999 0 0 0 1 0") == .failure(.notANumber("1e999")))
    // Both rows the same: every touch lands on one line.
    #expect(InputNode.parseCalibration("1 1 0 1 1 0") == .failure(.singular))

    let broken = node(1, ["LIBINPUT_CALIBRATION_MATRIX": "1 0 0 0 1"])
    #expect(broken.calibration == nil)
    #expect(broken.calibrationProblem == .wrongCount(5))
    #expect(broken.calibrationProblem?.description == "it has 5 numbers, not 6")
    #expect(node(1, [:]).calibration == nil)
    #expect(node(1, [:]).calibrationProblem == nil)
  }

  @Test func twinsShareAnIdPathAPhysicalDeviceOrALibinputGroup() {
    let touch = node(5, touchscreenProperties, idPath: "pci-0000:00:14.0-usb-0:1:1.0")
    let mouse = node(6, mouseProperties, idPath: "pci-0000:00:14.0-usb-0:1:1.0")
    let pen = node(7, tabletProperties, physicalDevice: "/sys/devices/pci0000:00/usb1/1-3")
    let penTouch = node(
      8, touchscreenProperties, physicalDevice: "/sys/devices/pci0000:00/usb1/1-3")
    var groupA = node(9, touchscreenProperties)
    groupA.properties["LIBINPUT_DEVICE_GROUP"] = "3/eef/1:usb-0000:00:14.0-4"
    var groupB = node(10, mouseProperties)
    groupB.properties["LIBINPUT_DEVICE_GROUP"] = "3/eef/1:usb-0000:00:14.0-4"
    let other = node(11, touchscreenProperties, idPath: "pci-0000:00:14.0-usb-0:2:1.0")
    let all = [touch, mouse, pen, penTouch, groupA, groupB, other]

    #expect(touch.twins(in: all).map(\.node.devnode) == ["/dev/input/event6"])
    #expect(touch.twins(in: all).map(\.reason) == ["same ID_PATH"])
    #expect(pen.twins(in: all).map(\.node.devnode) == ["/dev/input/event8"])
    #expect(pen.twins(in: all).map(\.reason) == ["same physical device"])
    #expect(groupB.twins(in: all).map(\.node.devnode) == ["/dev/input/event9"])
    #expect(groupB.twins(in: all).map(\.reason) == ["same LIBINPUT_DEVICE_GROUP"])
    #expect(other.twins(in: all).isEmpty)
  }
}

@Suite("Device selection: which profile takes a node")
struct DeviceSelectionTests {
  func profile(_ name: String, match: DeviceMatch? = nil) -> Profile {
    Profile(name: name, match: match)
  }

  @Test func theDefaultProfileTakesTouchscreens() {
    let configuration = Configuration()
    let verdict = DeviceSelection.verdict(
      for: node(5, touchscreenProperties), device: Panels.multitouch(), in: configuration)
    #expect(verdict == .taken(profile: 0))
    #expect(
      DeviceSelection.profile(
        for: node(5, touchscreenProperties), device: Panels.multitouch(), in: configuration) == 0)
  }

  @Test func theDefaultProfileNeverTakesAMouseOrTablet() {
    let configuration = Configuration()
    for properties in [
      mouseProperties, tabletProperties, keyboardProperties, ["ID_INPUT_TOUCHPAD": "1"],
    ] {
      let subject = node(7, properties)
      let verdict = DeviceSelection.verdict(
        for: subject, device: Panels.eloSingleTouch, in: configuration)
      #expect(verdict == .notTouchscreen)
      #expect(
        DeviceSelection.profile(for: subject, device: Panels.eloSingleTouch, in: configuration)
          == nil)
      let reason = DeviceSelection.reason(verdict, node: subject, in: configuration)
      #expect(reason?.contains("not a touchscreen (udev: \(subject.classification))") == true)
    }
  }

  @Test func aMouseOrTabletIsTakenOnlyByAnExplicitMatch() {
    let configuration = Configuration(profiles: [
      profile("elo", match: DeviceMatch(name: "Elo *")),
      profile("pen", match: DeviceMatch(vendor: 0x0eef, product: 0x0001)),
      profile("default"),
    ])
    #expect(
      DeviceSelection.profile(
        for: node(7, mouseProperties), device: Panels.eloSingleTouch, in: configuration) == 0)
    let eGalax = Panels.multitouch(name: "eGalax Inc. USB TouchController Pen", vendor: 0x0eef)
    #expect(
      DeviceSelection.profile(for: node(8, tabletProperties), device: eGalax, in: configuration)
        == 1)
    // A mouse nothing selects stays alone, though a default exists.
    let plainMouse = Panels.multitouch(name: "Logitech", vendor: 0x046d)
    #expect(
      DeviceSelection.verdict(for: node(9, mouseProperties), device: plainMouse, in: configuration)
        == .notTouchscreen)
  }

  @Test func profilesAreTriedInOrderAndTheFirstMatchWins() {
    let configuration = Configuration(profiles: [
      profile("first", match: DeviceMatch(name: "ILITEK*")),
      profile("second", match: DeviceMatch(vendor: 0x222a)),
      profile("default"),
    ])
    let subject = node(5, touchscreenProperties)
    #expect(
      DeviceSelection.profile(for: subject, device: Panels.multitouch(), in: configuration) == 0)
    let sameVendor = Panels.multitouch(name: "Multi-Touch-V3000")
    #expect(DeviceSelection.profile(for: subject, device: sameVendor, in: configuration) == 1)
    let other = Panels.multitouch(name: "Goodix Capacitive TouchScreen", vendor: 0x27c6)
    #expect(DeviceSelection.profile(for: subject, device: other, in: configuration) == 2)
  }

  @Test func udevPropertiesTellIdenticalPanelsApart() {
    let left = "pci-0000:00:14.0-usb-0:1:1.0"
    let right = "pci-0000:00:14.0-usb-0:2:1.0"
    let configuration = Configuration(profiles: [
      profile("right", match: DeviceMatch(name: "ILITEK*", udev: ["ID_PATH": right])),
      profile("default"),
    ])
    let panel = Panels.multitouch()
    #expect(
      DeviceSelection.profile(
        for: node(5, touchscreenProperties, idPath: right), device: panel, in: configuration) == 0)
    #expect(
      DeviceSelection.profile(
        for: node(6, touchscreenProperties, idPath: left), device: panel, in: configuration) == 1)
    #expect(
      DeviceSelection.profile(for: node(7, touchscreenProperties), device: panel, in: configuration)
        == 1)
  }

  @Test func virtualSelectsByWhetherHardwareIsBehindTheNode() {
    let real = node(5, touchscreenProperties)
    var uinput = node(6, touchscreenProperties)
    uinput.syspath = "/sys/devices/virtual/input/input6/event6"
    #expect(!real.isVirtual)
    #expect(uinput.isVirtual)
    let panel = Panels.multitouch()
    func taker(_ subject: InputNode, _ profiles: [Profile]) -> Int? {
      DeviceSelection.profile(for: subject, device: panel, in: Configuration(profiles: profiles))
    }
    // Without the key, both, as a default profile takes them.
    #expect(taker(real, [profile("default")]) == 0)
    #expect(taker(uinput, [profile("default")]) == 0)
    #expect(taker(uinput, [profile("ilitek", match: DeviceMatch(name: "ILITEK*"))]) == 0)
    // false leaves virtual devices out of the entry; a later entry may still take them.
    let realOnly = profile("real", match: DeviceMatch(virtual: false))
    #expect(taker(real, [realOnly]) == 0)
    #expect(taker(uinput, [realOnly]) == nil)
    let configuration = Configuration(profiles: [realOnly])
    let verdict = DeviceSelection.verdict(for: uinput, device: panel, in: configuration)
    #expect(
      DeviceSelection.reason(verdict, node: uinput, in: configuration)?.hasSuffix(
        "it is a virtual device (under /sys/devices/virtual), which 'virtual: false' leaves out") == true)
    #expect(taker(uinput, [realOnly, profile("default")]) == 1)
    let realIlitek = profile("real-ilitek", match: DeviceMatch(name: "ILITEK*", virtual: false))
    #expect(taker(real, [realIlitek]) == 0)
    #expect(taker(uinput, [realIlitek]) == nil)
    // true takes only them.
    let virtualOnly = profile("virtual", match: DeviceMatch(virtual: true))
    #expect(taker(uinput, [virtualOnly]) == 0)
    #expect(taker(real, [virtualOnly, profile("default")]) == 1)
    // `virtual` alone filters touchscreens; it never widens an entry to mice or touchpads.
    #expect(
      DeviceSelection.verdict(
        for: node(7, ["ID_INPUT_TOUCHPAD": "1"]), device: panel, in: Configuration(profiles: [realOnly]))
        == .notTouchscreen)
  }

  @Test func gesturedsOwnClonesAreNeverTakenEvenByVirtualTrue() {
    var clone = node(9, touchscreenProperties)
    clone.syspath = "/sys/devices/virtual/input/input9/event9"
    var description = Panels.multitouch()
    description.phys = UinputClone.markerPrefix + "/dev/input/event5"
    for profiles in [[profile("virtual", match: DeviceMatch(virtual: true))], [profile("default")]] {
      #expect(
        DeviceSelection.verdict(for: clone, device: description, in: Configuration(profiles: profiles))
          == .forwardingClone)
    }
  }

  @Test func gesturedsOwnKeyboardAndPointerAreNeverTakenWhateverMatchesThem() {
    var keyboard = node(10, ["ID_INPUT_KEYBOARD": "1"])
    keyboard.syspath = "/sys/devices/virtual/input/input10/event10"
    var description = Panels.multitouch()
    description.phys = VirtualInputDevice.markerPrefix + "keyboard"
    let configuration = Configuration(profiles: [profile("virtual", match: DeviceMatch(virtual: true))])
    let verdict = DeviceSelection.verdict(for: keyboard, device: description, in: configuration)
    #expect(verdict == .virtualInput)
    #expect(DeviceSelection.reason(verdict, node: keyboard, in: configuration)?.contains("virtual keyboard") == true)
  }

  @Test func aTouchscreenNoProfileMatchesIsLeftAloneWithTheReason() {
    let configuration = Configuration(profiles: [profile("elo", match: DeviceMatch(vendor: 0x04e7))]
    )
    let subject = node(5, touchscreenProperties)
    let verdict = DeviceSelection.verdict(
      for: subject, device: Panels.multitouch(), in: configuration)
    #expect(verdict == .noProfileMatches)
    #expect(verdict.profile == nil)
    #expect(
      DeviceSelection.reason(verdict, node: subject, in: configuration)?.contains(
        "no profile matches")
        == true)
  }

  @Test func aNodeWithoutTouchAxesIsNeverTaken() {
    // A panel's keyboard node (hot keys) matches the panel's vendor, but has nothing to read.
    let configuration = Configuration(profiles: [
      profile("panel", match: DeviceMatch(vendor: 0x0001)), profile("default"),
    ])
    let subject = node(3, keyboardProperties)
    let verdict = DeviceSelection.verdict(for: subject, device: Panels.keyboard, in: configuration)
    #expect(verdict == .noTouchAxes(matchingProfile: 0))
    #expect(verdict.profile == nil)
    #expect(
      DeviceSelection.reason(verdict, node: subject, in: configuration)?.contains("'panel'") == true
    )
    // A node udev calls a touchscreen but that has no position axes either.
    #expect(
      DeviceSelection.verdict(
        for: node(4, touchscreenProperties), device: Panels.keyboard, in: Configuration())
        == .noTouchAxes(matchingProfile: 0))
  }

  @Test func udevCalibrationAppliesOnlyWhenTheProfileSetsNone() throws {
    let rotated = node(
      5, touchscreenProperties.merging(["LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"]) { $1 })
    let plain = Profile(name: "plain")
    let applied = DeviceSelection.effectiveProfile(plain, node: rotated)
    #expect(applied.calibration == [0, -1, 1, 1, 0, 0])
    #expect(DeviceSelection.calibrationSource(of: plain, node: rotated) == .udev)
    // The matrix really moves touches: device top-left becomes top-right (90° clockwise).
    let geometry = try #require(PanelGeometry(device: Panels.multitouch(), profile: applied))
    let corner = geometry.userPoint(x: 0, y: 0)
    #expect(abs(corner.x - 1) < 1e-9 && abs(corner.y) < 1e-9)

    var own = Profile(name: "own")
    own.calibration = [-1, 0, 1, 0, 1, 0]
    #expect(DeviceSelection.effectiveProfile(own, node: rotated) == own)
    #expect(DeviceSelection.calibrationSource(of: own, node: rotated) == .profile)

    let broken = node(6, ["LIBINPUT_CALIBRATION_MATRIX": "1 0 0"])
    #expect(DeviceSelection.effectiveProfile(plain, node: broken) == plain)
    #expect(DeviceSelection.calibrationSource(of: plain, node: broken) == .none)
  }
}

@Suite("udev watcher and evdev devices without devices")
struct DeviceAccessTests {
  /// Event nodes the kernel has, as a cross-check for udev's enumeration.
  func kernelEventNodes() -> Int {
    guard let directory = opendir("/sys/class/input") else { return 0 }
    defer { closedir(directory) }
    var count = 0
    while let entry = readdir(directory) {
      let name = withUnsafePointer(to: entry.pointee.d_name) {
        $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
      }
      if name.hasPrefix("event") { count += 1 }
    }
    return count
  }

  @Test func theWatcherStartsAndEnumeratesOnlyInitializedEventNodes() throws {
    let queue = DispatchQueue(label: "udev-test")
    let log = CapturedOutput()
    let changes = ChangeLog()
    let watcher = try queue.sync {
      try UdevWatcher(multiplexer: EventMultiplexer(queue: queue), logger: Logger(sink: log)) { changes.append($0) }
    }
    let nodes = queue.sync { watcher.enumerate() }
    let kernelNodes = kernelEventNodes()
    #expect(nodes.count <= kernelNodes)
    if kernelNodes == 0 { #expect(nodes.isEmpty) }
    for node in nodes {
      #expect(node.isInitialized)
      #expect(node.sysname.hasPrefix("event"))
      #expect(node.devnode.hasPrefix("/dev/"))
      #expect(node.syspath.hasPrefix("/sys/"))
    }
    #expect(log.text == "")
    queue.sync {
      watcher.cancel()
      watcher.cancel()
    }
    #expect(changes.count == 0)
  }

  @Test func eachNodeIsAddedOnceAndRemovedOnlyWhenItWasAdded() throws {
    let queue = DispatchQueue(label: "udev-test")
    let changes = ChangeLog()
    let log = CapturedOutput()
    let watcher = try queue.sync {
      try UdevWatcher(multiplexer: EventMultiplexer(queue: queue), logger: Logger(sink: log, verbose: true)) {
        changes.append($0)
      }
    }
    defer { queue.sync { watcher.cancel() } }
    var fresh = node(5, touchscreenProperties)
    fresh.isInitialized = false
    queue.sync {
      watcher.apply(.add(fresh))
      #expect(changes.descriptions == [])
      #expect(log.text.contains("/dev/input/event5 is not initialized yet"))
      // udev's "change" once its rules ran: the node is new to the daemon.
      fresh.isInitialized = true
      watcher.apply(.change(fresh))
      watcher.apply(.add(fresh))
      watcher.apply(.change(fresh))
      watcher.apply(.remove(syspath: fresh.syspath, devnode: nil))
      watcher.apply(.remove(syspath: fresh.syspath, devnode: fresh.devnode))
      watcher.apply(.remove(syspath: "/sys/devices/never/event9", devnode: "/dev/input/event9"))
    }
    #expect(
      changes.descriptions == [
        "added /dev/input/event5", "changed /dev/input/event5", "removed /dev/input/event5",
      ])
  }

  @Test func afterLostMessagesOnlyTheDifferenceIsReported() throws {
    let queue = DispatchQueue(label: "udev-test")
    let changes = ChangeLog()
    let watcher = try queue.sync {
      try UdevWatcher(multiplexer: EventMultiplexer(queue: queue), logger: Logger(sink: CapturedOutput())) {
        changes.append($0)
      }
    }
    defer { queue.sync { watcher.cancel() } }
    let stays = node(5, touchscreenProperties)
    let goes = node(6, touchscreenProperties)
    let comes = node(7, touchscreenProperties)
    queue.sync {
      watcher.apply(.add(stays))
      watcher.apply(.add(goes))
      watcher.resynchronize(with: [stays, comes])
      // Both now known: a late "add" from the monitor changes nothing.
      watcher.apply(.add(comes))
    }
    #expect(
      changes.descriptions == [
        "added /dev/input/event5", "added /dev/input/event6", "removed /dev/input/event6",
        "added /dev/input/event7",
      ])
  }

  @Test func nothingIsReportedAfterCancelInsideACallback() throws {
    let queue = DispatchQueue(label: "udev-test")
    let changes = ChangeLog()
    let box = WatcherBox()
    box.watcher = try queue.sync {
      try UdevWatcher(multiplexer: EventMultiplexer(queue: queue), logger: Logger(sink: CapturedOutput())) {
        changes.append($0)
        box.watcher?.cancel()
      }
    }
    queue.sync {
      box.watcher?.resynchronize(with: [
        node(5, touchscreenProperties), node(6, touchscreenProperties),
      ])
    }
    #expect(changes.descriptions == ["added /dev/input/event5"])
    box.watcher = nil
  }

  @Test func theUdevContextListsUninitializedNodesOnlyWhenAsked() throws {
    let context = try UdevContext()
    let all = try context.eventNodes(includingUninitialized: true)
    let initialized = try context.eventNodes()
    #expect(initialized.count <= all.count)
    #expect(Set(initialized.map(\.syspath)).isSubset(of: Set(all.map(\.syspath))))
    #expect(all.count <= kernelEventNodes())
  }

  @Test func openingSomethingThatIsNotAnEvdevNodeSaysSo() {
    #expect(throws: DeviceError(devnode: "/dev/null", operation: .readCapabilities, errno: .notATerminal)) {
      _ = try EvdevDevice(devnode: "/dev/null")
    }
    // With a log target installed the failure path frees it as well.
    let log = CapturedOutput()
    #expect(throws: DeviceError(devnode: "/dev/null", operation: .readCapabilities, errno: .notATerminal)) {
      _ = try EvdevDevice(devnode: "/dev/null", logger: Logger(sink: log))
    }
    for line in log.lines { #expect(line.hasPrefix("/dev/null: libevdev: ")) }
    let directory = TemporaryDirectory()
    let file = directory.write("not-a-device", "hello\n")
    do {
      _ = try EvdevDevice(devnode: file)
      Issue.record("a regular file was accepted as an evdev device")
    } catch {
      #expect(error.operation == .readCapabilities)
      #expect(error.errno == .notATerminal)
      #expect(
        error.description
          == "\(file): cannot read its capabilities: Inappropriate ioctl for device (not an evdev device)"
      )
      #expect(!error.isPermissionDenied)
    }
  }

  @Test func openingAMissingNodeGivesTheOpenError() {
    do {
      _ = try EvdevDevice(devnode: "/dev/input/event999")
      Issue.record("a missing node was opened")
    } catch {
      #expect(error == DeviceError(devnode: "/dev/input/event999", operation: .open, errno: .noSuchFileOrDirectory))
      #expect(error.description == "/dev/input/event999: cannot open: No such file or directory")
    }
  }

  @Test func permissionErrorsAreRecognized() {
    let denied = DeviceError(devnode: "/dev/input/event3", operation: .open, errno: .permissionDenied)
    #expect(denied.isPermissionDenied)
    #expect(denied.description == "/dev/input/event3: cannot open: Permission denied")
  }

  @Test func libevdevMessagesGoToTheLogWithTheDevnode() throws {
    let handle = try #require(libevdev_new())
    let log = CapturedOutput()
    let target = LibevdevLogTarget(devnode: "/dev/input/event5", logger: Logger(sink: log))
    target.install(on: handle)
    // Reading from a handle without an fd is an error libevdev reports through the log.
    withExtendedLifetime(target) {
      var event = input_event()
      #expect(libevdev_next_event(handle, LIBEVDEV_READ_FLAG_NORMAL.rawValue, &event) < 0)
      libevdev_free(handle)
    }
    let line = try #require(log.lines.first)
    #expect(log.lines.count == 1)
    #expect(line.hasPrefix("/dev/input/event5: libevdev: "))
    #expect(line.contains("libevdev_set_fd"))
    // Priorities: libevdev's errors are warnings, its info is info, debug only when verbose.
    let verbose = CapturedOutput()
    let levels = LibevdevLogTarget(
      devnode: "x", logger: Logger(sink: verbose, journalPrefixes: true, verbose: true))
    levels.log(priority: Int32(LIBEVDEV_LOG_ERROR.rawValue), message: "e")
    levels.log(priority: Int32(LIBEVDEV_LOG_INFO.rawValue), message: "i")
    levels.log(priority: Int32(LIBEVDEV_LOG_DEBUG.rawValue), message: "d")
    #expect(verbose.lines == ["<4>x: libevdev: e", "<6>x: libevdev: i", "<7>x: libevdev: d"])
  }

  @Test func kernelTimestampsBecomeMicroseconds() {
    var event = input_event()
    event.time.tv_sec = 12_345
    event.time.tv_usec = 678_901
    event.type = UInt16(EV_ABS)
    event.code = UInt16(ABS_MT_POSITION_X)
    event.value = -7
    let raw = EvdevDevice.rawEvent(event)
    #expect(raw.time == Timestamp(microseconds: 12_345_678_901))
    #expect(raw.type == EventType.abs)
    #expect(raw.code == AbsCode.mtPositionX)
    #expect(raw.value == -7)
  }
}

/// Changes reported by a watcher (only touched on its queue).
final class ChangeLog: @unchecked Sendable {
  private(set) var changes: [UdevWatcher.Change] = []
  var count: Int { changes.count }
  func append(_ change: UdevWatcher.Change) { changes.append(change) }

  var descriptions: [String] {
    changes.map {
      switch $0 {
      case .added(let node): "added \(node.devnode)"
      case .changed(let node): "changed \(node.devnode)"
      case .removed(_, let devnode): "removed \(devnode ?? "?")"
      }
    }
  }
}

final class WatcherBox: @unchecked Sendable {
  var watcher: UdevWatcher?
}

@Suite("gestured devices")
struct DevicesCommandTests {
  let directory = TemporaryDirectory()

  func run(
    _ command: DevicesCommand, nodes: [InputNode] = [],
    devices: [String: Result<DeviceDescription, DeviceError>] = [:]
  ) -> (ExitCode, stdout: String, stderr: String) {
    var command = command
    command.listNodes = { .success(nodes) }
    command.probe = { devnode, _ in
      devices[devnode] ?? .failure(DeviceError(devnode: devnode, operation: .open, errno: .noSuchFileOrDirectory))
    }
    let output = CapturedOutput()
    let errors = CapturedOutput()
    let code = command.run(output: output, errors: errors)
    return (code, output.text, errors.text)
  }

  /// The block of output lines about one devnode.
  func block(_ text: String, _ devnode: String) -> String {
    let blocks = text.split(separator: "\n\n").map { String($0) + "\n" }
    return blocks.first { $0.hasPrefix(devnode + " ") || $0.hasPrefix(devnode + "\n") } ?? ""
  }

  @Test func withoutConfigOrDevicesItSaysSoAndSucceeds() {
    var command = DevicesCommand()
    command.defaultPath = directory.file("absent.yaml")
    let (code, stdout, stderr) = run(command)
    #expect(code == .success)
    #expect(stdout.hasPrefix("config: \(directory.file("absent.yaml")) does not exist;"))
    #expect(stdout.contains("built-in default"))
    #expect(stdout.contains("no input event nodes"))
    #expect(stderr == "")
  }

  @Test func onThisMachineUdevIsAskedAndEveryNodeIsListed() throws {
    // The real lister and prober: here (no /dev/input) that is no node at all.
    var command = DevicesCommand()
    command.defaultPath = directory.file("absent.yaml")
    let output = CapturedOutput()
    let code = command.run(output: output, errors: CapturedOutput())
    #expect(code == .success)
    let listed = try UdevContext().eventNodes(includingUninitialized: true)
    if listed.isEmpty {
      #expect(output.text.contains("no input event nodes"))
    }
    for node in listed { #expect(output.text.contains(node.devnode)) }
  }

  @Test func aGivenConfigThatIsMissingExits66AndABadOneExits78() {
    let (missing, _, missingErrors) = run(DevicesCommand(configPath: directory.file("none.yaml")))
    #expect(missing == .missingFile)
    #expect(missingErrors.contains("cannot read config"))
    let bad = directory.write("bad.yaml", "bindings:\n  - { gesture: tapp, run: x }\n")
    let (code, stdout, stderr) = run(DevicesCommand(configPath: bad))
    #expect(code == .badConfig)
    #expect(stdout == "")
    #expect(stderr.contains("\(bad):2:"))
  }

  @Test func aForwardedPanelShowsItsHoldsAndGesturedsOwnCloneIsNeverTaken() throws {
    let config = directory.write(
      "forward.yaml",
      """
      devices:
        - name: kiosk
          forward: true
          regions: [{ name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.1 } }]
          bindings: [{ gesture: tap, taps: 5, region: corner, run: "true" }]
      """ + "\n")
    let panel = node(5, touchscreenProperties)
    let clone = node(6, touchscreenProperties)
    var cloneDevice = Panels.multitouch()
    cloneDevice.phys = UinputClone.markerPrefix + "usb-0000:00:14.0-1/input0"
    let (code, stdout, _) = run(
      DevicesCommand(configPath: config), nodes: [panel, clone],
      devices: [panel.devnode: .success(Panels.multitouch()), clone.devnode: .success(cloneDevice)])
    #expect(code == .success)
    let panelBlock = block(stdout, "/dev/input/event5")
    #expect(panelBlock.contains("  profile     'kiosk' (grab: takes the device exclusively)\n"))
    #expect(panelBlock.contains("  forward     grabbed; every touch that is not a gesture goes to a uinput clone"))
    #expect(
      panelBlock.contains(
        "              region 'corner': holds a touch at most 2000 ms or 512 frames (tap@corner: 5 taps of up to tap-max-duration with multi-tap-gap between: 2700 ms, past the bound)\n"
      ))
    #expect(panelBlock.contains("              elsewhere: holds nothing: every touch goes to the clone at once\n"))
    let cloneBlock = block(stdout, "/dev/input/event6")
    #expect(cloneBlock.contains("  profile     none: gestured's own forwarding clone of a panel"))
  }

  @Test func theTakingProfilesRegionsAreListedWithTheIndependentOnesMarked() throws {
    let config = directory.write(
      "table.yaml",
      """
      regions:
        - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }
        - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 }, independent: true }
        - { name: strip, area: { x: 0, y: 0, width: 1, height: 0.1 } }
      bindings: [{ gesture: tap, region: left, run: "true" }]
      """ + "\n")
    let panel = node(5, touchscreenProperties)
    let (code, stdout, _) = run(
      DevicesCommand(configPath: config), nodes: [panel], devices: [panel.devnode: .success(Panels.multitouch())])
    #expect(code == .success)
    let panelBlock = block(stdout, "/dev/input/event5")
    #expect(panelBlock.contains("  regions     'left' (independent), 'right' (independent), 'strip'\n"))
    #expect(panelBlock.contains("              touches that land in an independent region form sequences of their own"))

    let plain = directory.write(
      "plain.yaml",
      "regions: [{ name: strip, area: { x: 0, y: 0, width: 1, height: 0.1 } }]\nbindings: [{ gesture: tap, run: \"true\" }]\n"
    )
    let (_, plainOutput, _) = run(
      DevicesCommand(configPath: plain), nodes: [panel], devices: [panel.devnode: .success(Panels.multitouch())])
    #expect(plainOutput.contains("  regions     'strip'\n"))
    #expect(!plainOutput.contains("independent"))
  }

  @Test func everyNodeIsShownWithWhatTakesItOrWhyNothingDoes() throws {
    let config = directory.write(
      "devices.yaml",
      """
      devices:
        - name: elo
          match: { name: "Elo *" }
          grab: true
          bindings: [{ gesture: tap, run: "true" }]
        - name: kiosk
          bindings: [{ gesture: tap, run: "true" }]
      """ + "\n")
    let port = "pci-0000:00:14.0-usb-0:1:1.0"
    let touchscreen = node(
      5, touchscreenProperties.merging(["LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"]) { $1 },
      idPath: port)
    let twinMouse = node(6, mouseProperties, idPath: port)
    let elo = node(7, mouseProperties, idPath: "pci-0000:00:14.0-usb-0:3:1.0")
    var keyboard = node(3, keyboardProperties, idPath: "platform-i8042-serio-0")
    keyboard.name = "AT Translated Set 2 keyboard"
    let later = node(10, touchscreenProperties, idPath: "pci-0000:00:14.0-usb-0:4:1.0")
    let (code, stdout, stderr) = run(
      DevicesCommand(configPath: config),
      nodes: [touchscreen, twinMouse, elo, keyboard, later],
      devices: [
        touchscreen.devnode: .success(Panels.multitouch()),
        twinMouse.devnode: .success(Panels.eloSingleTouchNamed("ILITEK ILITEK-TP Mouse")),
        elo.devnode: .success(Panels.eloSingleTouch),
        keyboard.devnode: .failure(
          DeviceError(devnode: keyboard.devnode, operation: .open, errno: .permissionDenied)),
        later.devnode: .success(Panels.multitouch(name: "Goodix Capacitive TouchScreen")),
      ])
    #expect(code == .success)
    #expect(stderr == "")
    #expect(stdout.hasPrefix("config: \(config) (2 profiles: 'elo', 'kiosk')\n"))

    // event3 before event5 … before event10.
    let order = ["event3", "event5", "event6", "event7", "event10"].map {
      stdout.firstRange(of: "/dev/input/\($0) ")?.lowerBound
    }
    let positions = order.compactMap { $0 }
    #expect(positions.count == 5)
    #expect(positions == positions.sorted())

    let panel = block(stdout, "/dev/input/event5")
    #expect(panel.hasPrefix("/dev/input/event5  \"ILITEK ILITEK-TP\"\n"))
    #expect(
      panel.contains(
        "  ids         bus 0x0003 (usb), vendor 0x222a, product 0x0001, version 0x0110\n"))
    #expect(panel.contains("  ID_PATH     \(port)\n"))
    #expect(panel.contains("  udev        touchscreen\n"))
    #expect(panel.contains("  protocol    multitouch B (slots and tracking ids)\n"))
    #expect(panel.contains("  slots       10\n"))
    #expect(panel.contains("  size        341.3 x 191.9 mm (from the axis resolution)\n"))
    #expect(
      panel.contains(
        "  calibration [0.0, -1.0, 1.0, 1.0, 0.0, 0.0] from udev LIBINPUT_CALIBRATION_MATRIX\n"))
    #expect(panel.contains("  twin        /dev/input/event6 (same ID_PATH)\n"))
    #expect(panel.hasSuffix("  profile     'kiosk'\n"))
    #expect(!panel.contains("warning"))

    let mouse = block(stdout, "/dev/input/event6")
    #expect(mouse.contains("  udev        mouse\n"))
    #expect(mouse.contains("  twin        /dev/input/event5 (same ID_PATH)\n"))
    #expect(mouse.contains("  profile     none: not a touchscreen (udev: mouse)"))
    // Measured, but no warning: nothing uses this node.
    #expect(mouse.contains("(guessed:"))
    #expect(!mouse.contains("warning"))
    // The touchscreen twin serves this panel: no hint to take the mouse node as well.
    #expect(!mouse.contains("hint"))

    let eloBlock = block(stdout, "/dev/input/event7")
    #expect(eloBlock.contains("  protocol    single-touch, contact by BTN_LEFT\n"))
    #expect(eloBlock.contains("  slots       1\n"))
    #expect(eloBlock.contains("  size        300.0 x 300.0 mm (guessed:"))
    #expect(eloBlock.contains("  warning: size guessed: set `size:` in the profile 'elo'\n"))
    #expect(eloBlock.contains("  profile     'elo' (grab: takes the device exclusively)\n"))
    #expect(!eloBlock.contains("twin"))

    let denied = block(stdout, "/dev/input/event3")
    #expect(denied.hasPrefix("/dev/input/event3  \"AT Translated Set 2 keyboard\"\n"))
    #expect(denied.contains("  udev        keyboard,key\n"))
    #expect(denied.contains("  open        cannot open: Permission denied\n"))
    #expect(denied.contains("hint: run as root, or as a member of the 'input' group"))
    #expect(denied.contains("  profile     unknown: the node cannot be read\n"))
    #expect(!denied.contains("ids"))

    #expect(block(stdout, "/dev/input/event10").contains("  profile     'kiosk'\n"))

    #expect(stdout.contains("\n5 input nodes, 3 taken by a profile\n"))
    #expect(stdout.contains("hint: 1 node could not be read"))
    #expect(!stdout.contains("identical panels"))
    #expect(!stdout.contains("are one panel"))
    // Taken nodes get no match hint; nor do nodes without touch axes.
    #expect(!eloBlock.contains("hint"))
  }

  @Test func aPanelUdevCallsAMouseGetsTheMatchThatWouldTakeIt() throws {
    var command = DevicesCommand()
    command.defaultPath = directory.file("absent.yaml")
    var tricky = Panels.eloSingleTouch
    tricky.name = "Elo [Touch]* it's"
    let elo = node(7, mouseProperties)
    let (_, stdout, _) = run(command, nodes: [elo], devices: [elo.devnode: .success(tricky)])
    #expect(
      block(stdout, "/dev/input/event7").contains(
        #"hint: if this is a touch panel, a profile with match: { name: 'Elo \[Touch\]\* it''s', vendor: 0x04e7, product: 0x0020 } takes it"#
      ))
    // The suggested glob matches the name and nothing else.
    #expect(Glob.matches(pattern: DevicesCommand.globEscaped(tricky.name), name: tricky.name))
    #expect(!Glob.matches(pattern: DevicesCommand.globEscaped(tricky.name), name: "Elo T* it's"))

    // Pasted into a config, the suggested match takes the panel.
    let hint = block(stdout, "/dev/input/event7")
    let start = try #require(hint.firstRange(of: "match: {")?.lowerBound)
    let end = try #require(hint[start...].firstRange(of: "} takes it")?.lowerBound)
    let yaml =
      "devices:\n  - name: elo\n    " + hint[start..<end] + "}\n"
      + "    bindings: [{ gesture: tap, run: \"true\" }]\n"
    let loaded = ConfigLoader.parse(yaml, file: "pasted.yaml")
    let configuration = try #require(loaded.configuration, "\(loaded.diagnostics)")
    #expect(DeviceSelection.profile(for: elo, device: tricky, in: configuration) == 0)
  }

  @Test func twinNodesBothTakenAreWarnedAbout() {
    let config = directory.write(
      "greedy.yaml",
      """
      devices:
        - name: ilitek
          match: { name: "ILITEK*" }
          bindings: [{ gesture: tap, run: "true" }]
      """ + "\n")
    let port = "pci-0000:00:14.0-usb-0:1:1.0"
    let touchscreen = node(5, touchscreenProperties, idPath: port)
    let twinMouse = node(6, mouseProperties, idPath: port)
    let (code, stdout, _) = run(
      DevicesCommand(configPath: config), nodes: [touchscreen, twinMouse],
      devices: [
        touchscreen.devnode: .success(Panels.multitouch()),
        twinMouse.devnode: .success(Panels.eloSingleTouchNamed("ILITEK ILITEK-TP Mouse")),
      ])
    #expect(code == .success)
    #expect(block(stdout, "/dev/input/event6").contains("  profile     'ilitek'\n"))
    #expect(stdout.contains("\n2 input nodes, 2 taken by a profile\n"))
    #expect(
      stdout.contains(
        "warning: /dev/input/event5 and /dev/input/event6 are one panel and all taken: a touch may"
      ))
  }

  @Test func identicalPanelsGetAHintToMatchOnTheirPort() {
    let left = node(5, touchscreenProperties, idPath: "pci-0000:00:14.0-usb-0:1:1.0")
    let right = node(9, touchscreenProperties, idPath: "pci-0000:00:14.0-usb-0:2:1.0")
    var command = DevicesCommand()
    command.defaultPath = directory.file("absent.yaml")
    let (code, stdout, _) = run(
      command, nodes: [left, right],
      devices: [
        left.devnode: .success(Panels.multitouch()), right.devnode: .success(Panels.multitouch()),
      ])
    #expect(code == .success)
    #expect(
      stdout.contains(
        "hint: identical panels \"ILITEK ILITEK-TP\" at /dev/input/event5, /dev/input/event9"))
    #expect(
      stdout.contains(
        "  match: { udev: { ID_PATH: \"pci-0000:00:14.0-usb-0:2:1.0\" } }    # /dev/input/event9\n")
    )
    // Different ports: not twins.
    #expect(!stdout.contains("twin "))
  }

  @Test func aTouchscreenNoProfileTakesAndAnUnusableCalibrationAreExplained() {
    let config = directory.write(
      "only-elo.yaml",
      """
      devices:
        - name: elo
          match: { vendor: 0x04e7 }
          calibration: [1, 0, 0, 0, 1, 0]
      """ + "\n")
    let touchscreen = node(
      5, touchscreenProperties.merging(["LIBINPUT_CALIBRATION_MATRIX": "1 0 0 0 1"]) { $1 })
    let elo = node(
      7, mouseProperties.merging(["LIBINPUT_CALIBRATION_MATRIX": "0 -1 1 1 0 0"]) { $1 })
    let (code, stdout, _) = run(
      DevicesCommand(configPath: config), nodes: [touchscreen, elo],
      devices: [
        touchscreen.devnode: .success(Panels.multitouch()),
        elo.devnode: .success(Panels.eloSingleTouch),
      ])
    #expect(code == .success)
    let panel = block(stdout, "/dev/input/event5")
    #expect(panel.contains("  profile     none: no profile matches it"))
    #expect(panel.contains("is unusable: it has 5 numbers, not 6\n"))
    let eloBlock = block(stdout, "/dev/input/event7")
    #expect(
      eloBlock.contains("  calibration [1.0, 0.0, 0.0, 0.0, 1.0, 0.0] from the profile 'elo'\n"))
    #expect(eloBlock.contains("ignored: the profile sets one\n"))
    #expect(eloBlock.contains("  profile     'elo'\n"))
  }
}

extension Panels {
  static func eloSingleTouchNamed(_ name: String) -> DeviceDescription {
    var device = eloSingleTouch
    device.name = name
    device.vendor = 0x222a
    return device
  }
}
