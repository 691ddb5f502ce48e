import GestureCore
import GesturedConfig
import TouchScript

/// The benchmark's input, generated: touch scripts in the shapes of the replay scenarios
/// (Tests/ReplayTests/Scenarios), on 240 Hz panels of both multitouch protocols, turned into
/// the events a kernel would deliver and repeated, later each time, up to the size asked for.
/// Generated rather than stored, so a benchmark of millions of events ships as this file.
enum BenchmarkStream {
  /// The config every stream runs against: taps, multi-taps, long press, swipes of 1 to 5
  /// fingers and stepping pan/pinch/rotate in one group, as a map kiosk would bind them.
  /// (The script's 10-finger swipe runs through unbound: gestured follows up to 5.)
  static let configuration = configuration(regions: "")

  /// The config with `regions` (lines of the device entry, indented, or nothing) added.
  static func configuration(regions: String) -> String {
    """
    devices:
      - simultaneous: [[pan, pinch, rotate]]
    \(regions)    bindings:
          - { gesture: tap, name: tap, run: "true" }
          - { gesture: tap, taps: 2, name: double-tap, run: "true" }
          - { gesture: tap, fingers: 2, name: two-finger-tap, run: "true" }
          - { gesture: long-press, name: hold, run: "true" }
          - { gesture: swipe, direction: right, name: right, run: "true" }
          - { gesture: swipe, direction: left, name: left, run: "true" }
          - { gesture: swipe, fingers: 3, direction: up, name: three-up, run: "true" }
          - { gesture: swipe, fingers: 5, direction: right, name: five-right, run: "true" }
          - { gesture: pan, fingers: 2, direction: right, step: 12mm, name: pan-right, run: "true", end: "true" }
          - { gesture: pan, fingers: 2, direction: left, step: 12mm, name: pan-left, run: "true" }
          - { gesture: pinch, direction: out, step: 10%, name: zoom-in, run: "true", end: "true" }
          - { gesture: pinch, direction: in, step: 10%, name: zoom-out, run: "true" }
          - { gesture: rotate, direction: clockwise, step: 15deg, name: turn-cw, run: "true" }
          - { gesture: rotate, direction: counterclockwise, step: 15deg, name: turn-ccw, run: "true" }

    """
  }

  /// One round of touches (about 9 s of panel time); `panel` is the script's panel line.
  static func script(panel: String) -> String {
    """
    \(panel)
    seed 7
    jitter 0.2mm
    rate 240hz
    tap at=100ms x=0.5 y=0.5
    tap at=600ms x=0.3 y=0.4 taps=2 duration=80ms gap=150ms
    tap at=1300ms x=0.6 y=0.6 fingers=2 duration=90ms
    hold at=1800ms x=0.4 y=0.5 duration=900ms
    swipe at=3000ms from=0.2,0.5 by=80mm,0 duration=250ms
    swipe at=3500ms from=0.8,0.5 by=-80mm,0 duration=250ms
    swipe at=4000ms from=0.5,0.8 by=0,-70mm fingers=3 duration=300ms
    swipe at=4600ms from=0.35,0.5 by=90mm,0 fingers=10 spacing=9mm duration=600ms
    swipe at=5200ms from=0.3,0.3 by=60mm,0 fingers=5 spacing=12mm duration=250ms
    pinch at=5700ms center=0.5,0.5 from=30mm to=90mm duration=700ms
    pinch at=6500ms center=0.5,0.5 from=90mm to=30mm by=40deg duration=700ms
    at 7500ms down 1 0.3 0.5
    at 7500ms down 2 0.3+40mm 0.5
    at 8500ms move 1 0.3+60mm 0.5
    at 8500ms move 2 0.3+100mm 0.5
    at 8600ms up 1
    at 8600ms up 2

    """
  }

  /// A stream `gestured-bench core --stream NAME` runs: the panel and script it is made
  /// of, the config it runs against and the instruction count it must stay within.
  struct Definition: Sendable {
    /// What `--stream` takes.
    var name: String
    var title: String
    /// The TouchScript of one round, its panel line included.
    var script: String
    var configuration: String
    /// Instructions per raw event in `DeviceEngine.handle(events:into:)` (callgrind, run by
    /// Tests/Benchmarks/bench.sh), at most: BENCHMARKS.md's row "instructions per raw event".
    var instructionGoal: Int

    /// One of the two streams that differ only in the touch protocol (A, B).
    var isProtocolStream: Bool { name == "A" || name == "B" }
  }

