#!/usr/bin/env bash
# System calls of the daemon itself (strace -c, no -f: the actions' shells are not counted)
# over the bench stream of 40 swipes, per binary: once with a binding that fires (swipe
# right) and once with one that never does (swipe up): the second gives the calls per
# frame; the calls only an action makes (pipe2, clone3, pidfd_open, ...) over the actions
# fired give those per action. BENCHMARKS.md, row "system calls", has the figures.
#   Tests/VM/run-in-vm.sh --rwdir RESULTS -- Tests/Benchmarks/syscalls-in-vm.sh RESULTS BIN_DIR...
# Each BIN_DIR holds gestured and gestured-touch (the first one's gestured-touch plays);
# RESULTS gets one strace -c table per binary and config, and summary.txt (actions fired).
set -euo pipefail
results="$1"; shift
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/measure.XXXXXX)"
export VM_TESTS SCENARIO_DIR
GESTURED_TOUCH="$1/gestured-touch"
export GESTURED_TOUCH
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"
bench_stream
script="$SCENARIO_DIR/swipes.touch"
frames=$(grep -c 'SYN_REPORT' "$SCENARIO_DIR/swipes.evemu")
swipe_command_config "$SCENARIO_DIR/fires.yaml"
write_config "$SCENARIO_DIR/never.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: up, run: "echo U >> @DIR@/gestured.out" }
YAML
touch_start panel create "$script"
panel=$TOUCH_DEVNODE
echo "kernel $(uname -r), $(nproc) CPUs, $frames frames" | tee "$results/summary.txt"
for bin in "$@"; do
  GESTURED="$bin/gestured"; export GESTURED
  for config in never fires; do
    name="$(basename "$bin")-$config"
    : > "$SCENARIO_DIR/gestured.out"
    daemon_start "$SCENARIO_DIR/$config.yaml"
    wait_until 60 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
    wait_until 60 "the panel" grep -qs "^$panel '.*': profile" "$SCENARIO_DIR/daemon.log"
    sleep 1
    strace -c -o "$results/$name.txt" -p "$DAEMON_PID" &
    strace_pid=$!
    sleep 1
    inject "$panel" "$SCENARIO_DIR/swipes.evemu"
    sleep 1
    kill -INT "$strace_pid"; wait "$strace_pid" 2>/dev/null || true
    stop_process "$DAEMON_PID" 10
    kill "$NOTIFY_PID" 2>/dev/null || true; wait "$NOTIFY_PID" 2>/dev/null || true
    rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
    echo "$name: fired $(count_lines "$SCENARIO_DIR/gestured.out") actions" | tee -a "$results/summary.txt"
  done
done
