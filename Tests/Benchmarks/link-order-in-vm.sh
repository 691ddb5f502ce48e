#!/usr/bin/env bash
# make link-order, inside the VM: which functions gestured runs, for the link's symbol
# ordering file (Tests/Benchmarks/link-order.txt, made from this by link-order.py).
# gestured is the build whose every function reports its first call on stderr
# (link-order-coverage.c); it runs as root, so as its two processes, the launcher and the
# recognizer, whose lines go to the same log, each with its pid. Two panels: start-up to
# READY=1 plus 2 s is phase 0; SIGUSR2 to both processes starts phase 1, the activity (40
# swipes on one panel, each running a command, 20 taps on the other, each writing a key);
# SIGUSR2 again starts phase 2 before the shutdown, which is left out.
#
#   link-order-in-vm.sh RESULTS
# Needs GESTURED (the instrumented build) and GESTURED_TOUCH.
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/link-order-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

swipes="$SCENARIO_DIR/swipes.touch"
swipes_touch "$swipes" 40 500 500
taps="$SCENARIO_DIR/taps.touch"
taps_touch "$taps" 20 500 500
"$GESTURED_TOUCH" record "$swipes" -o "$SCENARIO_DIR/swipes.evemu" || fail "gestured-touch record failed"
"$GESTURED_TOUCH" record "$taps" -o "$SCENARIO_DIR/taps.evemu" || fail "gestured-touch record failed"
write_config "$SCENARIO_DIR/gestured.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "true" }
  - { gesture: tap, key: alt+left }
YAML
touch_start first create "$taps"
first=$TOUCH_DEVNODE
first_pid=$TOUCH_PID
touch_start second create "$swipes"
second=$TOUCH_DEVNODE
second_pid=$TOUCH_PID

daemon_ready "$SCENARIO_DIR/gestured.yaml" "$second"
wait_until 30 "gestured to take the other panel" grep -qs "^$first '.*': profile" "$SCENARIO_DIR/daemon.log"
sleep 2
recognizer=$(reader_of "$DAEMON_PID")
[ "$recognizer" != "$DAEMON_PID" ] || fail "gestured runs as one process: link-order needs both"
kill -USR2 "$DAEMON_PID" "$recognizer"
inject "$second" "$SCENARIO_DIR/swipes.evemu" &
swipes_pid=$!
inject "$first" "$SCENARIO_DIR/taps.evemu"
wait "$swipes_pid"
sleep 3
kill -USR2 "$DAEMON_PID" "$recognizer"
sleep 1
daemon_stop
kill "$first_pid" "$second_pid" 2>/dev/null || true
wait "$first_pid" "$second_pid" 2>/dev/null || true
cp "$SCENARIO_DIR/daemon.log" "$results/gestured.log"
commands=$(grep -c 'started pid' "$results/gestured.log" || true)
keys=$(grep -c '\] key alt+left' "$results/gestured.log" || true)
echo "link-order: $(grep -c '^link-order [0-9]* 0 ' "$results/gestured.log") first calls at start-up," \
  "$(grep -c '^link-order [0-9]* 1 ' "$results/gestured.log") in the activity, both processes" \
  "($commands commands, $keys keys)" | tee "$results/summary.txt"
