/// Protocol A: each frame lists every contact down, anonymously, one SYN_MT_REPORT after
/// each. Contacts are followed from frame to frame by tracking id when the device sends one,
/// otherwise by nearest neighbour (the pairing with the smallest total squared distance).
extension FrameAssembler {
  struct AnonymousContact: Sendable {
    var x: Int32 = 0
    var y: Int32 = 0
    /// -1: the device sent none.
    var trackingID: Int32 = -1
    /// A pen, palm or cancelled contact: followed, never reported.
    var ignored = false
    var contactID: UInt32 = 0
  }

  /// The contact being described between two SYN_MT_REPORTs.
  struct PendingReport: Sendable {
    /// Coordinates outlive a report, so a report missing one axis keeps the last value.
    var x: Int32 = 0
    var y: Int32 = 0
    var hasPosition = false
    var trackingID: Int32 = -1
    var ignored = false

    /// Nothing described yet but the coordinates kept from the last report.
    var isEmpty: Bool { !hasPosition && trackingID == -1 && !ignored }
  }

  @inline(__always)
  mutating func handleAnonymousAxis(code: UInt16, value: Int32) {
    switch code {
    case AbsCode.mtPositionX:
      pendingReport.x = value
      pendingReport.hasPosition = true
    case AbsCode.mtPositionY:
      pendingReport.y = value
      pendingReport.hasPosition = true
    case AbsCode.mtTrackingID:
      pendingReport.trackingID = max(value, -1)
    case AbsCode.mtToolType:
      pendingReport.ignored = pendingReport.ignored || Self.isIgnoredTool(value)
    case AbsCode.mtTouchMajor:
      if value >= palmMajorLimit { pendingReport.ignored = true }
    default:
      break
    }
  }

  /// The events that make most of a protocol A stream, from `events[start...]`: a
  /// contact's axes and its SYN_MT_REPORT, the same as `feed` on each, without its tests
  /// per event and with the report being described in registers (the storage made
  /// writable once, not at every report). Stops at the first other event (a frame's end, a
  /// drop) or the first stamped after `latest`; returns its index, for `feed`.
  mutating func takeAnonymousReports(_ events: UnsafeBufferPointer<RawEvent>, from start: Int, latest: Int64) -> Int {
    guard !droppingUntilReport else { return start }
    startFrameIfDelivered()
    let reported = writableStorage().reported
    let capacity = storage.contactCapacity
    var count = reportedCount
    var report = pendingReport
    var index = start
    scan: while index < events.count {
      // Most reports are a position and nothing else: X, Y, SYN_MT_REPORT. Told apart
      // three events at a time, they skip the per-event dispatch below; anything else,
      // one event at a time.
      if report.isEmpty {
        // Wrapping arithmetic, without the overflow checks: index < events.count.
        while index &+ 2 < events.count, count < capacity {
          let x = events[index]
          let y = events[index &+ 1]
          let end = events[index &+ 2]
          guard x.typeAndCode == Self.positionX, y.typeAndCode == Self.positionY,
            end.typeAndCode == Self.reportEnd, x.time.microseconds <= latest, y.time.microseconds <= latest,
            end.time.microseconds <= latest
          else { break }
          reported[count] = AnonymousContact(x: x.value, y: y.value)
          count &+= 1
          report.x = x.value
          report.y = y.value
          index &+= 3
        }
        // The frame's end, most often: `feed`'s, without the dispatch below.
        guard index < events.count, events[index].typeAndCode != Self.frameEnd else { break }
      }
      let event = events[index]
      guard event.time.microseconds <= latest else { break }
      if event.type == EventType.abs {
        switch event.code {
        case AbsCode.mtPositionX:
          report.x = event.value
          report.hasPosition = true
        case AbsCode.mtPositionY:
          report.y = event.value
          report.hasPosition = true
        case AbsCode.mtTrackingID:
          report.trackingID = max(event.value, -1)
        case AbsCode.mtToolType:
          report.ignored = report.ignored || Self.isIgnoredTool(event.value)
        case AbsCode.mtTouchMajor:
          // Rare on protocol A panels: `feed` judges it (`handleAnonymousAxis`).
          break scan
        default:
          break
        }
      } else if event.type == EventType.syn, event.code == SynCode.mtReport {
        if report.hasPosition, count < capacity {
          reported[count] = AnonymousContact(
            x: report.x, y: report.y, trackingID: report.trackingID, ignored: report.ignored)
          count += 1
        }
        report.hasPosition = false
        report.trackingID = -1
        report.ignored = false
      } else if event.type != EventType.msc {
        break
      }
      index += 1
    }
    reportedCount = count
    pendingReport = report
    return index
  }

