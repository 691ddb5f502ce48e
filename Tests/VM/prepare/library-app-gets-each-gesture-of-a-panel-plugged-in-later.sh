# Host side of the library scenario: `make test-example` (the example app on TouchGestures,
# built and checked against its recording), then the app's binary into PREPARED_DIR.
set -euo pipefail
scratch="${SCRATCH:-.build}"
make --no-print-directory test-example SCRATCH="$scratch" SWIFT="${SWIFT:-swift}" SWIFT_FLAGS="${SWIFT_FLAGS:-}"
cp "$scratch/example/debug/KioskGestures" "$SCENARIO_DIR/KioskGestures"
