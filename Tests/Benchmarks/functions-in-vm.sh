#!/usr/bin/env bash
# How much of gestured's own code one swipe runs, inside the VM, one boot: with the build
# `make link-order` makes (each Swift function of the project reports its first call in a
# phase: link-order-coverage.c), the daemon as root, its two processes, plays bench-vm's
# stream to warm up, then 4 single swipes, SIGUSR2 to both processes before each (a new
# phase). The count of functions each process reported in each swipe's phase is what the
# swipe ran of the project's code (functions the compiler inlined are not counted apart;
# the standard library's own code, libc's and the kernel's are not counted), for a swipe
# bound to `key: alt+left` and to bench-vm's command (BENCHMARKS.md, row "wake-ups").
#
#   make link-order   # builds $(SCRATCH)-link-order/release/gestured, and its nm listing
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED=$PWD/.build-link-order/release/gestured \
#     GESTURED_TOUCH=… Tests/Benchmarks/functions-in-vm.sh DIR
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/functions-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
one_swipe
swipe_command_config "$SCENARIO_DIR/command.yaml"
swipe_key_config "$SCENARIO_DIR/keys.yaml"
touch_start panel create "$SCENARIO_DIR/swipes.touch"
panel=$TOUCH_DEVNODE

: > "$results/functions.txt"
for kind in keys command; do
  daemon_ready "$SCENARIO_DIR/$kind.yaml" "$panel"
  reader=$(reader_of "$DAEMON_PID")
  [ "$reader" != "$DAEMON_PID" ] || fail "gestured runs as one process: this needs both"
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 1
  for phase in 1 2 3 4; do
    kill -USR2 "$DAEMON_PID" "$reader"
    sleep 0.3
    inject "$panel" "$SCENARIO_DIR/one.evemu"
    sleep 0.7
  done
  cp "$SCENARIO_DIR/daemon.log" "$results/$kind.log"
  daemon_stop
  for phase in 1 2 3 4; do
    echo "$kind swipe $phase: the launcher ran $(grep -c "^link-order $DAEMON_PID $phase " "$results/$kind.log")" \
      "functions, the recognizer $(grep -c "^link-order $reader $phase " "$results/$kind.log")"
  done | tee -a "$results/functions.txt"
done
