import Testing

@testable import GestureCore

/// The kind table is the one place that names each kind: the arbiter's loops reach a kind
/// only through it, so a kind it misses would silently never be recognized.
@Suite("Recognizer table")
struct RecognizerTableTests {
  @Test func everyKindIsVisitedOnceInTheTablesOrder() {
    var visited: [GestureKind] = []
    RecognizerTable.forEachKind { visited.append($0) }
    #expect(visited == GestureKind.allCases)
  }

  @Test func eachKindsRecognizerIsThatKinds() {
    for kind in GestureKind.allCases {
      #expect(RecognizerTable.recognizer(of: kind).kind == kind)
    }
  }

  @Test func theSteppingKindsAreTheContinuousOnesThenTheOnesMeasuredFromRecognition() {
    var stepping: [GestureKind] = []
    RecognizerTable.forEachSteppingKind { stepping.append($0) }
    var continuous: [GestureKind] = []
    RecognizerTable.forEachContinuousKind { continuous.append($0) }
    #expect(continuous == GestureKind.continuous)
    let fromRecognition = GestureKind.allCases.filter { RecognizerTable.recognizer(of: $0).measuresFromRecognition }
    #expect(stepping == continuous + fromRecognition)
  }
}
