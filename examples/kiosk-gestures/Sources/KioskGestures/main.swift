// A kiosk app's gestures as closures: a double tap in the top right corner, a two-finger
// swipe, zooming by pinching, a long press. `KioskGestures demo.evemu` replays a recording;
// `KioskGestures` alone reads the first touchscreen (root or the input group).
// `KioskGestures --device /dev/input/eventN` reads that node.
import Dispatch
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

/// Handlers run on the main queue (the screen's), one after another. Each line goes out at
/// once (a log that follows the gestures, even into a file).
func say(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
}

func fraction(_ value: Double) -> String {
  let hundredths = Int((value * 100).rounded())
  return "0." + (hundredths < 10 ? "0" : "") + String(hundredths)
}

let screen = TouchScreen(queue: .main)
do {
  let corner = try screen.region("corner", x: 0.9, y: 0, width: 0.1, height: 0.1)
  try screen.onTap(taps: 2, in: corner) { tap in
    say("double tap in \(tap.region?.name ?? "no region") at \(fraction(tap.position.x)), \(fraction(tap.position.y))")
  }
  try screen.onSwipe(.left, fingers: 2) { swipe in
    say("\(swipe.fingers)-finger swipe \(swipe.direction): next page")
  }
  try screen.onPinch(.out, step: .percent(10)) { pinch in
    switch pinch.phase {
    case .step(let k): say("zoom step \(k): scale \(Int((pinch.scale * 100).rounded())) %")
    case .ended(let steps): say("zoom done after \(steps) steps")
    case .oneShot: break
    }
  }
  try screen.onLongPress { press in
    say("long press at \(fraction(press.position.x)), \(fraction(press.position.y)): menu")
  }
} catch {
  say("\(error)")
  exit(78)
}
for warning in screen.warnings { say("\(warning)") }

let arguments = CommandLine.arguments.dropFirst()
// `--device PATH`: that node, and an exit (2) with the reason when it cannot be read.
let source: TouchSource =
  arguments.first == "--device"
  ? .device(arguments.dropFirst().first ?? "") : arguments.first.map { .recording($0) } ?? .firstTouchscreen()
screen.start(source) { event in
  switch event {
  case .connected(let name, _): say("reading '\(name)'")
  case .finished: exit(0)
  case .failed(let message):
    say(message)
    exit(1)
  case .disconnected(let path): say("\(path) went away")
  case .notice(let text): say(text)
  case .waiting(let wanted): say("waiting for \(wanted)")
  case .unavailable(let failure):
    say("\(failure)")
    if case .device = source { exit(2) }
  }
}
dispatchMain()
