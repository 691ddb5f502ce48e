import GestureCore

/// `gestured trace`'s picture: the panel as the user sees it, at its true aspect ratio, with
/// the profile's regions, every contact's path, every firing, and a legend saying what each
/// touch sequence fired or why it fired nothing. Pure text building, from a
/// `RecognitionTimeline`.
struct TracePicture {
  /// Colours of contact paths, one per contact in turn; the regions have their own.
  static let pathColours = ["#d62728", "#1f77b4", "#2ca02c", "#ff7f0e", "#9467bd", "#17becf", "#e377c2", "#8c564b"]
  static let regionColours = ["#b8860b", "#008b8b", "#6b8e23", "#8b008b", "#4682b4", "#cd5c5c"]
  /// The panel's outline: a colour used for nothing else, so a test can find the panel in
  /// the rendered picture.
  static let panelOutline = "#3a3f8f"
  static let panelFill = "#fbfaf6"
  static let firingFill = "#ffd700"

  /// The panel's longer side, and the widest and tallest it may be drawn, in pixels.
  static let maximumWidth = 960.0
  static let maximumHeight = 640.0
  static let margin = 24.0
  static let titleHeight = 44.0
  static let lineHeight = 18.0
  /// Characters of monospace legend text per line: 13 px DejaVu Sans Mono is 7.8 px wide.
  static let characterWidth = 7.9

  /// The recording's path, and what took it: "'device', profile 'name'".
  var title: String
  var subtitle: String
  var profile: Profile
  var geometry: PanelGeometry
  var timeline: RecognitionTimeline

  /// Pixels per millimetre, so that the panel fits `maximumWidth` × `maximumHeight`.
  var scale: Double { min(Self.maximumWidth / geometry.width, Self.maximumHeight / geometry.height) }
  var panelWidth: Double { (geometry.width * scale).rounded() }
  var panelHeight: Double { (geometry.height * scale).rounded() }
  var panelOrigin: (x: Double, y: Double) { (Self.margin, Self.margin + Self.titleHeight) }

  func pixel(_ p: Point) -> (x: Double, y: Double) {
    (panelOrigin.x + p.x * panelWidth, panelOrigin.y + p.y * panelHeight)
  }

  /// Time in seconds since the recording's first event, three decimals.
  func seconds(_ t: Timestamp) -> String { Self.decimals(Double(t - timeline.start) / 1_000_000, 3) + " s" }

  static func decimals(_ value: Double, _ places: Int) -> String {
    var factor = 1.0
    for _ in 0..<places { factor *= 10 }
    guard value.isFinite, let scaled = Int64(exactly: (value * factor).rounded()) else { return "?" }
    let sign = scaled < 0 ? "-" : ""
    let magnitude = scaled.magnitude
    let whole = magnitude / UInt64(factor)
    guard places > 0 else { return sign + String(whole) }
    let fraction = String(magnitude % UInt64(factor))
    return sign + String(whole) + "." + String(repeating: "0", count: places - fraction.count) + fraction
  }

  /// Colour of a contact's path: by its order in the recording.
  func colour(ofContact index: Int) -> String { Self.pathColours[index % Self.pathColours.count] }

  /// Spacing of the time dots on paths: about a dozen on the longest contact at most.
  var tickInterval: Microseconds {
    let longest =
      timeline.contacts.map { ($0.points.last?.time ?? timeline.start) - ($0.points.first?.time ?? timeline.start) }
      .max() ?? 0
    for interval: Microseconds in [20_000, 50_000, 100_000, 250_000, 500_000, 1_000_000, 2_000_000]
    where longest / interval <= 12 {
      return interval
    }
    return 5_000_000
  }

  // MARK: Text

