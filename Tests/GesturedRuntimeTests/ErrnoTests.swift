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
}
