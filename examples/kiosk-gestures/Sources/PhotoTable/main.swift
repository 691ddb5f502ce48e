// Three photos on one screen, each dragged, pinched and rotated by its own fingers, two
// people at once; a long press on a photo opens its menu (never together with the others).
// `PhotoTable photos.evemu table.svg` replays a recording and writes the final frames as
// an SVG; `PhotoTable` alone reads the first touchscreen.
import Dispatch
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

func say(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
}

/// `value` to `places` decimals, for output that is the same on every run.
func rounded(_ value: Double, _ places: Int) -> String {
  var scale = 1.0
  for _ in 0..<places { scale *= 10 }
  let units = Int((abs(value) * scale).rounded())
  let whole = String(units / Int(scale))
  let part = String(units % Int(scale))
  let padded = String(repeating: "0", count: places - part.count) + part
  return (value < 0 && units != 0 ? "-" : "") + whole + (places > 0 ? "." + padded : "")
}

/// A photo as the app keeps it: where its frame is, and how it is scaled and turned.
@MainActor final class Photo {
  let name: String
  let color: String
  let view: TouchView
  var scale = 1.0
  var angle = 0.0
  /// The frame, scale and angle when the gesture began: each frame's values are from there.
  var start: (frame: ViewFrame, scale: Double, angle: Double)?

  init(_ name: String, color: String, frame: ViewFrame, on screen: TouchScreen) {
    self.name = name
    self.color = color
    view = screen.addView(name, frame: frame)
  }

  func follow(_ motion: Motion) {
    switch motion.phase {
    case .began:
      start = (view.frame, scale, angle)
    case .changed, .ended, .cancelled:
      break
    }
    guard let start else { return }
    // translationInView is in the view's own size, which a move leaves as it is.
    var frame = start.frame
    frame.x += motion.translationInView.dx * frame.width
    frame.y += motion.translationInView.dy * frame.height
    view.frame = frame
    scale = start.scale * motion.scale
    angle = start.angle + motion.rotation
    if motion.phase == .ended || motion.phase == .cancelled { self.start = nil }
  }

  var summary: String {
    let frame = view.frame
    // Angles to the nearest 5 degrees: the tolerance the expected output checks within.
    let angle = Int((angle / 5).rounded()) * 5
    return "\(name): x \(rounded(frame.x, 2)) y \(rounded(frame.y, 2)) scale \(rounded(scale, 1)) angle \(angle)"
  }

  /// The photo in a 1000 × 562.5 picture of the panel: its frame scaled and turned about its
  /// centre.
  var svg: String {
    let frame = view.frame
    let (w, h) = (1000.0, 562.5)
    let cx = (frame.x + frame.width / 2) * w
    let cy = (frame.y + frame.height / 2) * h
    return """
        <rect x="\(rounded(frame.x * w, 1))" y="\(rounded(frame.y * h, 1))" width="\(rounded(frame.width * w, 1))" \
      height="\(rounded(frame.height * h, 1))" fill="\(color)" fill-opacity="0.6" \
      transform="rotate(\(rounded(angle, 1)) \(rounded(cx, 1)) \(rounded(cy, 1))) translate(\(rounded(cx, 1)) \(rounded(cy, 1))) \
      scale(\(rounded(scale, 3))) translate(\(rounded(-cx, 1)) \(rounded(-cy, 1)))"><title>\(name)</title></rect>
      """
  }
}

let screen = TouchScreen(queue: .main)
let photos = MainActor.assumeIsolated {
  [
    Photo("red", color: "#d33", frame: ViewFrame(x: 0.05, y: 0.1, width: 0.25, height: 0.3), on: screen),
    Photo("green", color: "#3a3", frame: ViewFrame(x: 0.4, y: 0.1, width: 0.25, height: 0.3), on: screen),
    Photo("blue", color: "#33d", frame: ViewFrame(x: 0.7, y: 0.1, width: 0.25, height: 0.3), on: screen),
  ]
}
do {
  for photo in photos {
    try photo.view.mainActor.onTransform { motion in photo.follow(motion) }
    try photo.view.mainActor.onLongPress { _ in say("menu of \(photo.name)") }
  }
} catch {
  say("\(error)")
  exit(78)
}

let arguments = Array(CommandLine.arguments.dropFirst())
let source: TouchSource = arguments.first.map { .recording($0) } ?? .firstTouchscreen()
screen.start(source) { event in
  switch event {
  case .connected(let name, _): say("reading '\(name)'")
  case .finished:
    MainActor.assumeIsolated {
      for photo in photos { say(photo.summary) }
      if arguments.count > 1 {
        let body = photos.map(\.svg).joined(separator: "\n")
        let picture = """
          <svg xmlns="http://www.w3.org/2000/svg" width="1000" height="562.5" viewBox="0 0 1000 562.5">
          \(body)
          </svg>

          """
        if let file = fopen(arguments[1], "w") {
          fputs(picture, file)
          fclose(file)
        }
      }
    }
    exit(0)
  case .failed(let message):
    say(message)
    exit(1)
  case .disconnected(let path): say("\(path) went away")
  case .notice(let text): say(text)
  case .waiting(let wanted): say("waiting for \(wanted)")
  case .unavailable(let failure):
    say("\(failure)")
  }
}
dispatchMain()
