// touchgestures-bench: the library's delivery measured through it. Three views on one
// screen, a transform handler on each on the main queue; a recording of the three
// transformed at once (TouchScript) played in real time. Reports the hops to the main queue
// per frame, the heap allocations per frame after warm-up (with the malloc-counting preload
// of Tests/Benchmarks/malloc-count.c, built by `make bench`), the process's CPU time per
// frame from one frame's handlers to the next's (all threads: reading, recognizing,
// delivering, the handlers; the pacer sleeps in between), and how much later than the least
// late one a frame reaches its handler on the main queue (median and 99th percentile each).
//
//   make bench SCRATCH=.build   # builds .build/bench/malloc-count.so, among others
//   LD_PRELOAD=.build/bench/malloc-count.so .build/release/touchgestures-bench [seconds]
import Dispatch
import TouchGestures
import TouchScript

#if canImport(Glibc)
  import Glibc
#endif

func monotonicMicroseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> Int64 {
  var now = timespec()
  clock_gettime(clock, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

/// Heap allocations so far, counted by the preload; nil without it.
nonisolated(unsafe) let allocationCounter: UnsafeMutablePointer<UInt64>? = {
  guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gestured_bench_allocations") else { return nil }
  return symbol.assumingMemoryBound(to: UInt64.self)
}()

let seconds = CommandLine.arguments.dropFirst().first.flatMap(Double.init) ?? 10
let duration = Int((seconds * 1000).rounded())
let script = """
  panel mt-b name="Bench Panel" vendor=0x1234 product=0x5678 x=0..4095 y=0..2303 resolution=16 slots=10
  seed 1
  jitter 0.2mm
  rotate at=100ms center=0.15,0.5 span=40mm by=360deg to=70mm duration=\(duration)ms
  rotate at=100ms center=0.5,0.5 span=50mm by=-360deg to=25mm duration=\(duration)ms
  pinch at=100ms center=0.85,0.5 from=30mm to=60mm duration=\(duration)ms

  """
let path = "/tmp/touchgestures-bench-\(getpid()).evemu"
do {
  let text = try TouchScript.parse(script, file: "bench.touch").evemuText()
  guard let file = fopen(path, "w") else { fatalError("cannot write \(path)") }
  fputs(text, file)
  fclose(file)
} catch {
  fatalError("\(error)")
}

/// What the handlers saw; touched on the main queue only.
final class Measures: @unchecked Sendable {
  var latencies: [Int64] = []
  /// The process's CPU time between the first handler calls of consecutive frames.
  var cpuPerFrame: [Int64] = []
  var calls = 0
  var frames = 0
  var lastFrameTime = Duration.zero
  var lastFrameCPU: Int64 = 0
  var origin: Int64 = 0
  var hopsAtWarmUp = 0
  var framesAtWarmUp = 0
  var allocationsAtWarmUp: UInt64 = 0
  /// At the last `changed` call: the end of a recording allocates, not the frames.
  var hopsAtLast = 0
  var framesAtLast = 0
  var allocationsAtLast: UInt64 = 0
}
let measures = Measures()
// Warm-up: the first half, in which every stream of the script (each view's pan, pinch and
// rotate) has begun, so that the buffers have grown to what a frame needs.
let warmUpEnd = Duration.milliseconds(100 + duration / 2)
measures.latencies.reserveCapacity(100_000)
measures.cpuPerFrame.reserveCapacity(100_000)

let screen = TouchScreen(queue: .main)
for k in 0..<3 {
  let view = screen.addView("view \(k)", frame: ViewFrame(x: Double(k) / 3, y: 0, width: 1.0 / 3, height: 1))
  try view.onTransform { motion in
    let now = monotonicMicroseconds()
    measures.calls += 1
    if motion.time != measures.lastFrameTime {
      // The first call of a frame: the CPU the whole process spent since the last frame's.
      let cpu = monotonicMicroseconds(CLOCK_PROCESS_CPUTIME_ID)
      if measures.framesAtWarmUp > 0 { measures.cpuPerFrame.append(cpu - measures.lastFrameCPU) }
      measures.lastFrameCPU = cpu
      measures.lastFrameTime = motion.time
      measures.frames += 1
      // The recording is paced from its first event, the landings at 100 ms: a frame at T
      // is due T - 100 ms after `start`.
      let offset = motion.time - .milliseconds(100)
      let due =
        measures.origin + offset.components.seconds * 1_000_000 + offset.components.attoseconds / 1_000_000_000_000
      measures.latencies.append(now - due)
      if measures.framesAtWarmUp == 0, motion.time > warmUpEnd {
        measures.allocationsAtWarmUp = allocationCounter?.pointee ?? 0
        measures.hopsAtWarmUp = screen.handlerHops
        measures.framesAtWarmUp = measures.frames
      }
    }
    if motion.phase == .changed, measures.framesAtWarmUp > 0 {
      measures.allocationsAtLast = allocationCounter?.pointee ?? 0
      measures.hopsAtLast = screen.handlerHops
      measures.framesAtLast = measures.frames
    }
  }
}

measures.origin = monotonicMicroseconds()
screen.start(.realTimeRecording(path)) { event in
  guard case .finished = event else { return }
  unlink(path)
  func percentile(_ values: [Int64], _ p: Double) -> Int64 {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
  }
  let frames = max(1, measures.framesAtLast - measures.framesAtWarmUp)
  print("touchgestures-bench: 3 views, a transform handler on each (main queue), \(seconds) s in real time")
  print("  frames: \(measures.frames), handler calls: \(measures.calls)")
  print(
    "  hops to the main queue per frame: \(Double(screen.handlerHops) / Double(max(1, measures.frames)))"
      + " (after warm-up: \(Double(measures.hopsAtLast - measures.hopsAtWarmUp) / Double(frames)))")
  if allocationCounter != nil {
    let allocations = measures.allocationsAtLast - measures.allocationsAtWarmUp
    print("  heap allocations per frame after warm-up (\(frames) frames): \(Double(allocations) / Double(frames))")
  } else {
    print("  heap allocations: not counted (run with LD_PRELOAD=.build/bench/malloc-count.so)")
  }
  print(
    "  process CPU time per frame to the handlers on the main queue: median \(percentile(measures.cpuPerFrame, 0.5)) us,"
      + " p99 \(percentile(measures.cpuPerFrame, 0.99)) us")
  // The pacer starts at the first event read, after the recording was checked whole: the
  // least late frame stands for that start, and the rest is how much later each frame came.
  let least = measures.latencies.min() ?? 0
  print(
    "  frame due to handler on the main queue, beyond the least late: median"
      + " \(percentile(measures.latencies, 0.5) - least) us, p99 \(percentile(measures.latencies, 0.99) - least) us")
  exit(0)
}
dispatchMain()
