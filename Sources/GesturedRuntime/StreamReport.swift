import GestureCore

/// The line replay and monitor print, with `--continuous`, for a stream event.
public enum StreamReport {
  /// One JSON object: `file`, `time`, `device`, `profile`, `region`, `gesture`, `phase`,
  /// `fingers`, then every value (`cx, cy, dx, dy, scale, angle, vx, vy, vscale, vangle`,
  /// four decimals), so that one line describes a frame of its gesture. No `binding` key: a
  /// stream belongs to the gesture, not to a binding. Without a trailing newline; nil when
  /// the event names a region the profile does not have (an engine bug).
  public static func jsonLine(file: String, deviceName: String, profile: Profile, event: GestureStreamEvent)
    -> String?
  {
    json(file: file, deviceName: deviceName, profile: profile, event: event)?.line
  }

  /// The same line and a newline, after what `output` holds; false (nothing added) where
  /// `jsonLine` is nil.
  public static func appendJSONLine(
    file: String, deviceName: String, profile: Profile, event: GestureStreamEvent, to output: inout [UInt8]
  ) -> Bool {
    guard let json = json(file: file, deviceName: deviceName, profile: profile, event: event) else { return false }
    json.appendLine(to: &output)
    return true
  }

  private static func json(file: String, deviceName: String, profile: Profile, event: GestureStreamEvent)
    -> JSONLine?
  {
    var regionName: String? = nil
    if let region = event.region {
      guard profile.regions.indices.contains(region) else { return nil }
      regionName = profile.regions[region].name
    }
    let values = event.values
    var json = JSONLine()
    json.add("file", file)
    json.add("time", event.time)
    json.add("device", deviceName)
    json.add("profile", profile.name)
    json.add("region", regionName)
    json.add("gesture", event.gesture.rawValue)
    json.add("phase", event.phase.rawValue)
    json.add("fingers", event.fingers)
    json.add("cx", rounded: values.cx)
    json.add("cy", rounded: values.cy)
    json.add("dx", rounded: values.dx)
    json.add("dy", rounded: values.dy)
    json.add("scale", rounded: values.scale)
    json.add("angle", rounded: values.angle)
    json.add("vx", rounded: values.vx)
    json.add("vy", rounded: values.vy)
    json.add("vscale", rounded: values.vscale)
    json.add("vangle", rounded: values.vangle)
    return json
  }
}
