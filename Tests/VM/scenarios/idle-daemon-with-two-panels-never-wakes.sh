# Issue 4, scenario 8: idle means no wake-up. With two panels open, after a tap has run its
# action (so the deadline timer was armed and disarmed and a child was reaped), 10 s
# without a touch must not add a single context switch to any of the daemon's threads
# (/proc/PID/task/*/status, voluntary + involuntary), nor start a thread.
source "$VM_TESTS/lib.sh"
idle_seconds=10

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
bindings:
  - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/tap.out" }
  # A double tap is bound too, so a single tap waits for the multi-tap gap on a timer.
  - { gesture: tap, taps: 2, name: double-tap, run: "@VM_TESTS@/record-firing @DIR@/double-tap.out" }
YAML
"$GESTURED_TOUCH" record "$VM_TESTS/scripts/daemon/tap.touch" -o "$SCENARIO_DIR/tap.evemu" \
  || fail "gestured-touch record failed"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
create_panel first "$VM_TESTS/scripts/daemon/tap.touch"
first=$TOUCH_DEVNODE
create_panel second "$VM_TESTS/scripts/single-touch-swipe.touch"
inject "$first" "$SCENARIO_DIR/tap.evemu"
wait_until 10 "the tap's action" test -s "$SCENARIO_DIR/tap.out"
wait_until 10 "the tap's action to be reaped" grep -q '^\[default/tap\] pid [0-9]* exited' "$SCENARIO_DIR/daemon.log"
# Let what the tap set off settle (its output pipes closed, its deadlines passed). The daemon
# has one thread, asleep in epoll_wait; the 6 s also cover a libdispatch worker thread,
# which its pool ends 5 s after its last work item, should one ever run the daemon's work
# again: that one-off exit ends the tap's activity, it is not an idle wake-up.
sleep 6

thread_switches "$DAEMON_PID" > "$SCENARIO_DIR/switches-before.txt"
sleep "$idle_seconds"
thread_switches "$DAEMON_PID" > "$SCENARIO_DIR/switches-after.txt"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"
[ "$(grep -c "profile 'default'" "$SCENARIO_DIR/daemon.log")" -eq 2 ] \
  || fail "the daemon should have both panels open: $(cat "$SCENARIO_DIR/daemon.log")"

before="$(awk '{ sum += $3 } END { print sum }' "$SCENARIO_DIR/switches-before.txt")"
after="$(awk '{ sum += $3 } END { print sum }' "$SCENARIO_DIR/switches-after.txt")"
note "context switches over all threads: $before before, $after after $idle_seconds s idle"
note "per thread (tid name switches), before: $(tr '\n' ';' < "$SCENARIO_DIR/switches-before.txt") after: $(tr '\n' ';' < "$SCENARIO_DIR/switches-after.txt")"
# Per thread: a thread that woke up, started or ended (it had to wake to end) is a wake-up.
if ! diff "$SCENARIO_DIR/switches-before.txt" "$SCENARIO_DIR/switches-after.txt" > "$SCENARIO_DIR/switches.diff"; then
  fail "the idle daemon woke up in $idle_seconds s: context switches per thread (tid name count) changed:
$(cat "$SCENARIO_DIR/switches.diff")"
fi
