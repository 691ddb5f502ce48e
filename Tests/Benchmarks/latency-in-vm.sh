#!/usr/bin/env bash
# Inside the VM: bench-vm's latency step (live-in-vm.sh) for several gestured binaries in
# turn, to compare builds in one boot: two panels, the taps config, gestured --verbose, 200
# taps on one panel; per binary and round the distribution of "pid N spawned L µs after its
# firing's event" (latency-pairs.txt).
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=... \
#     Tests/Benchmarks/latency-in-vm.sh DIR ROUNDS BINARY...
set -euo pipefail
results="$1"; rounds="$2"; shift 2
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/lat-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"
taps="$SCENARIO_DIR/taps.touch"
taps_touch "$taps" 200 200 400
"$GESTURED_TOUCH" record "$taps" -o "$SCENARIO_DIR/taps.evemu"
taps_config "$SCENARIO_DIR/taps.yaml"
touch_start first create "$taps"
first=$TOUCH_DEVNODE
touch_start second create "$taps"
for round in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
    GESTURED="$bin" daemon_start "$SCENARIO_DIR/taps.yaml" --verbose
    wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
    sleep 1
    inject "$first" "$SCENARIO_DIR/taps.evemu"
    sleep 2
    stop_process "$DAEMON_PID" 10
    kill "$NOTIFY_PID" 2>/dev/null || true; wait "$NOTIFY_PID" 2>/dev/null || true
    awk '/ spawned [0-9-]+ µs/ { for (i = 1; i <= NF; i++) if ($i == "spawned") print $(i + 1) }' "$SCENARIO_DIR/daemon.log" \
      | sort -n | awk -v b="$(basename "$bin")" -v r="$round" '{ v[++n] = $1 } END { printf "%s round %d: %d spawned, median %d, p90 %d, worst %d, best %d us\n", b, r, n, v[int((n+1)/2)], v[int(n*0.9+0.5)], v[n], v[1] }' \
      | tee -a "$results/latency-pairs.txt"
  done
done
