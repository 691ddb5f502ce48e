import GestureCore
import Testing

@testable import GesturedRuntime
@testable import GesturedSystem

@Suite("Descriptor budget")
struct DescriptorBudgetTests {
  @Test func gesturedKeeps292DescriptorsForItselfAndTwoPerDevice() {
    // 16 of its own; 64 bindings' two pipes (both ends), 16 pidfds, two timers.
    #expect(DescriptorBudget.daemon + DescriptorBudget.actions == 292)
    #expect(DescriptorBudget.needed(maximumDevices: 1000) == 2292)
    #expect(DescriptorBudget.devicesFitting(under: 1024) == 366)
  }

  @Test func aMaxDevicesThatCannotFitIsRefusedWithWhatToChange() {
    #expect(DescriptorBudget.problem(maximumDevices: 1000, limit: 524_288) == nil)
    #expect(DescriptorBudget.problem(maximumDevices: 366, limit: 1024) == nil)
    #expect(
      DescriptorBudget.problem(maximumDevices: 1000, limit: 1024)
        == "max-devices: 1000 needs 2292 file descriptors (2 per device, 292 for gestured itself and its "
        + "actions), but the open-file limit is 1024: lower max-devices to 366 or raise LimitNOFILE=")
    // systemd's LimitNOFILE=48: not even one device fits.
    #expect(
      DescriptorBudget.problem(maximumDevices: 64, limit: 48)
        == "max-devices: 64 needs 420 file descriptors (2 per device, 292 for gestured itself and its "
        + "actions), but the open-file limit is 48: raise LimitNOFILE= (at least 420)")
  }

  @Test func theDaemonRaisesItsSoftLimitToTheHardOneAndMeetsTheLargestMaxDevices() throws {
    let limit = try OpenFileLimit.raiseToHardLimit().get()
    #expect(limit.soft == limit.hard)
    #expect(try OpenFileLimit.current().get() == limit)
    let configuration = Configuration(maximumDevices: 1000)
    let log = CapturedOutput()
    let fits = Daemon.fitsDescriptorBudget(configuration, logger: Logger(sink: log))
    #expect(fits == (limit.soft >= 2292))
    #expect(log.text.isEmpty == fits)
  }
}