  /// Every stream, in the order `core` runs them and `streams` lists them.
  static let streams: [Definition] = [
    Definition(
      name: "B", title: "protocol B",
      script: script(panel: #"panel mt-b name="Bench Panel B" x=0..4095 y=0..2303 resolution=16 slots=10"#),
      configuration: configuration, instructionGoal: 123),
    Definition(
      name: "A", title: "protocol A",
      script: script(panel: #"panel mt-a name="Bench Panel A" x=0..4095 y=0..2303 resolution=16"#),
      configuration: configuration, instructionGoal: 152),
    Definition(
      name: "independent", title: "independent", script: independentScript,
      // Two independent regions busy cost no more per raw event than protocol B's one sequence.
      configuration: independentConfiguration, instructionGoal: 123),
  ]

  /// The third stream's config: the same bindings on a panel whose halves are independent
  /// regions, as a table two people use at once.
  static let independentConfiguration = configuration(
    regions: """
          regions:
            - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }
            - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 }, independent: true }

      """)

  /// The third stream's round (about 3 s of protocol B panel time): both halves busy at
  /// once, two pinches, then a two-finger pan on the left while the right is tapped, then
  /// a pan on the right while the left pinches in. Panel 256 × 144 mm: the fractions below
  /// put each gesture in its half.
  static let independentScript = """
    panel mt-b name="Bench Panel B" x=0..4095 y=0..2303 resolution=16 slots=10
    seed 7
    jitter 0.2mm
    rate 240hz
    at 100ms down l1 0.1914 0.5
    at 100ms down l2 0.3086 0.5
    at 100ms down r1 0.5742 0.5
    at 100ms down r2 0.9258 0.5
    at 800ms move l1 0.0742 0.5
    at 800ms move l2 0.4258 0.5
    at 800ms move r1 0.6914 0.45
    at 800ms move r2 0.8086 0.55
    at 850ms up l1
    at 850ms up l2
    at 850ms up r1
    at 850ms up r2
    at 1000ms down p1 0.1 0.4
    at 1000ms down p2 0.2172 0.4
    at 1900ms move p1 0.4125 0.4
    at 1900ms move p2 0.5297 0.4
    at 1950ms up p1
    at 1950ms up p2
    at 1100ms down t1 0.75 0.5
    at 1180ms up t1
    at 1400ms down t1 0.8 0.4
    at 1480ms up t1
    at 1600ms down t1 0.8 0.4
    at 1680ms up t1
    at 1800ms down t1 0.7 0.6
    at 1800ms down t2 0.76 0.6
    at 1890ms up t1
    at 1890ms up t2
    at 2100ms down q1 0.9 0.7
    at 2100ms down q2 0.9 0.5
    at 2900ms move q1 0.6 0.7
    at 2900ms move q2 0.6 0.5
    at 2950ms up q1
    at 2950ms up q2
    at 2100ms down l1 0.0742 0.3
    at 2100ms down l2 0.4258 0.3
    at 2800ms move l1 0.1914 0.3
    at 2800ms move l2 0.3086 0.3
    at 2850ms up l1
    at 2850ms up l2

    """

  static func stream(named name: String) -> Definition? {
    streams.first { $0.name == name }
  }

  struct Stream {
    var name: String
    var device: DeviceDescription
    var events: [RawEvent]
    /// SYN_REPORTs: frames the assembler completes.
    var frames: Int
  }

  struct GenerationError: Error, CustomStringConvertible {
    var description: String
  }

  static func loadConfiguration(_ definition: Definition) throws(GenerationError) -> Configuration {
    let result = ConfigLoader.parse(definition.configuration, file: "benchmark-\(definition.name).yaml")
    guard let configuration = result.configuration else {
      throw GenerationError(
        description: "the benchmark config does not load: "
          + result.errors.map(\.description).joined(separator: "; "))
    }
    return configuration
  }

  /// One round of the stream's script.
  static func round(_ definition: Definition) throws(GenerationError) -> TouchScript {
    do {
      return try TouchScript.parse(definition.script, file: "benchmark-\(definition.name).touch")
    } catch {
      throw GenerationError(description: "the benchmark script does not parse: \(error)")
    }
  }

  /// At least `minimumEvents` events: rounds of the script, each starting a second after
  /// the previous one ended, so every round's sequences end and the next starts fresh.
  static func make(_ definition: Definition, minimumEvents: Int) throws(GenerationError) -> Stream {
    let script = try round(definition)
    guard let last = script.events.last else { throw GenerationError(description: "the script has no events") }
    let roundLength = last.time.microseconds + 1_000_000
    var events: [RawEvent] = []
    events.reserveCapacity(minimumEvents + script.events.count)
    var offset: Int64 = 0
    while events.count < minimumEvents {
      for var event in script.events {
        event.time = Timestamp(microseconds: event.time.microseconds + offset)
        events.append(event)
      }
      offset += roundLength
    }
    let frames = events.reduce(0) { $0 + ($1.type == EventType.syn && $1.code == SynCode.report ? 1 : 0) }
    return Stream(name: definition.title, device: script.device, events: events, frames: frames)
  }
}
