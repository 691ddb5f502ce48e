import GestureCore

// A touch script describes a virtual touchscreen and the touches on it, exactly, so that
// tests (and, later, a VM harness playing it through uinput) get the events a real kernel
// would deliver. Full reference with examples: docs/touchscript.md.
//
//   panel mt-b name="Scripted Panel B" vendor=0x1234 product=0x5678 x=0..4095 y=0..2303 resolution=16 slots=10
//   seed 42            # jitter is deterministic
//   jitter 0.3mm       # uniform noise per axis and sample, never outside the axis range
//   rate 100hz         # the panel's scan rate: held fingers are sampled this often
//   config double-tap.yaml   # the gestured config a replay of this script uses
//   end 3s             # optional: the recording goes on until then
//
//   at 0ms down 1 0.50 0.50          primitives: time, finger label, position as fractions
//   at 200ms move 1 0.60 0.50        0..1 of the panel as the DEVICE reports it (before the
//   at 300ms up 1                    config's rotation); `0.5+8mm` adds millimetres
//
//   tap    at= x= y= [fingers= stagger= spacing= duration=80ms move=DX,DY taps= gap=150ms]
//   hold   the same as tap, duration=800ms by default
//   swipe  at= from=X,Y (to=X,Y | by=DX,DY) [fingers= stagger= spacing= duration=300ms]
//   drag   the same as swipe, duration=2s by default
//   pinch  at= center=X,Y from=SPAN to=SPAN [by=ANGLE angle=ANGLE still=1|2 stagger= duration=400ms]
//   rotate at= center=X,Y span=SPAN by=ANGLE [to=SPAN angle= still= stagger= duration=400ms]
//
//   expect tap binding=reload taps=2 fingers=1 region=main time=0.38±0.02 x=0.5±0.01 y=0.5±0.01
//   expect pinch direction=in scale=0.75..0.8 time=380ms+-40ms   # ranges for one-sided values
//   expect nothing                   # the replay must fire nothing at all
//   expect stream pinch changed region=left scale=2±0.05   # a stream event, in order
//   expect stream pinch began count=1                      # how many stream events fit
//
// Timing rules: a finger that lifts with a position (macros, `at T up F X Y`) reaches it one
// sample before the lift, since the lift frame itself carries no position; `duration` is
// first finger down to last finger up.

/// A script line that cannot be used.
public struct TouchScriptError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Set by `TouchScript.parse`; empty while the line is being read.
  public var file: String
  /// 1-based.
  public var line: Int
  public var message: String

  public init(file: String = "", line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String { "\(file):\(line): \(message)" }
}

/// How the virtual panel reports contacts.
public enum PanelKind: String, Hashable, Sendable, CaseIterable {
  /// Protocol B with an ABS_MT_SLOT axis.
  case multitouchB = "mt-b"
  /// Tracking ids but no ABS_MT_SLOT axis: one contact at a time, always slot 0.
  case multitouchBSlotZero = "mt-b-slot0"
  /// Protocol A: anonymous contacts separated by SYN_MT_REPORT.
  case multitouchA = "mt-a"
  /// ABS_X/ABS_Y with BTN_TOUCH.
  case singleTouch = "single"
  /// ABS_X/ABS_Y with BTN_LEFT, as Elo panels report.
  case singleTouchLeft = "single-left"

  var isMultitouch: Bool {
    self == .multitouchB || self == .multitouchBSlotZero || self == .multitouchA
  }
}

/// The virtual panel a script describes.
public struct Panel: Hashable, Sendable {
  public var kind: PanelKind
  public var name: String = "TouchScript Panel"
  public var bus: UInt16 = 0x03
  public var vendor: UInt16 = 0
  public var product: UInt16 = 0
  public var version: UInt16 = 1
  public var xAxis = AxisInfo(minimum: 0, maximum: 4095)
  public var yAxis = AxisInfo(minimum: 0, maximum: 4095)
  /// Protocol B slots (ABS_MT_SLOT's maximum + 1); 1 for `mt-b-slot0`, unused otherwise.
  public var slots: Int = 10
  /// INPUT_PROP_DIRECT.
  public var direct = true
  /// Multitouch kinds: also report the oldest contact on ABS_X/ABS_Y, as the kernel's
  /// pointer emulation does.
  public var pointerEmulation: Bool
  /// The size the script's millimetres refer to, when the config gives the panel a `size:`.
  public var declaredSize: PanelSize?
  /// mt-b: ABS_MT_TOUCH_MAJOR (`touch-major=MIN..MAX`, `major-resolution=N`), which no
  /// touch of the script sets: events injected into the panel do (palm rejection).
  public var touchMajor: AxisInfo?
  /// mt-b: ABS_MT_TOOL_TYPE, finger to palm (`tool-type=yes`).
  public var toolType = false

