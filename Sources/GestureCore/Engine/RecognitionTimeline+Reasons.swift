extension RecognitionTimeline {
  /// The sequence's finger count: its contacts that landed within `finger-landing` of the
  /// first (at most five), as the arbiter counts them.
  public func fingerCount(of sequence: Sequence, landing: Microseconds) -> Int {
    let counted = contacts.filter { path in
      sequence.contacts.contains(path.id) && (path.points.first?.time ?? sequence.start) <= sequence.start + landing
    }
    return min(max(counted.count, 1), 5)
  }

  /// Why a sequence fired nothing, one short sentence per gesture that could have fired,
  /// from the recognizers' last states: what an operator asks when a gesture did not fire.
  public func reasonsNothingFired(_ sequence: Sequence, profile: Profile) -> [String] {
    let fingers = fingerCount(of: sequence, landing: profile.thresholds.fingerLanding)
    var reasons: [String] = []
    if let closed = sequence.closed, closed.contains("spoiled") {
      reasons.append("a finger landed late or was cancelled: the sequence fires nothing")
    }
    let here = profile.bindings.filter { $0.region == nil || $0.region == sequence.region }
    let bound = here.filter { $0.fingers == fingers }
    guard !bound.isEmpty else {
      let counts = Set(here.map(\.fingers)).sorted().map(String.init)
      let place = sequence.region.map { "region \(profile.regions[$0].name)" } ?? "this part of the panel"
      reasons.append(
        counts.isEmpty
          ? "nothing bound in \(place)"
          : "nothing bound for \(fingers) finger\(fingers == 1 ? "" : "s") in \(place) (bound: \(counts.joined(separator: ", ")))"
      )
      return reasons
    }
    for kind in GestureKind.allCases where bound.contains(where: { $0.gesture == kind }) {
      let verdict = sequence.recognizers.first { $0.name == kind.rawValue }
      reasons.append(
        "\(kind.rawValue): " + Self.reason(kind, verdict, sequence, bound: bound.filter { $0.gesture == kind }))
    }
    return reasons
  }

  private static func reason(_ kind: GestureKind, _ verdict: RecognizerVerdict?, _ sequence: Sequence, bound: [Binding])
    -> String
  {
    if kind == .tap, let chain = sequence.unboundTapChains.last {
      let counts = Set(bound.map(\.taps)).sorted().map(String.init).joined(separator: ", ")
      return
        "\(chain.taps) tap\(chain.taps == 1 ? "" : "s") of \(chain.fingers) finger\(chain.fingers == 1 ? "" : "s"), but taps bound: \(counts)"
    }
    guard let verdict else { return "never started" }
    switch verdict.failure {
    case .lifted?:
      return kind == .longPress ? "lifted before long-press time" : "threshold not reached before a finger lifted"
    case let failure?:
      return failure.description
    case nil:
      if kind == .swipe, verdict.state.hasPrefix("recognized") {
        let directions = bound.compactMap { $0.direction?.rawValue }.joined(separator: ", ")
        return "\(verdict.state), but bound only: \(directions) (or its edge did not match)"
      }
      return verdict.state
    }
  }
}