  /// `RawEvent.typeAndCode` of the three events of a plain report.
  static var positionX: UInt32 { RawEvent.typeAndCode(EventType.abs, AbsCode.mtPositionX) }
  static var positionY: UInt32 { RawEvent.typeAndCode(EventType.abs, AbsCode.mtPositionY) }
  static var reportEnd: UInt32 { RawEvent.typeAndCode(EventType.syn, SynCode.mtReport) }
  static var frameEnd: UInt32 { RawEvent.typeAndCode(EventType.syn, SynCode.report) }

  /// SYN_MT_REPORT: the pending report becomes one of the frame's contacts. A report
  /// without a position (the empty SYN_MT_REPORT of "no contacts") adds nothing.
  mutating func endAnonymousReport() {
    if pendingReport.hasPosition, reportedCount < storage.contactCapacity {
      writableStorage().reported[reportedCount] = AnonymousContact(
        x: pendingReport.x, y: pendingReport.y, trackingID: pendingReport.trackingID,
        ignored: pendingReport.ignored)
      reportedCount += 1
    }
    pendingReport.hasPosition = false
    pendingReport.trackingID = -1
    pendingReport.ignored = false
  }

  mutating func discardAnonymousReports() {
    reportedCount = 0
    pendingReport.hasPosition = false
    pendingReport.trackingID = -1
    pendingReport.ignored = false
  }

  /// SYN_REPORT: the reported contacts are everything that is down now.
  mutating func commitAnonymousFrame() {
    // Lenient: a last contact not closed by SYN_MT_REPORT still counts.
    if pendingReport.hasPosition { endAnonymousReport() }
    // The storage's pointers are passed, not the storage: holding the object across the
    // calls made Swift retain and release it at every frame.
    let previousContacts = storage.previous
    let reportedContacts = storage.reported
    if reportedCount == previousCount, reportedCount > 0,
      Self.continuesInOrder(
        reports: UnsafeBufferPointer(start: reportedContacts, count: reportedCount),
        previous: UnsafeBufferPointer(start: previousContacts, count: previousCount),
        moveBounds: storage.moveBounds, spacingFloor: &spacingFloor)
    {
      commitContinuedInOrder(previous: previousContacts, reported: reportedContacts)
    } else {
      spacingFloor = 0
      commitMatched()
    }
    storage.swapFrames()
    previousCount = reportedCount
    reportedCount = 0
  }

  /// The common frame: report i continues previous contact i, for every i (nothing began
  /// or ended, so neither the pairing nor the ends are looked at).
  mutating func commitContinuedInOrder(
    previous previousContacts: UnsafeMutablePointer<AnonymousContact>,
    reported reportedContacts: UnsafeMutablePointer<AnonymousContact>
  ) {
    for index in 0..<reportedCount {
      continueContact(previousContacts[index], at: index, in: reportedContacts)
    }
  }

  /// Report `index` continues `previous`: it takes the contact's id; a contact once ignored
  /// stays ignored until the device stops reporting it, one that became ignored is
  /// cancelled, and one that moved is recorded as a move.
  @inline(__always)
  mutating func continueContact(
    _ previous: AnonymousContact, at index: Int, in reportedContacts: UnsafeMutablePointer<AnonymousContact>
  ) {
    let contact = reportedContacts[index]
    reportedContacts[index].contactID = previous.contactID
    if previous.ignored {
      reportedContacts[index].ignored = true
    } else if contact.ignored {
      record(previous.contactID, .cancelled, x: contact.x, y: contact.y)
    } else if contact.x != previous.x || contact.y != previous.y {
      record(previous.contactID, .moved, x: contact.x, y: contact.y)
    }
  }

  /// Any other frame: reports paired by `matchReportsToPreviousContacts`.
  mutating func commitMatched() {
    let storage = storage
    let previousContacts = storage.previous
    let reportedContacts = storage.reported
    let continued = matchReportsToPreviousContacts(storage)

    for index in 0..<previousCount where continued & (1 << UInt64(index)) == 0 {
      let contact = previousContacts[index]
      guard !contact.ignored else { continue }
      record(contact.contactID, .ended, x: contact.x, y: contact.y)
    }
    for index in 0..<reportedCount {
      let match = storage.matchOfReport[index]
      let contact = reportedContacts[index]
      if match >= 0 {
        continueContact(previousContacts[match], at: index, in: reportedContacts)
      } else if !contact.ignored {
        let id = takeContactID()
        reportedContacts[index].contactID = id
        record(id, .began, x: contact.x, y: contact.y)
      }
    }
  }

