import CEvdev
import Dispatch
import GestureCore
import GesturedSystem

#if canImport(Glibc)
  import Glibc
#endif

/// `gestured record DEVICE`: the device's events as an evemu recording on stdout, so an
/// operator can capture a panel for `replay` without evemu-tools.
///
/// The device is read by EvdevDevice as the daemon reads it (without a
/// grab): the description first, then the events with the kernel's CLOCK_MONOTONIC stamps
/// counted from the first event. SIGINT and SIGTERM stop it, as does the device going away;
/// either way everything read is written out and it exits 0.
public struct RecordCommand: Sendable, Equatable {
  public var devicePath: String

  public init(devicePath: String) { self.devicePath = devicePath }

  /// Returns only when recording cannot start (66: the device cannot be opened); once
  /// recording, the process exits by itself.
  public func run(errors: any OutputSink) -> ExitCode {
    let device: EvdevDevice
    do {
      device = try EvdevDevice(devnode: devicePath)
    } catch {
      var message = "gestured: record: \(error)\n"
      if error.isPermissionDenied {
        message += "  hint: reading input devices needs root or the input group\n"
      } else if error.operation == .open && error.errno == .noSuchFileOrDirectory {
        message += "  hint: 'gestured devices' lists the input nodes (/dev/input/eventN)\n"
      }
      errors.write(message)
      return .missingFile
    }
    RecordSession(device: device, output: STDOUT_FILENO, errors: errors).run()
  }
}

/// The evemu text of one recording, event by event: times are counted from the first
/// event, as evemu-record counts them, so a recording starts at 0.000000.
public struct EvemuRecorder {
  public let header: String
  private var start: Timestamp?
  private var lastReport: Timestamp?

  public init(device: DeviceDescription, comment: String) {
    header = EvemuWriter.header(device: device, comment: comment)
  }

  /// The E: line for `event`, with its newline.
  public mutating func line(for event: RawEvent) -> String {
    let start = self.start ?? event.time
    self.start = start
    let shifted = RawEvent(
      time: Timestamp(microseconds: event.time - start), type: event.type, code: event.code,
      value: event.value)
    return EvemuWriter.eventLine(shifted, sinceLastReport: &lastReport) + "\n"
  }
}

/// The running recording, on the daemon's event loop (EventMultiplexer): the device and a
/// signalfd for SIGINT and SIGTERM in one epoll set, served by the main thread.
private final class RecordSession {
  let device: EvdevDevice
  let output: Int32
  let errors: any OutputSink
  var recorder: EvemuRecorder
  /// Lines not written yet: written at each SYN_REPORT (so a reader of the pipe sees whole
  /// frames) and at the end.
  var pending = ""
  var events = 0
  let queue = DispatchQueue(label: "gestured.record")
  var signals: SignalReceiver?
  static let stoppingSignals = [SIGINT, SIGTERM]

  init(device: EvdevDevice, output: Int32, errors: any OutputSink) {
    self.device = device
    self.output = output
    self.errors = errors
    recorder = EvemuRecorder(
      device: device.description, comment: "recorded by \(Usage.version) from \(device.devnode)")
  }

  func run() -> Never {
    // A closed pipe must be an error to report, not a silent death.
    signal(SIGPIPE, SIG_IGN)
    // Before any thread starts: the signals wait for the signalfd in every thread.
    SignalReceiver.block(Self.stoppingSignals)
    let multiplexer: EventMultiplexer
    do {
      multiplexer = try EventMultiplexer(queue: queue)
    } catch {
      cannotStart(error)
    }
    queue.sync { start(multiplexer) }
    multiplexer.run()
  }

  /// On the queue: the signals and the device watched, the header written.
  private func start(_ multiplexer: EventMultiplexer) {
    do {
      signals = try SignalReceiver(Self.stoppingSignals, multiplexer: multiplexer) { [unowned self] number in
        self.finish("stopped by signal \(number)")
      }
      pending = recorder.header
      flush()
      errors.write("gestured: recording \(device.devnode) '\(device.description.name)'; Ctrl-C stops\n")
      _ = try multiplexer.watch(device.fileDescriptor) { [unowned self] in self.read() }
    } catch {
      cannotStart(error)
    }
  }

  private func cannotStart(_ error: SystemError) -> Never {
    errors.write("gestured: record: cannot start: \(error)\n")
    exit(ExitCode.systemError.rawValue)
  }

  func read() {
    let result = device.drain { event in
      pending += recorder.line(for: event)
      events += 1
      if event.type == EventType.syn && event.code == SynCode.report { flush() }
    }
    if case .gone(let error) = result {
      finish(error == .noSuchDevice ? "the device went away" : "reading failed: \(error)")
    }
  }

  func flush() {
    var text = pending
    pending = ""
    let failure: Errno? = text.withUTF8 { bytes in
      var offset = 0
      while offset < bytes.count {
        switch retryOnInterrupt({ valueOrErrno(write(output, bytes.baseAddress! + offset, bytes.count - offset)) }) {
        case .success(let written): offset += written
        case .failure(let error): return error
        }
      }
      return nil
    }
    if let failure {
      errors.write("gestured: record: cannot write the recording: \(failure)\n")
      exit(ExitCode.ioError.rawValue)
    }
  }

  func finish(_ reason: String) {
    flush()
    device.close()
    errors.write("gestured: record: \(reason); \(events) events written\n")
    exit(ExitCode.success.rawValue)
  }
}
