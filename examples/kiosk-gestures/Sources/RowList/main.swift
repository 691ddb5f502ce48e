// A list of rows that scrolls: each row is a view that moves with the list. A single tap
// selects a row; rows 0, 2 and 4 also take a double tap (open); taps on two different rows
// never merge into a double tap, and a row without a double tap fires its single tap at
// the release. Dragging a row scrolls the list. `RowList rows.evemu` replays a recording.
import Dispatch
import TouchGestures

#if canImport(Glibc)
  import Glibc
#endif

func say(_ text: String) {
  var line = text + "\n"
  line.withUTF8 { bytes in _ = write(STDOUT_FILENO, bytes.baseAddress, bytes.count) }
}

/// The list: rows of `rowHeight`, the first at `offset` (fractions of the panel).
@MainActor final class List {
  static let rowHeight = 0.15
  var rows: [TouchView] = []
  var offset = 0.1
  /// The offset when the drag began.
  var dragStart: Double?

  func layOut() {
    for (k, row) in rows.enumerated() {
      row.frame = ViewFrame(x: 0.1, y: offset + Double(k) * Self.rowHeight, width: 0.8, height: Self.rowHeight)
    }
  }

  func scroll(_ motion: Motion) {
    if motion.phase == .began { dragStart = offset }
    guard let start = dragStart else { return }
    offset = start + motion.translationInView.dy * Self.rowHeight
    layOut()
    if motion.phase == .ended || motion.phase == .cancelled {
      dragStart = nil
      say("scrolled to row \(Int((-(offset - 0.1) / Self.rowHeight).rounded())) at the top")
    }
  }
}

let screen = TouchScreen(queue: .main)
let list = MainActor.assumeIsolated { List() }
do {
  try MainActor.assumeIsolated {
    for k in 0..<8 {
      let row = screen.addView("row \(k)", frame: ViewFrame(x: 0, y: 0, width: 0, height: 0))
      list.rows.append(row)
      try row.mainActor.onTap { _ in say("row \(k): select") }
      if k.isMultiple(of: 2) { try row.mainActor.onTap(taps: 2) { _ in say("row \(k): open") } }
      try row.mainActor.onPan { motion in list.scroll(motion) }
    }
    list.layOut()
  }
} catch {
  say("\(error)")
  exit(78)
}

let arguments = CommandLine.arguments.dropFirst()
// In real time: the list scrolls (its rows move) before the taps that follow are read.
let source: TouchSource = arguments.first.map { .realTimeRecording($0) } ?? .firstTouchscreen()
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
  }
}
dispatchMain()
