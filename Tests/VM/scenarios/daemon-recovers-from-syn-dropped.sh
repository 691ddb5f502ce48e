# Issue 4, scenario 4: SYN_DROPPED. A finger lands and the daemon reads it; the daemon is
# stopped (SIGSTOP); the panel then sends more events than the kernel buffers for a reader
# (gestured-touch writes them with real timing, which overflows the buffer of a stopped
# reader as surely as --instant would, and lets the same panel carry the landing before and
# a tap after), ending with every finger lifted; SIGCONT. The daemon must resynchronize
# (libevdev's SYNC: contacts as the kernel has them, so none stays down) and the next tap on
# the same panel must run its action, alone. An evemu-record stopped alongside shows the
# kernel really dropped events, and the daemon's log says so once.
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
bindings:
  - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/tap.out" }
  # A finger left stuck down would turn the tap into a 2-finger touch (or spoil it).
  - { gesture: tap, fingers: 2, name: tap-2, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: tap, fingers: 3, name: tap-3, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: tap, fingers: 4, name: tap-4, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: swipe, direction: down, fingers: 3, name: swipe-down-3, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: swipe, direction: right, fingers: 3, name: swipe-right-3, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
YAML

# --verbose: the recognizer's transitions show when the daemon has read the landing.
daemon_start "$SCENARIO_DIR/config.yaml" --verbose
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
plug_panel flooded "$VM_TESTS/scripts/daemon/flood-after-landing.touch"
player=$TOUCH_PID node=$TOUCH_DEVNODE
record_start "$node" "$SCENARIO_DIR/witness.evemu"
witness=$RECORD_PID

mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
start=${EPOCHREALTIME/./}
kill -USR1 "$player"
sleep_until "$start" 1000
reader="$(reader_of "$DAEMON_PID")"
kill -STOP "$reader" "$witness"
stopped_ms=$(ms_since "$start")
sleep_until "$start" 4600
kill -CONT "$reader" "$witness"
resumed_ms=$(ms_since "$start")
note "daemon stopped at $stopped_ms ms, resumed at $resumed_ms ms (landing at 100 ms, flood 2000-3600 ms, tap at 6500 ms)"
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$node: .*sequence began" \
  || fail "the daemon had not read the landing (at 100 ms) when it was stopped at $stopped_ms ms; the scenario needs it read first"
[ "$stopped_ms" -lt 1900 ] && [ "$resumed_ms" -gt 3700 ] && [ "$resumed_ms" -lt 6400 ] \
  || fail "the stop ($stopped_ms ms) and resume ($resumed_ms ms) missed their windows (before 1900 ms; 3700-6400 ms): the VM is too slow"

touch_wait flooded "$player"
wait_until 20 "evemu-record to end after the panel was destroyed" bash -c "! kill -0 $witness 2>/dev/null"
grep -Eq '^E: [0-9.]+ 0000 0003 ' "$SCENARIO_DIR/witness.evemu" \
  || fail "no SYN_DROPPED reached the stopped evemu-record: the kernel's buffer did not overflow, the scenario proves nothing"

wait_until 15 "the tap after the overflow to run its action" test -s "$SCENARIO_DIR/tap.out"
# Said once for the burst (further drops within 10 s are counted into a later line).
drops=$(grep -c "^$node: the kernel dropped input events" "$SCENARIO_DIR/daemon.log" || true)
[ "$drops" -eq 1 ] || fail "the overflow was logged $drops times, not once: $(grep 'dropped input' "$SCENARIO_DIR/daemon.log")"
# The panel is read at contact changes (docs/devices.md): an overflow while the daemon was
# stopped, after its next batch was due, is the daemon's lateness, not the batches'.
! grep -q "^$node: reading every frame from now on" "$SCENARIO_DIR/daemon.log" \
  || fail "an overflow while the daemon was stopped made it read $node at every frame"
sleep 1
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died after the overflow"
expect_lines "$SCENARIO_DIR/tap.out" "binding=tap gesture=tap fingers=1 taps=1 region=none profile=default" \
  "the tap after the overflow"
expect_lines "$SCENARIO_DIR/decoy.out" "" "gestures with fingers left down by the overflow"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
