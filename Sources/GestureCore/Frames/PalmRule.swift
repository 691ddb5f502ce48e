/// What makes a contact a palm rather than a finger (`palm-size`): the panel labels it
/// MT_TOOL_PALM, or its ABS_MT_TOUCH_MAJOR is at least the threshold, in millimetres by that
/// axis's resolution (else the X axis's). A panel that reports no touch-major, or no
/// resolution to read it in millimetres, has only the label.
///
/// The frame assembler (recognition) and the forward gate (the clone) judge by the same rule.
public struct PalmRule: Hashable, Sendable {
  /// Touch-major in device units at and above which a contact is a palm; `Int32.max` when
  /// touch-major does not count.
  public let majorLimit: Int32

  public init(device: DeviceDescription, palmSize: Distance, diagonal: Double) {
    let millimetres = palmSize.millimetres(diagonal: diagonal)
    guard millimetres > 0, let major = device.axes[AbsCode.mtTouchMajor] else {
      majorLimit = .max
      return
    }
    let resolution =
      major.resolution > 0
      ? major.resolution : (device.axes[AbsCode.mtPositionX]?.resolution ?? device.axes[AbsCode.x]?.resolution ?? 0)
    guard resolution > 0 else {
      majorLimit = .max
      return
    }
    let units = (millimetres * Double(resolution)).rounded(.up)
    majorLimit = units >= Double(Int32.max) ? .max : Int32(max(1, units))
  }

  /// Whether touch-major counts at all on this panel.
  public var readsTouchMajor: Bool { majorLimit != .max }

  @inline(__always)
  public func isPalm(toolType: Int32, touchMajor: Int32) -> Bool {
    toolType == ToolType.palm || touchMajor >= majorLimit
  }
}
