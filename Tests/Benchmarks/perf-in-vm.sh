#!/usr/bin/env bash
# make bench-vm-perf, inside the VM: where gestured's CPU goes over the stream of make
# bench-vm (40 one-finger swipes), for a swipe bound to `key: alt+left` and to a command.
# For each, the daemon plays the stream once to warm up, then three times under `perf
# record` (every CPU, 4000 samples a second, call chains); each process's CPU time over
# those three streams from /proc/PID/schedstat (nanoseconds, not ticks); and, per process,
# its samples by user-space function with the kernel time beneath each (perf-report.py).
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED=… GESTURED_TOUCH=… \
#     Tests/Benchmarks/perf-in-vm.sh DIR
# GESTURED should keep its symbols (the Makefile's target links one so).
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/perf-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
swipe_command_config "$SCENARIO_DIR/command.yaml"
swipe_key_config "$SCENARIO_DIR/keys.yaml"
touch_start panel create "$SCENARIO_DIR/swipes.touch"
panel=$TOUCH_DEVNODE
exec {held}<"$GESTURED"

: > "$results/perf-summary.txt"
for kind in keys command; do
  daemon_ready "$SCENARIO_DIR/$kind.yaml" "$panel"
  launcher=$DAEMON_PID
  recognizer=$(reader_of "$DAEMON_PID")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  l0=$(cpu_ns "$launcher")
  r0=$(cpu_ns "$recognizer")
  perf record -a -g -F 4000 -e cpu-clock -o "$results/perf-$kind.data" -- \
    sh -c "for i in 1 2 3; do evemu-play '$panel' < '$SCENARIO_DIR/swipes.evemu'; sleep 0.5; done" \
    2> "$results/perf-record-$kind.log"
  echo "$kind: three streams, CPU time from schedstat: launcher $(( ($(cpu_ns "$launcher") - l0) / 1000000 )) ms," \
    "recognizer $(( ($(cpu_ns "$recognizer") - r0) / 1000000 )) ms" | tee -a "$results/perf-summary.txt"
  "$(dirname "$0")/perf-report.py" "$results/perf-$kind.data" "$launcher" "$kind, launcher" > "$results/perf-$kind-launcher.txt"
  "$(dirname "$0")/perf-report.py" "$results/perf-$kind.data" "$recognizer" "$kind, recognizer" > "$results/perf-$kind-recognizer.txt"
  head -q -n 1 "$results/perf-$kind-launcher.txt" "$results/perf-$kind-recognizer.txt" | tee -a "$results/perf-summary.txt"
  daemon_stop
done
chmod -R a+rX "$results"
