// gestured-bench: the figures of BENCHMARKS.md that are measured inside one process.
//
//   gestured-bench core [--events N] [--runs R] [--panel A|B | --stream NAME]
//       raw events through frame assembly, recognition and binding lookup (DeviceEngine),
//       on the generated streams (BenchmarkStream): both protocols, and "independent" (two
//       independent regions busy at once, protocol B); or one of them, for a profile;
//       with the preload of Tests/Benchmarks/malloc-count.c also heap allocations per frame
//       after warm-up
//   gestured-bench recording FILE [--events N]
//       writes the generated protocol B stream as an evemu recording (default 5 M events),
//       and the config it is recognized with as FILE.yaml, for `gestured replay`
import GestureCore

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

func fail(_ message: String) -> Never {
  let line = "gestured-bench: \(message)\n"
  _ = line.withCString { write(2, $0, strlen($0)) }
  exit(64)
}

/// This thread's CPU time: events per CPU second is the per-core figure, and unlike the
/// wall clock it does not count the time other processes on a shared machine took.
func cpuSeconds() -> Double {
  var now = timespec()
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
  return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func option(_ name: String, in arguments: inout [String], default value: Int) -> Int {
  guard let at = arguments.firstIndex(of: name) else { return value }
  guard at + 1 < arguments.count, let number = Int(arguments[at + 1]), number > 0 else {
    fail("\(name) needs a positive number")
  }
  arguments.removeSubrange(at...(at + 1))
  return number
}

func millions(_ value: Double) -> String {
  let tenths = Int((value / 1e5).rounded())
  return "\(tenths / 10).\(tenths % 10)"
}

struct CoreRun {
  var eventsPerSecond: Double
  var allocations: UInt64
  var engineAllocations: UInt64
  var frames: Int
  var firings: Int
}

/// One run: a fresh engine, the first round of the stream as warm-up (not timed, not
/// counted), then the rest timed, a frame per `handle(events:)` call (one read each) and
/// firings drained after every call, as the daemon does.
func runCore(_ stream: BenchmarkStream.Stream, warmUp: Int, configuration: Configuration) -> CoreRun {
  let creationAllocations = AllocationCounter.count
  guard let profileIndex = configuration.profile(for: stream.device, udevProperties: nil),
    var engine = DeviceEngine(device: stream.device, profile: configuration.profiles[profileIndex])
  else { fail("no profile of the benchmark config takes \(stream.device.name)") }
  // Proof that the counter counts: making an engine allocates.
  let engineAllocations = AllocationCounter.count - creationAllocations
  var output: [GestureEvent] = []
  output.reserveCapacity(64)
  var firings = 0
  stream.events.withUnsafeBufferPointer { events in
    for event in events[..<warmUp] {
      engine.handle(event, into: &output)
      firings += output.count
      output.removeAll(keepingCapacity: true)
    }
  }
  let measured = stream.events.count - warmUp
  // One read per frame, as the daemon gets them when it keeps up: the events up to and
  // including each SYN_REPORT (worked out before the clock starts).
  var readEnds: [Int] = []
  for index in warmUp..<stream.events.count
  where stream.events[index].type == EventType.syn && stream.events[index].code == SynCode.report {
    readEnds.append(index + 1)
  }
  if readEnds.last != stream.events.count { readEnds.append(stream.events.count) }
  let allocationsBefore = AllocationCounter.count
  let start = cpuSeconds()
  stream.events.withUnsafeBufferPointer { events in
    var readStart = warmUp
    for readEnd in readEnds {
      engine.handle(events: UnsafeBufferPointer(rebasing: events[readStart..<readEnd]), into: &output)
      readStart = readEnd
      if !output.isEmpty {
        firings += output.count
        output.removeAll(keepingCapacity: true)
      }
    }
  }
  let seconds = cpuSeconds() - start
  let allocations = AllocationCounter.count - allocationsBefore
  let frames = stream.events[warmUp...].count { $0.type == EventType.syn && $0.code == SynCode.report }
  engine.finish(at: stream.events.last?.time ?? Timestamp(microseconds: 0), into: &output)
  firings += output.count
  return CoreRun(
    eventsPerSecond: Double(measured) / seconds, allocations: allocations,
    engineAllocations: engineAllocations, frames: frames, firings: firings)
}

func core(_ arguments: [String]) {
  var arguments = arguments
  let total = option("--events", in: &arguments, default: 20_000_000)
  let runs = option("--runs", in: &arguments, default: 5)
  var sources = BenchmarkStream.sources
  if let at = arguments.firstIndex(of: "--panel") {
    guard at + 1 < arguments.count, let source = sources.first(where: { $0.name == "protocol \(arguments[at + 1])" })
    else { fail("--panel needs A or B") }
    sources = [source]
    arguments.removeSubrange(at...(at + 1))
  }
  if let at = arguments.firstIndex(of: "--stream") {
    let names = sources.map { "'\($0.name)'" }.joined(separator: ", ")
    guard at + 1 < arguments.count, let source = sources.first(where: { $0.name == arguments[at + 1] })
    else { fail("--stream needs one of \(names)") }
    sources = [source]
    arguments.removeSubrange(at...(at + 1))
  }
  guard arguments.isEmpty else { fail("core: unknown argument '\(arguments[0])'") }
  do {
    var totalEvents = 0
    var totalSeconds = 0.0
    var protocolStreams = 0
    for source in sources {
      let configuration = try BenchmarkStream.loadConfiguration(source.configuration)
      let warmUp = try BenchmarkStream.round(source).events.count
      let stream = try BenchmarkStream.make(source, minimumEvents: total / BenchmarkStream.panels.count)
      var results: [CoreRun] = []
      for _ in 0..<runs { results.append(runCore(stream, warmUp: warmUp, configuration: configuration)) }
      let rates = results.map(\.eventsPerSecond).sorted()
      let median = rates[rates.count / 2]
      // "both" combines the two protocols' streams, as it always has.
      if BenchmarkStream.panels.contains(where: { $0.name == source.name }) {
        totalEvents += stream.events.count - warmUp
        totalSeconds += Double(stream.events.count - warmUp) / median
        protocolStreams += 1
      }
      let first = results[0]
      let allocations =
        AllocationCounter.isAvailable
        ? "\(first.allocations) heap allocations in \(first.frames) frames after warm-up (making the engine: \(first.engineAllocations))"
        : "allocations not counted (run with LD_PRELOAD of Tests/Benchmarks/malloc-count.c)"
      print(
        "core \(source.name): \(millions(median)) M events per CPU second, median of \(runs) (min \(millions(rates[0])), max \(millions(rates[rates.count - 1]))); \(stream.events.count - warmUp) events, \(allocations); \(first.firings) firings"
      )
      if results.contains(where: { $0.firings != first.firings }) { fail("runs disagree on the firings") }
    }
    if protocolStreams > 1 {
      print("core both: \(millions(Double(totalEvents) / totalSeconds)) M events per CPU second (medians combined)")
    }
  } catch {
    fail(error.description)
  }
}

func recording(_ arguments: [String]) {
  var arguments = arguments
  let total = option("--events", in: &arguments, default: 5_000_000)
  guard arguments.count == 1 else { fail("recording: expected one FILE") }
  let path = arguments[0]
  do {
    let stream = try BenchmarkStream.make(BenchmarkStream.sources[0], minimumEvents: total)
    guard let config = fopen(path + ".yaml", "w"), fputs(BenchmarkStream.configuration, config) >= 0,
      fclose(config) == 0
    else { fail("cannot write '\(path).yaml'") }
    guard let file = fopen(path, "w") else { fail("cannot write '\(path)'") }
    var text = EvemuWriter.header(device: stream.device, comment: "generated by gestured-bench")
    var sinceLastReport: Timestamp? = nil
    for event in stream.events.prefix(total) {
      text += EvemuWriter.eventLine(event, sinceLastReport: &sinceLastReport) + "\n"
      if text.utf8.count > 1 << 16 {
        fputs(text, file)
        text.removeAll(keepingCapacity: true)
      }
    }
    fputs(text, file)
    guard fclose(file) == 0 else { fail("cannot write '\(path)'") }
    print("recording: \(min(total, stream.events.count)) events in \(path), its config in \(path).yaml")
  } catch {
    fail(error.description)
  }
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { fail("usage: gestured-bench core|recording ...") }
arguments.removeFirst()
switch command {
case "core": core(arguments)
case "recording": recording(arguments)
default: fail("unknown command '\(command)' (core, recording)")
}
