/// One step of the engine's trace as a value, for what draws or shows recognition (`gestured
/// trace`, `monitor --pretty`) rather than parsing the text lines. Kept only while asked for
/// (`DeviceEngine.keepsRecords`); nothing is built otherwise.
public struct TraceRecord: Hashable, Sendable {
  public enum What: Hashable, Sendable {
    /// A touch sequence's first finger landed; `region` indexes the profile's regions.
    case sequenceBegan(number: Int, region: Int?)
    /// The sequence state machine moved to `state` on `event` (both as the text trace says them).
    case sequence(state: String, event: String)
    /// A recognizer (`tap`, `long-press`, `swipe`, `pan`, `pinch`, `rotate`) moved to `state`;
    /// `failure` says why when it failed.
    case recognizer(name: String, state: String, failure: RecognizerFailure?)
    /// A chain of `taps` taps of `fingers` fingers is over; `bound`: a binding fired for it.
    case tapChainEnded(taps: Int, fingers: Int, region: Int?, bound: Bool)
  }

  public var time: Timestamp
  public var what: What

  public init(time: Timestamp, what: What) {
    self.time = time
    self.what = what
  }

  init<State: CustomStringConvertible>(recognizer name: String, transition: Transition<State>, at time: Timestamp) {
    self.time = time
    let failure = (transition.to as? any FailingRecognizerState)?.failure
    what = .recognizer(name: name, state: transition.to.description, failure: failure)
  }
}

/// A recognizer state that may carry why it failed.
protocol FailingRecognizerState {
  var failure: RecognizerFailure? { get }
}

extension TapRecognizer.State: FailingRecognizerState {
  var failure: RecognizerFailure? {
    if case .failed(let why) = self { return why }
    return nil
  }
}

extension LongPressRecognizer.State: FailingRecognizerState {
  var failure: RecognizerFailure? {
    if case .failed(let why) = self { return why }
    return nil
  }
}

extension SwipeRecognizer.State: FailingRecognizerState {
  var failure: RecognizerFailure? {
    if case .failed(let why) = self { return why }
    return nil
  }
}

extension ContinuousRecognizer.State: FailingRecognizerState {
  var failure: RecognizerFailure? {
    if case .failed(let why) = self { return why }
    return nil
  }
}
