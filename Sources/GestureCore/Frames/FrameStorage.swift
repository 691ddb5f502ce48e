/// The frame assembler's per-frame storage in one object owned by one assembler: the
/// frame's changes, protocol A's contacts and the matcher's index lists. Every access goes
/// through a pointer, with neither the uniqueness check nor the bounds check (nor, for the
/// changes, the generic `removeAll`) an array pays on every element write, which protocol
/// A's frames do many times. Sizes are fixed at init, from the bounds the assembler keeps.
///
/// Copy on write: the assembler takes it through `writableStorage()` once per call that
/// writes (a frame's commit, a report, a lift), which copies it while another assembler (a
/// copy of the engine) still holds it.
final class FrameStorage: @unchecked Sendable {
  typealias AnonymousContact = FrameAssembler.AnonymousContact

  let changeCapacity: Int
  let contactCapacity: Int
  let changes: UnsafeMutablePointer<ContactChange>
  /// Protocol A: the last frame's contacts and the one being reported; swapped at each frame.
  private(set) var previous: UnsafeMutablePointer<AnonymousContact>
  private(set) var reported: UnsafeMutablePointer<AnonymousContact>
  /// For each reported contact, the index of the previous frame's contact it continues, or -1.
  let matchOfReport: UnsafeMutablePointer<Int>
  /// Which report, which previous contact each of the matcher's rows and columns is.
  let matcherReports: UnsafeMutablePointer<Int>
  let matcherPrevious: UnsafeMutablePointer<Int>
  /// `FrameAssembler.continuesInOrder`'s work space: a bound per contact.
  let moveBounds: UnsafeMutablePointer<Double>

  init(changeCapacity: Int, contactCapacity: Int) {
    self.changeCapacity = changeCapacity
    self.contactCapacity = contactCapacity
    changes = .allocate(capacity: changeCapacity)
    changes.initialize(
      repeating: ContactChange(id: 0, phase: .began, position: Point(x: 0, y: 0)), count: changeCapacity)
    previous = .allocate(capacity: contactCapacity)
    previous.initialize(repeating: AnonymousContact(), count: contactCapacity)
    reported = .allocate(capacity: contactCapacity)
    reported.initialize(repeating: AnonymousContact(), count: contactCapacity)
    matchOfReport = .allocate(capacity: contactCapacity)
    matchOfReport.initialize(repeating: -1, count: contactCapacity)
    matcherReports = .allocate(capacity: contactCapacity)
    matcherReports.initialize(repeating: 0, count: contactCapacity)
    matcherPrevious = .allocate(capacity: contactCapacity)
    matcherPrevious.initialize(repeating: 0, count: contactCapacity)
    moveBounds = .allocate(capacity: contactCapacity)
    moveBounds.initialize(repeating: 0, count: contactCapacity)
  }

  deinit {
    // Trivial element types: nothing to deinitialize.
    changes.deallocate()
    previous.deallocate()
    reported.deallocate()
    matchOfReport.deallocate()
    matcherReports.deallocate()
    matcherPrevious.deallocate()
    moveBounds.deallocate()
  }

  func swapFrames() { swap(&previous, &reported) }

  func copy() -> FrameStorage {
    let copy = FrameStorage(changeCapacity: changeCapacity, contactCapacity: contactCapacity)
    copy.changes.update(from: changes, count: changeCapacity)
    copy.previous.update(from: previous, count: contactCapacity)
    copy.reported.update(from: reported, count: contactCapacity)
    copy.matchOfReport.update(from: matchOfReport, count: contactCapacity)
    copy.matcherReports.update(from: matcherReports, count: contactCapacity)
    copy.matcherPrevious.update(from: matcherPrevious, count: contactCapacity)
    copy.moveBounds.update(from: moveBounds, count: contactCapacity)
    return copy
  }
}
