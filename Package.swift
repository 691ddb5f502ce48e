// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "gestured",
  products: [
    .executable(name: "gestured", targets: ["gestured"]),
    .executable(name: "gestured-touch", targets: ["gestured-touch"]),
    // Gestures as closures in a kiosk app (docs/library.md).
    .library(name: "TouchGestures", targets: ["TouchGestures"]),
  ],
  targets: [
    // System libraries from Debian (pkg-config names, apt providers).
    .systemLibrary(
      name: "CEvdev", pkgConfig: "libevdev", providers: [.apt(["libevdev-dev"])]),
    .systemLibrary(
      name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
    .systemLibrary(
      name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
    // The recognizer's system-call filter (the daemon only; the library does not link it).
    .systemLibrary(
      name: "CSeccomp", pkgConfig: "libseccomp", providers: [.apt(["libseccomp-dev"])]),
    // The only C of our own: what Swift cannot call (macros, variadics).
    .target(name: "CGesturedShim", dependencies: ["CEvdev"]),

    // Pure Swift: raw events in, gesture events out. No I/O, no clock, no Dispatch.
    .target(name: "GestureCore", linkerSettings: [.linkedLibrary("m")]),
    // YAML → validated Config, diagnostics with file:line:column; key names through libevdev.
    .target(name: "GesturedConfig", dependencies: ["GestureCore", "CYAML", "CEvdev"]),
    // The one syscall layer: file descriptors, epoll, timers, signals, libevdev, udev, logging.
    .target(name: "GesturedSystem", dependencies: ["GestureCore", "CEvdev", "CUdev", "CGesturedShim"]),
    // The library: a touchscreen's gestures as closures, over the same recognizers.
    .target(name: "TouchGestures", dependencies: ["GestureCore", "GesturedConfig", "GesturedSystem"]),
    // The daemon and the commands: processes, actions, output.
    .target(
      name: "GesturedRuntime",
      dependencies: [
        "GestureCore", "GesturedConfig", "GesturedSystem", "TouchGestures", "CEvdev", "CGesturedShim", "CSeccomp",
      ]),
    .executableTarget(
      name: "gestured", dependencies: ["GestureCore", "GesturedConfig", "GesturedSystem", "GesturedRuntime"]),
    // Scripted touches → raw events / evemu recordings, for tests and the VM harness.
    .target(name: "TouchScript", dependencies: ["GestureCore"]),
    .executableTarget(name: "gestured-touch", dependencies: ["TouchScript", "GestureCore", "CEvdev"]),
    // `make bench`: the in-process figures of BENCHMARKS.md over a generated stream.
    .executableTarget(name: "gestured-bench", dependencies: ["GestureCore", "GesturedConfig", "TouchScript"]),
    .executableTarget(name: "touchgestures-bench", dependencies: ["TouchGestures", "TouchScript"]),

    .testTarget(name: "GestureCoreTests", dependencies: ["GestureCore"]),
    .testTarget(name: "GesturedConfigTests", dependencies: ["GesturedConfig", "GestureCore"]),
    .testTarget(
      name: "GesturedRuntimeTests",
      dependencies: ["GesturedRuntime", "GesturedSystem", "GestureCore", "GesturedConfig"],
      // The bad-input matrix, read through #filePath at test time.
      exclude: ["BadInputs"]),
    .testTarget(name: "TouchScriptTests", dependencies: ["TouchScript", "GestureCore"]),
    .testTarget(name: "TouchGesturesTests", dependencies: ["TouchGestures", "TouchScript", "GesturedConfig"]),
    .testTarget(
      name: "ReplayTests",
      dependencies: ["TouchScript", "GestureCore", "GesturedConfig", "GesturedSystem", "GesturedRuntime"],
      // Read through #filePath at test time, not bundled.
      exclude: ["Scenarios"]),
  ]
)