  /// The legend: one entry per touch sequence, wrapped to the picture's width.
  func legendLines() -> [(text: String, colour: String?)] {
    let width = max(60, Int((canvasWidth - 2 * Self.margin - 20) / Self.characterWidth))
    var lines: [(String, String?)] = []
    let interval = tickInterval / 1000
    lines.append(("● start  ■ end  · every \(interval) ms  ◆ firing (binding, time)", nil))
    if timeline.sequences.isEmpty { lines.append(("no touch in this recording", nil)) }
    for sequence in timeline.sequences {
      let fingers = timeline.fingerCount(of: sequence, landing: profile.thresholds.fingerLanding)
      let region = sequence.region.map { profile.regions[$0].name } ?? "none"
      let duration = sequence.end.map { " \(($0 - sequence.start) / 1000) ms," } ?? ""
      var text =
        "#\(sequence.number) at \(seconds(sequence.start)),\(duration) \(fingers) finger\(fingers == 1 ? "" : "s"), region \(region): "
      if sequence.firings.isEmpty {
        text += "fired nothing. " + timeline.reasonsNothingFired(sequence, profile: profile).joined(separator: "; ")
      } else {
        text += "fired " + firingSummaries(of: sequence).joined(separator: ", ")
      }
      let colour = timeline.contacts.firstIndex { $0.sequence == sequence.number }.map(colour(ofContact:))
      for (i, line) in Self.wrap(text, width: width, indent: 4).enumerated() {
        lines.append((line, i == 0 ? colour : nil))
      }
    }
    for note in timeline.notes {
      lines.append(contentsOf: Self.wrap("note: " + note, width: width, indent: 4).map { ($0, nil) })
    }
    return lines
  }

  /// "zoom-in (4 steps)", "double-tap", in firing order, one entry per binding.
  private func firingSummaries(of sequence: Sequence) -> [String] {
    var order: [Int] = []
    var steps: [Int: Int] = [:]
    for i in sequence.firings {
      let event = timeline.firings[i]
      if case .end = event.phase { continue }
      if !order.contains(event.binding) { order.append(event.binding) }
      if event.step != nil { steps[event.binding, default: 0] += 1 }
    }
    return order.map { binding in
      let name = profile.displayName(ofBinding: binding)
      guard let n = steps[binding] else { return name }
      return "\(name) (\(n) step\(n == 1 ? "" : "s"))"
    }
  }

  typealias Sequence = RecognitionTimeline.Sequence

  static func wrap(_ text: String, width: Int, indent: Int) -> [String] {
    var lines: [String] = []
    var line = ""
    for word in text.split(separator: " ", omittingEmptySubsequences: false) {
      let limit = lines.isEmpty ? width : width - indent
      if !line.isEmpty, line.count + 1 + word.count > limit {
        lines.append(line)
        line = String(word)
      } else {
        line += (line.isEmpty ? "" : " ") + word
      }
    }
    lines.append(line)
    return lines.enumerated().map { $0.offset == 0 ? $0.element : String(repeating: " ", count: indent) + $0.element }
  }

  // MARK: SVG

  var canvasWidth: Double { max(panelWidth + 2 * Self.margin, 760) }

  func svg() -> String {
    let legend = legendLines()
    let legendTop = panelOrigin.y + panelHeight + 28
    let height = legendTop + Double(legend.count) * Self.lineHeight + Self.margin
    var out = """
      <?xml version="1.0" encoding="UTF-8"?>
      <svg xmlns="http://www.w3.org/2000/svg" width="\(n(canvasWidth))" height="\(n(height))" \
      viewBox="0 0 \(n(canvasWidth)) \(n(height))" font-family="DejaVu Sans, sans-serif" font-size="13">

      """
    out += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n"
    // Long paths keep their end: the file name.
    let room = Int((canvasWidth - 2 * Self.margin) / 9)
    let shown = title.count > room ? "…" + title.suffix(room - 1) : title
    out +=
      "<text x=\"\(n(Self.margin))\" y=\"\(n(Self.margin + 2))\" font-size=\"15\" font-weight=\"bold\">\(xml(shown))</text>\n"
    out +=
      "<text x=\"\(n(Self.margin))\" y=\"\(n(Self.margin + Self.titleHeight - 8))\" fill=\"#555555\">\(xml(subtitle))</text>\n"
    out += panel()
    out += regions()
    out += paths()
    out += firings()
    out += "<g class=\"legend\" font-family=\"DejaVu Sans Mono, monospace\">\n"
    for (i, line) in legend.enumerated() {
      let y = legendTop + Double(i) * Self.lineHeight
      if let colour = line.colour {
        out += "<circle cx=\"\(n(Self.margin + 5))\" cy=\"\(n(y - 4))\" r=\"5\" fill=\"\(colour)\"/>\n"
      }
      out += "<text x=\"\(n(Self.margin + 16))\" y=\"\(n(y))\" xml:space=\"preserve\">\(xml(line.text))</text>\n"
    }
    out += "</g>\n</svg>\n"
    return out
  }