  /// Fills `matchOfReport`; returns a bit per previous contact that was continued.
  ///
  /// Tracking ids match first. The rest are paired by `ContactMatcher` on squared distance
  /// in device units, which follows fingers whatever order the device lists them in.
  mutating func matchReportsToPreviousContacts(_ storage: FrameStorage) -> UInt64 {
    let previousContacts = storage.previous
    let reportedContacts = storage.reported
    let matchOfReport = storage.matchOfReport
    var taken: UInt64 = 0
    for report in 0..<reportedCount {
      matchOfReport[report] = -1
      let trackingID = reportedContacts[report].trackingID
      guard trackingID >= 0 else { continue }
      for previous in 0..<previousCount
      where taken & (1 << UInt64(previous)) == 0
        && previousContacts[previous].trackingID == trackingID
      {
        matchOfReport[report] = previous
        taken |= 1 << UInt64(previous)
        break
      }
    }

    matcher.removeAll()
    for report in 0..<reportedCount where reportedContacts[report].trackingID < 0 {
      let contact = reportedContacts[report]
      storage.matcherReports[matcher.rowCount] = report
      _ = matcher.addRow(x: contact.x, y: contact.y)
    }
    for previous in 0..<previousCount
    where taken & (1 << UInt64(previous)) == 0 && previousContacts[previous].trackingID < 0 {
      let contact = previousContacts[previous]
      storage.matcherPrevious[matcher.columnCount] = previous
      _ = matcher.addColumn(x: contact.x, y: contact.y)
    }
    matcher.solve()
    for row in 0..<matcher.rowCount {
      let column = matcher.columnOfRow[row]
      guard column >= 0 else { continue }
      let previous = storage.matcherPrevious[column]
      matchOfReport[storage.matcherReports[row]] = previous
      taken |= 1 << UInt64(previous)
    }
    return taken
  }

  /// Coordinates within ±2²⁴ device units: every squared distance between two of them is
  /// an integer below 2⁵¹, exact in a Double, so comparisons of them are exact.
  static let exactRange: ClosedRange<Int32> = -(1 << 24)...(1 << 24)

  /// Whether report i continues previous contact i for every i, as `ContactMatcher` would
  /// pair them: both lists the same length, no tracking ids, every coordinate in
  /// `exactRange`, and each report closer to its previous contact than half that contact's
  /// distance to its nearest neighbour (4·dᵢ² < |pᵢ − pⱼ|² for every j ≠ i). Then, by the
  /// triangle inequality, report i is farther than that from every other previous contact
  /// j (|rᵢ − pⱼ| ≥ |pᵢ − pⱼ| − |rᵢ − pᵢ| > 2·|rᵢ − pᵢ| − |rᵢ − pᵢ|): each report has one
  /// strictly nearest partner, no two share it, and both the optimal method (through its
  /// nearest-partner case) and the greedy one beyond `ContactMatcher.optimalLimit` pair
  /// exactly these.
  ///
  /// Each pair of previous contacts is measured once, for both of its ends
  /// (`nearestSpacingIfClear`): n·(n − 1)/2 squared distances, against the matcher's n² at
  /// best. From `spacingFloorMinimumContacts` contacts on, not even that at most frames:
  /// `spacingFloor` comes in as a lower bound on the distance between any two previous
  /// contacts (0: none known) and goes out as one for the reports (0 when not carried).
  /// When the largest 4·dᵢ² is below its square, every pair passes unmeasured. The bound
  /// goes down at each frame by twice the largest deviation of a contact's move from the
  /// first contact's (|rᵢ − rⱼ| ≥ |pᵢ − pⱼ| − |vᵢ − v₀| − |vⱼ − v₀|, vᵢ = rᵢ − pᵢ), so
  /// fingers moving together keep it: the 45 squares of a 10-finger swipe are worked out
  /// once in several frames. Every rounding in it is taken downwards (`nextDown`,
  /// `nextUp`): it never exceeds the true distance. `moveBounds` (room for n) holds the
  /// 4·dᵢ² meanwhile.
  static func continuesInOrder(
    reports: UnsafeBufferPointer<AnonymousContact>, previous: UnsafeBufferPointer<AnonymousContact>,
    moveBounds: UnsafeMutablePointer<Double>, spacingFloor: inout Double
  ) -> Bool {
    let previousFloor = spacingFloor
    spacingFloor = 0
    guard reports.count == previous.count else { return false }
    var largestBound = 0.0
    for index in 0..<reports.count {
      let report = reports[index]
      let last = previous[index]
      guard report.trackingID < 0, last.trackingID < 0, exactRange.contains(report.x),
        exactRange.contains(report.y), exactRange.contains(last.x), exactRange.contains(last.y)
      else { return false }
      let dx = Double(report.x) - Double(last.x)
      let dy = Double(report.y) - Double(last.y)
      let bound = 4 * (dx * dx + dy * dy)
      moveBounds[index] = bound
      if bound > largestBound { largestBound = bound }
    }
    guard reports.count >= spacingFloorMinimumContacts else {
      return nearestSpacingIfClear(previous, moveBounds: moveBounds) != nil
    }
    var spacing = previousFloor
    // spacing² ≤ the nearest pair's squared distance (rounding is monotonic): below it,
    // every 4·dᵢ² is.
    if !(largestBound < spacing * spacing) {
      guard let nearest = nearestSpacingIfClear(previous, moveBounds: moveBounds) else { return false }
      spacing = nearest.squareRoot().nextDown
    }
    let deviation = largestMoveDeviation(reports: reports, previous: previous).squareRoot().nextUp
    spacingFloor = max(0, (spacing - 2 * deviation).nextDown)
    return true
  }