  public init(kind: PanelKind) {
    self.kind = kind
    pointerEmulation = kind != .multitouchA
    slots = kind == .multitouchB ? 10 : 1
  }

  /// The size in millimetres along the device's own axes that the script's lengths use:
  /// the declared size, else what gestured derives from the axes (resolution, or the longer
  /// axis taken as 300 mm when there is none).
  public var millimetres: PanelSize {
    if let declaredSize { return declaredSize }
    return Panel.millimetres(xAxis: xAxis, yAxis: yAxis)
  }

  /// The rule gestured applies to a panel without a configured size (PanelGeometry's).
  public static func millimetres(xAxis: AxisInfo, yAxis: AxisInfo) -> PanelSize {
    let geometry = PanelGeometry(xAxis: xAxis, yAxis: yAxis)
    return PanelSize(width: geometry.deviceWidth, height: geometry.deviceHeight)
  }

  /// What the panel looks like to evdev.
  public var device: DeviceDescription {
    var keys: Set<UInt16> = []
    var axes: [UInt16: AxisInfo] = [:]
    switch kind {
    case .multitouchB, .multitouchBSlotZero, .multitouchA:
      keys.insert(KeyCode.btnTouch)
      axes[AbsCode.mtPositionX] = xAxis
      axes[AbsCode.mtPositionY] = yAxis
      if kind == .multitouchB {
        axes[AbsCode.mtSlot] = AxisInfo(minimum: 0, maximum: Int32(clamping: slots - 1))
      }
      if kind != .multitouchA {
        axes[AbsCode.mtTrackingID] = AxisInfo(minimum: 0, maximum: 65535)
      }
      if pointerEmulation {
        axes[AbsCode.x] = xAxis
        axes[AbsCode.y] = yAxis
      }
      if let touchMajor { axes[AbsCode.mtTouchMajor] = touchMajor }
      if toolType { axes[AbsCode.mtToolType] = AxisInfo(minimum: 0, maximum: ToolType.palm) }
    case .singleTouch, .singleTouchLeft:
      keys.insert(kind == .singleTouch ? KeyCode.btnTouch : KeyCode.btnLeft)
      axes[AbsCode.x] = xAxis
      axes[AbsCode.y] = yAxis
    }
    return DeviceDescription(
      name: name, bus: bus, vendor: vendor, product: product, version: version,
      properties: direct ? [InputProperty.direct] : [], keys: keys, axes: axes)
  }
}

/// A parsed touch script: the panel, the events it produces, and what a replay must print.
public struct TouchScript: Sendable {
  /// The file name used in messages.
  public var file: String
  public var panel: Panel
  public var device: DeviceDescription
  /// What the kernel would deliver, in order, on the script's clock (0 = `at 0ms`).
  public var events: [RawEvent]
  public var expectations: [Expectation]
  /// `expect nothing`: the replay must fire nothing at all.
  public var expectsNothing: Bool
  /// `expect stream` lines, checked against the replay's stream (`check(stream:profile:)`).
  public var streamExpectations: [StreamExpectation] = []
  /// `expect stream nothing`: the replay must report no stream event.
  public var expectsNoStream = false
  /// The `config` line's path, as written (relative to the script's folder).
  public var configuration: String?
  public var seed: UInt64
  /// Millimetres of uniform noise per axis and sample.
  public var jitter: Double
  /// Time between two samples of a held finger.
  public var samplePeriod: Microseconds

  /// Reads a whole script; the first bad line throws, with its line number.
  public static func parse(_ text: String, file: String) throws(TouchScriptError) -> TouchScript {
    do {
      var reader = ScriptReader()
      var number = 0
      for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        number += 1
        try reader.read(ScriptLine(number: number, text: line))
      }
      return try reader.finish(file: file, lineCount: number)
    } catch {
      var located = error
      located.file = file
      throw located
    }
  }
}