  private func panel() -> String {
    let (x, y) = panelOrigin
    var out = "<g class=\"panel\">\n"
    out +=
      "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(panelWidth))\" height=\"\(n(panelHeight))\" fill=\"\(Self.panelFill)\" stroke=\"\(Self.panelOutline)\" stroke-width=\"4\" shape-rendering=\"crispEdges\"/>\n"
    let size =
      "\(Self.decimals(geometry.width, 1)) × \(Self.decimals(geometry.height, 1)) mm"
      + (geometry.sizeSource == .guessed ? " (guessed: set size: in the profile)" : "")
      + (geometry.rotation == .none ? "" : ", rotated \(geometry.rotation.rawValue)°")
    out +=
      "<text x=\"\(n(x + panelWidth))\" y=\"\(n(y - 6))\" text-anchor=\"end\" fill=\"#555555\">\(xml(size))</text>\n"
    return out + "</g>\n"
  }

  private func regions() -> String {
    var out = "<g class=\"regions\">\n"
    for (i, region) in profile.regions.enumerated() {
      let colour = Self.regionColours[i % Self.regionColours.count]
      let (x, y) = pixel(Point(x: region.area.x, y: region.area.y))
      let w = region.area.width * panelWidth
      let h = region.area.height * panelHeight
      out +=
        "<rect x=\"\(n(x))\" y=\"\(n(y))\" width=\"\(n(w))\" height=\"\(n(h))\" fill=\"\(colour)\" fill-opacity=\"0.12\" stroke=\"\(colour)\" stroke-width=\"3\" stroke-dasharray=\"12 6\" shape-rendering=\"crispEdges\"/>\n"
      out +=
        "<text x=\"\(n(x + 8))\" y=\"\(n(y + 20))\" fill=\"\(colour)\" font-weight=\"bold\">\(xml(region.name))</text>\n"
    }
    return out + "</g>\n"
  }

  private func paths() -> String {
    var out = "<g class=\"contacts\" fill=\"none\" stroke-linecap=\"round\" stroke-linejoin=\"round\">\n"
    let interval = tickInterval
    var labelled: Set<Int> = []
    for (i, contact) in timeline.contacts.enumerated() {
      guard let first = contact.points.first, let last = contact.points.last else { continue }
      let colour = colour(ofContact: i)
      let points = contact.points.map { p -> String in
        let (x, y) = pixel(p.point)
        return "\(n(x)),\(n(y))"
      }
      out +=
        "<polyline class=\"path\" data-contact=\"\(contact.id)\" data-sequence=\"\(contact.sequence)\" points=\"\(points.joined(separator: " "))\" stroke=\"\(colour)\" stroke-width=\"3\"/>\n"
      // Time dots, every `interval` from the sequence's start, where the contact was then.
      let origin = timeline.sequences.first { $0.number == contact.sequence }?.start ?? first.time
      var next = first.time + (interval - ((first.time - origin) % interval))
      var k = 0
      while next < last.time {
        while k + 1 < contact.points.count, contact.points[k + 1].time <= next { k += 1 }
        let (x, y) = pixel(contact.points[k].point)
        out +=
          "<circle class=\"tick\" cx=\"\(n(x))\" cy=\"\(n(y))\" r=\"2.5\" fill=\"#ffffff\" stroke=\"\(colour)\" stroke-width=\"1.5\"/>\n"
        next = next + interval
      }
      let (sx, sy) = pixel(first.point)
      let (ex, ey) = pixel(last.point)
      out += "<circle class=\"start\" cx=\"\(n(sx))\" cy=\"\(n(sy))\" r=\"6\" fill=\"\(colour)\"/>\n"
      out +=
        "<rect class=\"end\" x=\"\(n(ex - 5))\" y=\"\(n(ey - 5))\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"\(colour)\" stroke-width=\"2.5\"/>\n"
      let lifted = contact.lastPhase == .cancelled ? " (cancelled)" : ""
      out +=
        "<text x=\"\(n(ex + 9))\" y=\"\(n(ey + 4))\" fill=\"\(colour)\" stroke=\"none\" font-size=\"11\">+\((last.time - origin) / 1000) ms\(lifted)</text>\n"
      if labelled.insert(contact.sequence).inserted {
        out +=
          "<text x=\"\(n(sx - 9))\" y=\"\(n(sy - 9))\" text-anchor=\"end\" fill=\"\(colour)\" stroke=\"none\" font-weight=\"bold\">#\(contact.sequence)</text>\n"
      }
    }
    return out + "</g>\n"
  }