  /// Fewer contacts have so few pairs that measuring them costs less than carrying
  /// `spacingFloor`.
  static let spacingFloorMinimumContacts = 5

  /// The largest squared distance between a contact's move and the first contact's move,
  /// in device units. Exact: with coordinates in `exactRange`, the moves are integers
  /// within ±2²⁵, their differences within ±2²⁶ and the sums of squares at most 2⁵³.
  static func largestMoveDeviation(
    reports: UnsafeBufferPointer<AnonymousContact>, previous: UnsafeBufferPointer<AnonymousContact>
  ) -> Double {
    let firstMoveX = Double(reports[0].x) - Double(previous[0].x)
    let firstMoveY = Double(reports[0].y) - Double(previous[0].y)
    var largest = 0.0
    for index in 1..<reports.count {
      let deviationX = Double(reports[index].x) - Double(previous[index].x) - firstMoveX
      let deviationY = Double(reports[index].y) - Double(previous[index].y) - firstMoveY
      let deviation = deviationX * deviationX + deviationY * deviationY
      if deviation > largest { largest = deviation }
    }
    return largest
  }

  /// The squared distance between the nearest two of `contacts` (infinity when alone), or
  /// nil when a pair is no farther apart than either end's `moveBounds`: |pᵢ − pⱼ|² >
  /// max(4·dᵢ², 4·dⱼ²), each pair looked at once for both of its ends.
  /// Inlined: most frames have two or three contacts, and the call cost more than their
  /// pairs.
  @inline(__always)
  static func nearestSpacingIfClear(
    _ contacts: UnsafeBufferPointer<AnonymousContact>, moveBounds: UnsafeMutablePointer<Double>
  ) -> Double? {
    var nearest = Double.infinity
    // The loops written out (`while`, two comparisons rather than `max`): this is the one
    // part of a frame that grows with n², where ranges and `max` cost more.
    var first = 0
    while first < contacts.count &- 1 {
      let x = Double(contacts[first].x)
      let y = Double(contacts[first].y)
      let bound = moveBounds[first]
      var second = first &+ 1
      while second < contacts.count {
        let dx = x - Double(contacts[second].x)
        let dy = y - Double(contacts[second].y)
        let squared = dx * dx + dy * dy
        guard squared > bound, squared > moveBounds[second] else { return nil }
        if squared < nearest { nearest = squared }
        second &+= 1
      }
      first &+= 1
    }
    return nearest
  }

  /// The contact id of the `index`-th report of the protocol A frame just committed (its
  /// index among the frame's reports that carried a position), if it is followed: not a pen
  /// or a palm, and within the contacts the assembler keeps.
  func reportedContact(atReport index: Int) -> UInt32? {
    guard mode == .anonymous, index >= 0, index < previousCount, !storage.previous[index].ignored else { return nil }
    return storage.previous[index].contactID
  }

  mutating func cancelAllAnonymous() {
    discardAnonymousReports()
    let previousContacts = storage.previous
    for index in 0..<previousCount where !previousContacts[index].ignored {
      let contact = previousContacts[index]
      record(contact.contactID, .cancelled, x: contact.x, y: contact.y)
      previousContacts[index].ignored = true
    }
  }
}

extension RawEvent {
  /// The type and the code as one number, to tell an event's kind in one comparison.
  fileprivate var typeAndCode: UInt32 { Self.typeAndCode(type, code) }

  fileprivate static func typeAndCode(_ type: UInt16, _ code: UInt16) -> UInt32 {
    UInt32(type) | UInt32(code) << 16
  }
}
