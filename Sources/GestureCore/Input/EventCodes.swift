/// The evdev constants the core needs, from linux/input-event-codes.h. Kept here rather than
/// imported from C so that GestureCore stays pure Swift and builds without kernel headers.
public enum EventType {
  public static let syn: UInt16 = 0x00
  public static let key: UInt16 = 0x01
  public static let rel: UInt16 = 0x02
  public static let abs: UInt16 = 0x03
  public static let msc: UInt16 = 0x04
  /// EV_MAX: the highest event type the kernel defines.
  public static let max: UInt16 = 0x1f
}

public enum SynCode {
  public static let report: UInt16 = 0
  public static let config: UInt16 = 1
  public static let mtReport: UInt16 = 2
  public static let dropped: UInt16 = 3
}

public enum KeyCode {
  public static let btnLeft: UInt16 = 0x110
  public static let btnToolPen: UInt16 = 0x140
  public static let btnToolFinger: UInt16 = 0x145
  public static let btnTouch: UInt16 = 0x14a
  /// BTN_TOOL_FINGER, _DOUBLETAP, _TRIPLETAP, _QUADTAP, _QUINTTAP: one to five contacts down.
  public static let fingerCounts: [UInt16] = [0x145, 0x14d, 0x14e, 0x14f, 0x148]
  /// KEY_MAX
  public static let max: UInt16 = 0x2ff
}

public enum AbsCode {
  public static let x: UInt16 = 0x00
  public static let y: UInt16 = 0x01
  public static let mtSlot: UInt16 = 0x2f
  public static let pressure: UInt16 = 0x18
  public static let mtTouchMajor: UInt16 = 0x30
  public static let mtPositionX: UInt16 = 0x35
  public static let mtPositionY: UInt16 = 0x36
  public static let mtToolType: UInt16 = 0x37
  public static let mtPressure: UInt16 = 0x3a
  public static let mtTrackingID: UInt16 = 0x39
  /// ABS_MAX
  public static let max: UInt16 = 0x3f
}

/// Values of ABS_MT_TOOL_TYPE.
public enum ToolType {
  public static let finger: Int32 = 0
  public static let pen: Int32 = 1
  public static let palm: Int32 = 2
}

/// Input properties (INPUT_PROP_*).
public enum InputProperty {
  public static let pointer: UInt16 = 0
  public static let direct: UInt16 = 1
  /// INPUT_PROP_MAX
  public static let max: UInt16 = 0x1f
}