  /// One marker per one-shot firing; one per binding and sequence for steps, with their count.
  private func firings() -> String {
    struct Mark {
      var event: GestureEvent
      var steps = 0
      var lastTime: Timestamp
    }
    var marks: [Mark] = []
    for event in timeline.firings {
      switch event.phase {
      case .end: continue
      case .oneShot: marks.append(Mark(event: event, lastTime: event.time))
      case .step:
        if let m = marks.lastIndex(where: {
          $0.event.sequence == event.sequence && $0.event.binding == event.binding && $0.steps > 0
        }) {
          marks[m].steps += 1
          marks[m].lastTime = event.time
        } else {
          marks.append(Mark(event: event, steps: 1, lastTime: event.time))
        }
      }
    }
    var out = "<g class=\"firings\">\n"
    var atPlace: [String: Int] = [:]
    for mark in marks {
      let (x, y) = pixel(mark.event.position)
      let place = "\(Int(x / 8)),\(Int(y / 8))"
      let row = atPlace[place, default: 0]
      atPlace[place] = row + 1
      let name =
        profile.bindings.indices.contains(mark.event.binding)
        ? profile.displayName(ofBinding: mark.event.binding) : "binding \(mark.event.binding)"
      let when =
        switch mark.steps {
        case 0: seconds(mark.event.time)
        case 1: "1 step, \(seconds(mark.event.time))"
        default: "\(mark.steps) steps, \(seconds(mark.event.time)) to \(seconds(mark.lastTime))"
        }
      let d = 9.0
      out +=
        "<path class=\"firing\" d=\"M \(n(x)) \(n(y - d)) L \(n(x + d)) \(n(y)) L \(n(x)) \(n(y + d)) L \(n(x - d)) \(n(y)) Z\" fill=\"\(Self.firingFill)\" stroke=\"#111111\" stroke-width=\"1.5\"/>\n"
      let ly = y + 4 + Double(row) * 17 + (row > 0 ? 8 : 0)
      out +=
        "<text x=\"\(n(x + 14))\" y=\"\(n(ly))\" font-weight=\"bold\" fill=\"#111111\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">\(xml(name)): \(when)</text>\n"
    }
    return out + "</g>\n"
  }

  /// A coordinate with at most one decimal.
  private func n(_ value: Double) -> String { Self.decimals(value, 1) }
}

/// Text made safe for SVG: control characters escaped as everywhere else, then the five XML
/// metacharacters as entities.
func xml(_ text: String) -> String {
  var out = ""
  for character in text.escapingControlCharacters() {
    switch character {
    case "&": out += "&amp;"
    case "<": out += "&lt;"
    case ">": out += "&gt;"
    case "\"": out += "&quot;"
    case "'": out += "&apos;"
    default: out.append(character)
    }
  }
  return out
}
