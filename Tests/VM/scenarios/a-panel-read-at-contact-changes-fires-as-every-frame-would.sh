# Reading at contact changes (docs/devices.md): a panel whose bindings fire only at
# landings, lifts and deadlines is woken for by a second open masked to keys and tracking
# ids, and its moves are read in batches. On a 200 Hz panel (scripts/daemon/batched.touch:
# a swipe, a double tap, a tap whose next touch slides away within the gap, a long press,
# a hold that moves), every action must run as `gestured replay` of a recording of the same
# frames says (the firings of reading every frame), the daemon must say it reads the panel
# at contact changes, and it must wake up (context switches, all threads, actions' spawning
# included) fewer than half as often as the panel sent frames (a reader of every frame
# wakes once a frame, 771 times here; a debug build switched 208 times, 2026-12-01). Then a
# second panel gets frames with no contact down (ABS_MT_POSITION_X alone on a slot with no
# tracking id, written at once: more than the kernel's buffer for the daemon holds, and
# nothing rings the doorbell; not ABS_X, which the kernel keeps back from the daemon since
# recognition does not read it on a protocol B panel), then taps: the overflow came with no batch due, so the daemon must say it
# reads that panel at every frame from then on, and the taps must still run their action.
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
bindings:
  - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
  - { gesture: tap, taps: 2, name: double-tap, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
  - { gesture: long-press, name: long-press, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
  - { gesture: swipe, direction: right, name: swipe-right, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
  - { gesture: swipe, direction: down, name: swipe-down, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
plug_panel batched "$VM_TESTS/scripts/daemon/batched.touch"
player=$TOUCH_PID node=$TOUCH_DEVNODE
grep -q "^$node '.*': profile 'default'.*, read at contact changes$" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon does not say it reads $node at contact changes: $(grep "^$node" "$SCENARIO_DIR/daemon.log")"
record_start "$node" "$SCENARIO_DIR/witness.evemu"
witness=$RECORD_PID
sleep 0.5

switches_before="$(context_switches "$DAEMON_PID")"
kill -USR1 "$player"
touch_wait batched "$player"
wait_until 20 "evemu-record to end after the panel was destroyed" bash -c "! kill -0 $witness 2>/dev/null"
wait_until 20 "the four actions to run" lines_at_least "$SCENARIO_DIR/fired.out" 4
sleep 1
switches_after="$(context_switches "$DAEMON_PID")"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"

"$GESTURED" replay --config "$SCENARIO_DIR/config.yaml" "$SCENARIO_DIR/witness.evemu" \
  > "$SCENARIO_DIR/replay.jsonl" 2> "$SCENARIO_DIR/replay.log" || fail "gestured replay exited with status $?"
jq -r '"binding=\(.binding) gesture=\(.gesture) fingers=\(.fingers)"
  + (if .taps then " taps=\(.taps)" else "" end) + (if .direction then " direction=\(.direction)" else "" end)
  + " region=none profile=default"' "$SCENARIO_DIR/replay.jsonl" > "$SCENARIO_DIR/replayed.out"
expected="binding=swipe-right gesture=swipe fingers=1 direction=right region=none profile=default
binding=double-tap gesture=tap fingers=1 taps=2 region=none profile=default
binding=tap gesture=tap fingers=1 taps=1 region=none profile=default
binding=long-press gesture=long-press fingers=1 region=none profile=default"
expect_lines "$SCENARIO_DIR/replayed.out" "$expected" "gestured replay of the frames the panel sent"
expect_lines "$SCENARIO_DIR/fired.out" "$expected" "the actions the daemon ran"

frames="$(grep -c '^E: [0-9.]* 0000 0000 0000' "$SCENARIO_DIR/witness.evemu")"
switches=$((switches_after - switches_before))
note "$frames frames; the daemon switched context $switches times meanwhile"
[ "$frames" -ge 600 ] || fail "the panel sent $frames frames, not the script's 771: the witness missed some"
[ "$((switches * 2))" -lt "$frames" ] \
  || fail "the daemon switched context $switches times over $frames frames: it does not read the panel in batches"
! grep -q "^$node: reading every frame from now on" "$SCENARIO_DIR/daemon.log" \
  || fail "the kernel dropped events between two batches: $(grep "^$node" "$SCENARIO_DIR/daemon.log")"

create_panel hover "$VM_TESTS/scripts/daemon/tap.touch"
hover_pid=$TOUCH_PID hover_node=$TOUCH_DEVNODE
grep -q "^$hover_node '.*, read at contact changes$" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon does not say it reads $hover_node at contact changes"
"$GESTURED_TOUCH" record "$VM_TESTS/scripts/daemon/tap.touch" -o "$SCENARIO_DIR/tap.evemu" \
  || fail "gestured-touch record tap failed"
# Every frame changes ABS_MT_POSITION_X (the kernel drops a value that did not change).
awk 'BEGIN { for (i = 0; i < 1500; i++) printf "E: 0.000000 0003 0035 %04d\nE: 0.000000 0000 0000 0000\n", 100 + i % 2 }' \
  > "$SCENARIO_DIR/hover.evemu"
: > "$SCENARIO_DIR/fired.out"
inject "$hover_node" "$SCENARIO_DIR/hover.evemu"
sleep 0.5
inject "$hover_node" "$SCENARIO_DIR/tap.evemu"
wait_until 20 "the daemon to read $hover_node at every frame" \
  grep -q "^$hover_node: reading every frame from now on" "$SCENARIO_DIR/daemon.log"
sleep 0.5
inject "$hover_node" "$SCENARIO_DIR/tap.evemu"
wait_until 20 "the tap after the overflow to run its action" \
  grep -q "^binding=tap gesture=tap fingers=1 taps=1" "$SCENARIO_DIR/fired.out"
kill "$hover_pid"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
