/// Pairs the contacts of one frame with those of the next so that the sum of squared
/// distances is smallest (the Hungarian method, O(n²·m)), for protocol A panels that do not
/// say which contact is which.
///
/// Better than pairing the closest pair first: two fingers moving together by more than half
/// their spacing per frame (a fast two-finger swipe) stay themselves, where greedy pairing
/// would swap them. All storage is allocated at init.
///
/// The cost per frame is bounded: the optimal method runs only while both sides have at
/// most `optimalLimit` contacts (at most 10·10·10 steps); beyond that (a palm, a flood from
/// a fake device; gestures follow at most 5 fingers) each contact takes the nearest one not
/// yet taken, at most 64·64 distance computations for the 64 contacts a frame may hold.
struct ContactMatcher: Sendable {
  /// Most contacts on either side for the optimal pairing.
  static let optimalLimit = 10

  let capacity: Int
  private(set) var rowCount = 0
  private(set) var columnCount = 0
  private var rowX: [Double]
  private var rowY: [Double]
  private var columnX: [Double]
  private var columnY: [Double]
  /// After `solve()`: for each row, its column, or -1 when there are more rows than columns.
  private(set) var columnOfRow: [Int]

  // Work space of the method, 1-based with index 0 as the sentinel.
  private var rowPotential: [Double]
  private var columnPotential: [Double]
  private var slack: [Double]
  private var rowOfColumn: [Int]
  private var previousColumn: [Int]
  private var columnVisited: [Bool]

  init(capacity: Int) {
    self.capacity = capacity
    rowX = Array(repeating: 0, count: capacity)
    rowY = rowX
    columnX = rowX
    columnY = rowX
    columnOfRow = Array(repeating: -1, count: capacity)
    rowPotential = Array(repeating: 0, count: capacity + 1)
    columnPotential = rowPotential
    slack = rowPotential
    rowOfColumn = Array(repeating: 0, count: capacity + 1)
    previousColumn = rowOfColumn
    columnVisited = Array(repeating: false, count: capacity + 1)
  }

  mutating func removeAll() {
    rowCount = 0
    columnCount = 0
  }

  /// Returns false when full.
  mutating func addRow(x: Int32, y: Int32) -> Bool {
    guard rowCount < capacity else { return false }
    rowX[rowCount] = Double(x)
    rowY[rowCount] = Double(y)
    rowCount += 1
    return true
  }

  mutating func addColumn(x: Int32, y: Int32) -> Bool {
    guard columnCount < capacity else { return false }
    columnX[columnCount] = Double(x)
    columnY[columnCount] = Double(y)
    columnCount += 1
    return true
  }

  /// Fills `columnOfRow[0..<rowCount]`. Every row is matched when rows ≤ columns, every
  /// column when columns ≤ rows.
  mutating func solve() {
    for row in 0..<rowCount { columnOfRow[row] = -1 }
    guard rowCount > 0, columnCount > 0 else { return }
    guard max(rowCount, columnCount) <= Self.optimalLimit else { return solveGreedily() }
    if solvedByNearest() { return }
    // The method wants no more "left" items than "right" ones: swap roles when needed.
    let transposed = rowCount > columnCount
    let left = transposed ? columnCount : rowCount
    let right = transposed ? rowCount : columnCount

    for index in 0...right {
      columnPotential[index] = 0
      rowOfColumn[index] = 0
      previousColumn[index] = 0
    }
    for index in 0...left { rowPotential[index] = 0 }

    for item in 1...left {
      rowOfColumn[0] = item
      var column = 0
      for index in 0...right {
        slack[index] = .infinity
        columnVisited[index] = false
      }
      repeat {
        columnVisited[column] = true
        let current = rowOfColumn[column]
        var delta = Double.infinity
        var next = 0
        for candidate in 1...right where !columnVisited[candidate] {
          let reduced =
            cost(left: current, right: candidate, transposed: transposed)
            - rowPotential[current] - columnPotential[candidate]
          if reduced < slack[candidate] {
            slack[candidate] = reduced
            previousColumn[candidate] = column
          }
          if slack[candidate] < delta {
            delta = slack[candidate]
            next = candidate
          }
        }
        // Cannot happen with finite costs; ends with the pairs found so far rather than
        // looping or corrupting them.
        guard next != 0 else { return publish(right: right, transposed: transposed) }
        for index in 0...right {
          if columnVisited[index] {
            rowPotential[rowOfColumn[index]] += delta
            columnPotential[index] -= delta
          } else {
            slack[index] -= delta
          }
        }
        column = next
      } while rowOfColumn[column] != 0
      // Flip the augmenting path.
      while column != 0 {
        let previous = previousColumn[column]
        rowOfColumn[column] = rowOfColumn[previous]
        column = previous
      }
    }

    publish(right: right, transposed: transposed)
  }

