/// What the recognizers need to know about a profile's bindings, worked out once when the
/// engine is made: for every region (and "no region") and finger count, which binding each
/// recognized gesture fires. A binding for a region shadows a region-less one of the same
/// gesture, fingers, taps and direction; an edge swipe is preferred over a plain one.
struct BindingIndex {
  /// A continuous binding of a sequence: it keeps a level and steps, or fires once at
  /// recognition (`step` nil).
  struct Continuous: Equatable {
    var binding: Int
    var kind: GestureKind
    var direction: Direction
    /// The level width in the kind's measure (see `ContinuousMeasure`), nil for one-shot.
    var width: Double?
    /// The step in its config unit, for pan's recognition distance.
    var step: Double?
  }

  struct SwipeCandidate: Equatable {
    var binding: Int
    var direction: Direction
    var edge: Edge?
  }

  /// Everything one sequence (region, finger count) can fire.
  struct SequenceBindings {
    /// Tap bindings by tap count.
    var taps: [Int: Int] = [:]
    var highestTaps = 1
    /// The one-shot long press (no `step`).
    var longPress: Int?
    /// Best first.
    var swipes: [SwipeCandidate] = []
    /// Pan, pinch and rotate bindings, and long presses with `direction` and `step` (after
    /// the long press fires, the fingers' offset from there steps them as a pan: hold and
    /// drag; `width` is the step in mm), in binding order.
    var continuous: [Continuous] = []
    /// Pan, pinch and rotate: the kinds measured at every frame, with at least one binding here.
    var continuousKinds = GestureKindSet()
    /// Every kind with at least one binding here.
    var kinds = GestureKindSet()

    /// Whether `kind` has a binding in `direction`.
    func isBound(_ kind: GestureKind, _ direction: Direction) -> Bool {
      continuous.contains { $0.kind == kind && $0.direction == direction }
    }
  }

  private var sequences: [SequenceBindings]
  private let maxFingers: Int
  /// `kinds(region:)` by region slot (0: no region), worked out here rather than over the
  /// sequences each time.
  private var kindsByRegion: [GestureKindSet] = []

  init(profile: Profile, maxFingers: Int) {
    self.maxFingers = maxFingers
    var sequences: [SequenceBindings] = []
    for regionSlot in 0...profile.regions.count {
      let region: Int? = regionSlot == 0 ? nil : regionSlot - 1
      for fingers in 1...maxFingers {
        sequences.append(Self.sequence(profile.bindings, region: region, fingers: fingers))
      }
    }
    self.sequences = sequences
    kindsByRegion = (0...profile.regions.count).map { regionSlot in
      GestureKindSet((0..<maxFingers).flatMap { sequences[regionSlot * maxFingers + $0].kinds.kinds })
    }
  }

  /// What a sequence of `fingers` starting in `region` can fire.
  func sequence(region: Int?, fingers: Int) -> SequenceBindings {
    let f = min(max(fingers, 1), maxFingers)
    return sequences[((region ?? -1) + 1) * maxFingers + f - 1]
  }

  /// The kinds bound for any finger count in `region`, so that an unbound long press never
  /// arms a timer.
  func kinds(region: Int?) -> GestureKindSet {
    kindsByRegion[(region ?? -1) + 1]
  }

  private static func sequence(_ bindings: [Binding], region: Int?, fingers: Int) -> SequenceBindings {
    var result = SequenceBindings()
    // Region-specific bindings first, so that they win every lookup below.
    let applicable = bindings.indices.filter {
      bindings[$0].fingers == fingers && (bindings[$0].region == nil || bindings[$0].region == region)
    }
    let ordered = applicable.filter { bindings[$0].region != nil } + applicable.filter { bindings[$0].region == nil }
    var taken = Set<String>()
    for index in ordered {
      let b = bindings[index]
      switch b.gesture {
      case .tap:
        if result.taps[b.taps] == nil { result.taps[b.taps] = index }
        result.highestTaps = max(result.highestTaps, b.taps)
        result.kinds.insert(b.gesture)
      case .longPress:
        if let direction = b.direction, let step = b.step {
          guard taken.insert("\(b.gesture.rawValue) \(direction.rawValue)").inserted else { continue }
          result.continuous.append(
            Continuous(binding: index, kind: .longPress, direction: direction, width: step, step: step))
          result.kinds.insert(b.gesture)
        } else if result.longPress == nil {
          result.longPress = index
          result.kinds.insert(b.gesture)
        }
      case .swipe:
        if let direction = b.direction {
          result.swipes.append(SwipeCandidate(binding: index, direction: direction, edge: b.edge))
          result.kinds.insert(b.gesture)
        }
      case .pan, .pinch, .rotate:
        guard let direction = b.direction, taken.insert("\(b.gesture.rawValue) \(direction.rawValue)").inserted
        else { continue }
        let width = b.step.map { ContinuousMeasure.levelWidth(kind: b.gesture, step: $0) }
        result.continuous.append(
          Continuous(binding: index, kind: b.gesture, direction: direction, width: width, step: b.step))
        result.continuousKinds.insert(b.gesture)
        result.kinds.insert(b.gesture)
      }
    }
    // Rank: region-specific before region-less, edge before plain (stable within a rank).
    let rank: (SwipeCandidate) -> Int = { c in
      (bindings[c.binding].region != nil ? 2 : 0) + (c.edge != nil ? 1 : 0)
    }
    result.swipes = result.swipes.enumerated().sorted {
      rank($0.element) != rank($1.element) ? rank($0.element) > rank($1.element) : $0.offset < $1.offset
    }.map(\.element)
    result.continuous.sort { $0.binding < $1.binding }
    return result
  }
}

/// How each continuous kind's value turns into step levels: a measure `v` that grows by
/// `width` per level. Pinch: v = ln(scale), width = ln(1 + step) (so levels are powers of
/// the factor); rotate: degrees; pan: mm along the binding's axis.
enum ContinuousMeasure {
  static func levelWidth(kind: GestureKind, step: Double) -> Double {
    switch kind {
    case .pinch: naturalLog(1 + step / 100)
    default: step
    }
  }
}
