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
      pendingReport.ignored = Self.isIgnoredTool(value)
    default:
      break
    }
  }

  /// SYN_MT_REPORT: the pending report becomes one of the frame's contacts. A report
  /// without a position (the empty SYN_MT_REPORT of "no contacts") adds nothing.
  mutating func endAnonymousReport() {
    if pendingReport.hasPosition, reportedCount < reportedContacts.count {
      reportedContacts[reportedCount] = AnonymousContact(
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
    let continued = matchReportsToPreviousContacts()

    for index in 0..<previousCount where continued & (1 << UInt64(index)) == 0 {
      let contact = previousContacts[index]
      guard !contact.ignored else { continue }
      record(contact.contactID, .ended, x: contact.x, y: contact.y)
    }
    for index in 0..<reportedCount {
      var contact = reportedContacts[index]
      let match = matchOfReport[index]
      if match >= 0 {
        let previous = previousContacts[match]
        contact.contactID = previous.contactID
        if previous.ignored {
          // Once ignored, ignored until the device stops reporting it.
          contact.ignored = true
        } else if contact.ignored {
          record(contact.contactID, .cancelled, x: contact.x, y: contact.y)
        } else if contact.x != previous.x || contact.y != previous.y {
          record(contact.contactID, .moved, x: contact.x, y: contact.y)
        }
      } else if !contact.ignored {
        contact.contactID = takeContactID()
        record(contact.contactID, .began, x: contact.x, y: contact.y)
      }
      reportedContacts[index] = contact
    }

    swap(&previousContacts, &reportedContacts)
    previousCount = reportedCount
    reportedCount = 0
  }

  /// Fills `matchOfReport`; returns a bit per previous contact that was continued.
  ///
  /// Tracking ids match first. The rest are paired by `ContactMatcher` on squared distance
  /// in device units, which follows fingers whatever order the device lists them in.
  mutating func matchReportsToPreviousContacts() -> UInt64 {
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
      matcherReports[matcher.rowCount] = report
      _ = matcher.addRow(x: contact.x, y: contact.y)
    }
    for previous in 0..<previousCount
    where taken & (1 << UInt64(previous)) == 0 && previousContacts[previous].trackingID < 0 {
      let contact = previousContacts[previous]
      matcherPrevious[matcher.columnCount] = previous
      _ = matcher.addColumn(x: contact.x, y: contact.y)
    }
    matcher.solve()
    for row in 0..<matcher.rowCount {
      let column = matcher.columnOfRow[row]
      guard column >= 0 else { continue }
      let previous = matcherPrevious[column]
      matchOfReport[matcherReports[row]] = previous
      taken |= 1 << UInt64(previous)
    }
    return taken
  }

  mutating func cancelAllAnonymous() {
    discardAnonymousReports()
    for index in 0..<previousCount where !previousContacts[index].ignored {
      let contact = previousContacts[index]
      record(contact.contactID, .cancelled, x: contact.x, y: contact.y)
      previousContacts[index].ignored = true
    }
  }
}
