// Profiles for the fuzz targets, built through the config loader rather than the model's
// initializers, so the targets keep compiling while the model changes shape.
import GestureCore
import GesturedConfig

enum FuzzProfiles {
  /// Every gesture kind, with regions and an edge, so every recognizer sees the events.
  static let bindings = """
        simultaneous: [[pinch, rotate]]
        regions:
          - { name: corner, area: { x: 0, y: 0, width: 0.2, height: 0.2 } }
          - { name: main }
        bindings:
          - { gesture: tap, run: a }
          - { gesture: tap, taps: 2, region: main, run: b }
          - { gesture: tap, fingers: 2, run: c }
          - { gesture: tap, taps: 5, region: corner, run: d }
          - { gesture: long-press, run: e }
          - { gesture: long-press, fingers: 3, run: f }
          - { gesture: swipe, direction: left, run: g }
          - { gesture: swipe, fingers: 3, direction: up, run: h }
          - { gesture: swipe, edge: left, direction: right, run: i }
          - { gesture: pinch, direction: in, run: j }
          - { gesture: pinch, direction: out, run: k }
          - { gesture: rotate, direction: clockwise, run: l }
    """

  /// The one profile with these settings; nil settings are left out. A combination the
  /// validator refuses falls back to the plain profile.
  static func configuration(
    rotation: Int = 0, calibration: [Double]? = nil, size: (Double, Double)? = nil
  ) -> Configuration {
    let text = yaml(rotation: rotation, calibration: calibration, size: size)
    if let cached = cache[text] { return cached }
    // Loading is most of an input's cost: keep what was loaded, within bounds.
    if cache.count >= 4096 { cache.removeAll(keepingCapacity: true) }
    let configuration = ConfigLoader.parse(text, file: "fuzz.yaml").configuration ?? plain
    cache[text] = configuration
    return configuration
  }

  nonisolated(unsafe) private static var cache: [String: Configuration] = [:]

  private static func yaml(rotation: Int, calibration: [Double]?, size: (Double, Double)?)
    -> String
  {
    var text = "devices:\n  - rotation: \(rotation)\n"
    if let calibration {
      text += "    calibration: [\(calibration.map { "\($0)" }.joined(separator: ", "))]\n"
    }
    if let size { text += "    size: { width: \(size.0)mm, height: \(size.1)mm }\n" }
    return text + bindings + "\n"
  }

  static let plain: Configuration = {
    let text = "devices:\n  - rotation: 0\n" + bindings + "\n"
    guard let configuration = ConfigLoader.parse(text, file: "fuzz.yaml").configuration else {
      fatalError("the fuzz profile does not load: \(ConfigLoader.parse(text, file: "fuzz.yaml").diagnostics)")
    }
    return configuration
  }()
}
