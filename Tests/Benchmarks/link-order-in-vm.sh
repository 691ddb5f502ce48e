#!/usr/bin/env bash
# make link-order, inside the VM: which functions gestured runs, for the link's symbol
# ordering file (Tests/Benchmarks/link-order.txt, made from this by link-order.py). The
# same two panels and config as bench-vm's RSS step; gestured (unstripped, the release
# link's flags) runs under callgrind, which records every function executed. Two dumps:
# start-up (to READY=1 plus 2 s), then the activity (40 swipes on one panel, 20 taps on
# the other, each running its action); the shutdown that follows is left out.
#
#   link-order-in-vm.sh RESULTS
# Needs GESTURED (unstripped) and GESTURED_TOUCH.
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/link-order-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

# Slower than bench-vm's streams: the program, slowed by valgrind, keeps up.
swipes="$SCENARIO_DIR/swipes.touch"
swipes_touch "$swipes" 40 500 1000
taps="$SCENARIO_DIR/taps.touch"
taps_touch "$taps" 20 500 1000
"$GESTURED_TOUCH" record "$swipes" -o "$SCENARIO_DIR/swipes.evemu" || fail "gestured-touch record failed"
"$GESTURED_TOUCH" record "$taps" -o "$SCENARIO_DIR/taps.evemu" || fail "gestured-touch record failed"
taps_config "$SCENARIO_DIR/gestured.yaml"
touch_start first create "$taps"
first=$TOUCH_DEVNODE
first_pid=$TOUCH_PID
touch_start second create "$swipes"
second=$TOUCH_DEVNODE
second_pid=$TOUCH_PID

notify_listen
# --demangle=no: the ordering file needs the symbols' own (mangled) names.
NOTIFY_SOCKET="$NOTIFY_SOCKET" valgrind --tool=callgrind --demangle=no --compress-strings=no \
  --callgrind-out-file="$results/callgrind.out" "$GESTURED" --config "$SCENARIO_DIR/gestured.yaml" \
  > /dev/null 2> "$results/gestured.log" &
pid=$!
wait_until 300 "READY=1 under valgrind" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
sleep 2
callgrind_control -d startup "$pid" > /dev/null
inject "$second" "$SCENARIO_DIR/swipes.evemu" &
swipes_pid=$!
inject "$first" "$SCENARIO_DIR/taps.evemu"
wait "$swipes_pid"
sleep 10
callgrind_control -d activity "$pid" > /dev/null
stop_process "$pid" 60
kill "$first_pid" "$second_pid" 2>/dev/null || true
wait "$first_pid" "$second_pid" 2>/dev/null || true
runs=$(grep -c 'started pid' "$results/gestured.log" || true)
echo "link-order: dumps $(ls "$results" | grep -c '^callgrind.out\.') ($runs actions started)" \
  | tee "$results/summary.txt"
