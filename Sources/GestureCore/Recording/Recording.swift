/// A parsed evemu file: the device it describes (if it has a description) and its events.
///
/// Files written by `evemu-describe` have a description and no events; files cut down to
/// their `E:` lines have events and no description (`device == nil`): those take their device
/// from a separate description file.
public struct Recording: Sendable {
  public var device: DeviceDescription?
  /// In file order; times never go backwards.
  public var events: [RawEvent]

  public init(device: DeviceDescription?, events: [RawEvent]) {
    self.device = device
    self.events = events
  }
}

/// A line of a recording that could not be read.
public struct RecordingError: Error, Sendable, Hashable, CustomStringConvertible {
  public var file: String
  /// 1-based.
  public var line: Int
  /// What is wrong and what was expected.
  public var message: String

  public init(file: String, line: Int, message: String) {
    self.file = file
    self.line = line
    self.message = message
  }

  public var description: String { "\(file):\(line): \(message)" }
}
