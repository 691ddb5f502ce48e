// swift-tools-version:6.0
// Apps using TouchGestures, built against the library in this checkout (docs/library.md):
// KioskGestures (closures on named areas), PhotoTable (three views transformed at once),
// RowList (a scrolling list of rows with single and double taps).
import PackageDescription

let package = Package(
  name: "kiosk-gestures",
  dependencies: [.package(name: "gestured", path: "../..")],
  targets: [
    .executableTarget(
      name: "KioskGestures", dependencies: [.product(name: "TouchGestures", package: "gestured")]),
    .executableTarget(
      name: "PhotoTable", dependencies: [.product(name: "TouchGestures", package: "gestured")]),
    .executableTarget(
      name: "RowList", dependencies: [.product(name: "TouchGestures", package: "gestured")]),
  ]
)
