// swift-tools-version:6.0
// An app using TouchGestures, built against the library in this checkout (docs/library.md).
import PackageDescription

let package = Package(
  name: "kiosk-gestures",
  dependencies: [.package(name: "gestured", path: "../..")],
  targets: [
    .executableTarget(
      name: "KioskGestures", dependencies: [.product(name: "TouchGestures", package: "gestured")])
  ]
)