  /// The common frame, fingers that moved less than half their spacing: when every item of
  /// the smaller side has one strictly nearest partner and no two share it, that pairing
  /// reaches the sum of the items' own minima, so it is the optimum and the only one (what
  /// the method would find, exactly: the costs are integers). O(rows·columns) instead of
  /// the method's O(n²·m); false, the answer left empty, when it does not apply.
  private mutating func solvedByNearest() -> Bool {
    let byRow = rowCount <= columnCount
    let items = byRow ? rowCount : columnCount
    let partners = byRow ? columnCount : rowCount
    // Each item's partner, 4 bits each (at most `optimalLimit` of each), written once the
    // scan found them all: the scan only reads, through buffers, with no check per access.
    var chosen: UInt64 = 0
    let found = rowX.withUnsafeBufferPointer { rowX in
      rowY.withUnsafeBufferPointer { rowY in
        columnX.withUnsafeBufferPointer { columnX in
          columnY.withUnsafeBufferPointer { columnY in
            let (itemX, itemY) = byRow ? (rowX, rowY) : (columnX, columnY)
            let (partnerX, partnerY) = byRow ? (columnX, columnY) : (rowX, rowY)
            var takenPartners: UInt64 = 0
            for item in 0..<items {
              let x = itemX[item]
              let y = itemY[item]
              var best = -1
              var bestCost = Double.infinity
              var unique = false
              for partner in 0..<partners {
                // `cost`'s value: the same squares whichever side is subtracted.
                let dx = x - partnerX[partner]
                let dy = y - partnerY[partner]
                let c = dx * dx + dy * dy
                if c < bestCost {
                  best = partner
                  bestCost = c
                  unique = true
                } else if c == bestCost {
                  unique = false
                }
              }
              guard unique, takenPartners & (1 << UInt64(best)) == 0 else { return false }
              takenPartners |= 1 << UInt64(best)
              chosen |= UInt64(best) << UInt64(4 * item)
            }
            return true
          }
        }
      }
    }
    guard found else { return false }
    for item in 0..<items {
      let best = Int((chosen >> UInt64(4 * item)) & 0xF)
      if byRow { columnOfRow[item] = best } else { columnOfRow[best] = item }
    }
    return true
  }

  /// Each row in turn takes the nearest column still free: O(rows·columns).
  private mutating func solveGreedily() {
    for index in 0..<columnCount { columnVisited[index] = false }
    for row in 0..<rowCount {
      var best = -1
      var bestDistance = Double.infinity
      for column in 0..<columnCount where !columnVisited[column] {
        let dx = rowX[row] - columnX[column]
        let dy = rowY[row] - columnY[column]
        let distance = dx * dx + dy * dy
        if best < 0 || distance < bestDistance {
          best = column
          bestDistance = distance
        }
      }
      guard best >= 0 else { return }
      columnVisited[best] = true
      columnOfRow[row] = best
    }
  }

  private mutating func publish(right: Int, transposed: Bool) {
    for index in 1...right where rowOfColumn[index] != 0 {
      if transposed {
        columnOfRow[index - 1] = rowOfColumn[index] - 1
      } else {
        columnOfRow[rowOfColumn[index] - 1] = index - 1
      }
    }
  }

  /// Squared distance between 1-based items of the two sides.
  private func cost(left: Int, right: Int, transposed: Bool) -> Double {
    let row = (transposed ? right : left) - 1
    let column = (transposed ? left : right) - 1
    let dx = rowX[row] - columnX[column]
    let dy = rowY[row] - columnY[column]
    return dx * dx + dy * dy
  }
}
