import Glibc
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

@Suite("The syscall layer")
struct ErrnoTests {
  @Test func valueOrErrnoReadsErrnoOnlyForMinusOne() {
    #expect(valueOrErrno(close(-1)) == .failure(.badFileDescriptor))
    #expect(valueOrErrno(Int32(3)) == .success(3))
    #expect(valueOrErrno(Int(0)) == .success(0))
  }

  @Test func negatedResultsAreErrnoValues() {
    #expect(valueOrErrno(negated: Int32(-ENODEV)) == .failure(.noSuchDevice))
    #expect(valueOrErrno(negated: Int32(-1)) == .failure(.notPermitted), "-1 is -EPERM here")
    #expect(valueOrErrno(negated: Int32.min) == .failure(.ioError))
    #expect(valueOrErrno(negated: Int32(7)) == .success(7))
  }

  @Test func onlyEINTRIsRetried() {
    var calls = 0
    let interruptedTwice = retryOnInterrupt { () -> Result<Int, Errno> in
      calls += 1
      return calls < 3 ? .failure(.interrupted) : .success(calls)
    }
    #expect(interruptedTwice == .success(3))
    calls = 0
    let failed = retryOnInterrupt { () -> Result<Int, Errno> in
      calls += 1
      return .failure(.wouldBlock)
    }
    #expect(failed == .failure(.wouldBlock) && calls == 1)
  }

  @Test func errorsSayWhatStrerrorSays() {
    #expect(Errno.noSuchDevice.description == "No such device")
    #expect(SystemError(operation: "pipe", errno: .noMemory).description == "pipe: Cannot allocate memory")
    #expect(UdevError(operation: "udev_new", errno: .noMemory).description == "udev_new: Cannot allocate memory")
  }

  @Test("an error about a device names the node, the step and the errno, with what the errno means there")
  func deviceErrorsNameTheNode() {
    #expect(
      DeviceError(devnode: "/dev/input/event3", operation: .open, errno: .permissionDenied).description
        == "/dev/input/event3: cannot open: Permission denied")
    #expect(
      DeviceError(devnode: "/dev/input/event3", operation: .grab, errno: .deviceBusy).description
        == "/dev/input/event3: cannot grab it (EVIOCGRAB): Device or resource busy (another process has grabbed it)")
    #expect(
      DeviceError(devnode: "/dev/null", operation: .readCapabilities, errno: .notATerminal).description
        == "/dev/null: cannot read its capabilities: Inappropriate ioctl for device (not an evdev device)")
    #expect(SystemError(operation: "pipe", errno: .notPermitted).isPermissionDenied)
  }

  @Test("errors that say more than a system call wrap the one that failed, and read as before")
  func domainErrorsWrapTheSystemError() {
    let unreadable = FileReadError(path: "/etc/gestured.yaml", reason: .system(errno: .permissionDenied))
    guard case .system(let failure) = unreadable.reason else {
      Issue.record("not a system failure: \(unreadable.reason)")
      return
    }
    #expect(failure.errno == .permissionDenied)
    #expect(unreadable.description == "Permission denied")
    let lookup = UserLookupError.lookupFailed("kiosk", SystemError(operation: "getpwnam_r", errno: .ioError))
    #expect(lookup.description == "looking up user \"kiosk\": Input/output error")
  }
}
