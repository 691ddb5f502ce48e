# Issue 22: a live panel whose two halves are independent regions (a touch table). Two
# visitors pinch out at the same time, one pair of fingers on each half, played through
# uinput; then the right one taps while the left one drags a finger. The daemon runs both
# pinches' commands and the tap's, each with its own region; without `independent` the same
# touches are one four-finger sequence and fire nothing. The recording of what the panel
# sent, replayed with the same config, reports the same gestures, and with --continuous a
# pinch stream per half (began ... ended at the lift, region left and right); `gestured
# monitor --continuous`, beside the daemon, prints the same, live.
source "$VM_TESTS/lib.sh"

script="$VM_TESTS/scripts/daemon/two-halves.touch"
# tap-max-duration 1s: the 80 ms tap keeps its margin when a loaded host plays it late.
write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
thresholds: { tap-max-duration: 1s }
regions:
  - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }
  - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 }, independent: true }
bindings:
  - { gesture: pinch, direction: out, region: left, run: "@VM_TESTS@/record-firing @DIR@/actions.out" }
  - { gesture: pinch, direction: out, region: right, run: "@VM_TESTS@/record-firing @DIR@/actions.out" }
  - { gesture: tap, region: right, run: "@VM_TESTS@/record-firing @DIR@/actions.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"
# The same regions as one shared sequence, for the replay below.
sed 's/, independent: true//' "$SCENARIO_DIR/config.yaml" > "$SCENARIO_DIR/shared.yaml"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
monitor_start "$SCENARIO_DIR/config.yaml" --continuous
wait_until 30 "the monitor to start" grep -qs 'started: 0 touchscreens' "$SCENARIO_DIR/monitor.log"
# The panel stays after the last lift so that the daemon reads every event before it goes.
plug_panel table "$script" --hold-open 2000
player=$TOUCH_PID node=$TOUCH_DEVNODE
wait_until 30 "the monitor to take $node" grep -qs "\"event\":\"added\",.*\"devnode\":\"$node\"" "$SCENARIO_DIR/monitor.jsonl"
record_start "$node" "$SCENARIO_DIR/table.evemu"
recorder=$RECORD_PID
kill -USR1 "$player"
touch_wait table "$player"
wait_until 30 "three actions (two pinches and a tap)" lines_at_least "$SCENARIO_DIR/actions.out" 3
recorded() { ! kill -0 "$recorder" 2>/dev/null; }
wait_until 20 "evemu-record to end with the device" recorded
wait "$recorder" 2>/dev/null || true
# An action that should not have run would come within this.
sleep 1
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"
stop_process "$MONITOR_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the monitor exited with status $STOP_STATUS"

# The two pinches fire in one frame and their commands run side by side: compared sorted.
expected="binding=pinch@left gesture=pinch fingers=2 direction=out region=left profile=default
binding=pinch@right gesture=pinch fingers=2 direction=out region=right profile=default
binding=tap@right gesture=tap fingers=1 taps=1 region=right profile=default"
sort "$SCENARIO_DIR/actions.out" > "$SCENARIO_DIR/actions.sorted"
expect_lines "$SCENARIO_DIR/actions.sorted" "$expected" "the actions the daemon ran"

grep -q '^E: ' "$SCENARIO_DIR/table.evemu" || fail "evemu-record recorded no event: $(cat "$SCENARIO_DIR/table.evemu.log")"
"$GESTURED" replay --config "$SCENARIO_DIR/config.yaml" "$SCENARIO_DIR/table.evemu" \
  > "$SCENARIO_DIR/replay.jsonl" 2> "$SCENARIO_DIR/replay.log" \
  || fail "gestured replay of the recording exited with status $?: $(cat "$SCENARIO_DIR/replay.log")"
gestures "$SCENARIO_DIR/replay.jsonl" | sort > "$SCENARIO_DIR/replay.sorted"
expect_lines "$SCENARIO_DIR/replay.sorted" "pinch fingers=2 direction=out binding=pinch@left region=left
pinch fingers=2 direction=out binding=pinch@right region=right
tap fingers=1 taps=1 binding=tap@right region=right" "replay of the recording with independent halves"

"$GESTURED" replay --config "$SCENARIO_DIR/shared.yaml" "$SCENARIO_DIR/table.evemu" \
  > "$SCENARIO_DIR/shared.jsonl" 2> "$SCENARIO_DIR/shared.log" \
  || fail "gestured replay with the shared config exited with status $?: $(cat "$SCENARIO_DIR/shared.log")"
expect_lines "$SCENARIO_DIR/shared.jsonl" "" "replay of the same touches as one shared sequence (four fingers: no pinch)"

# The stream: each half's pinch begins once and ends at the lift; firing lines unchanged.
"$GESTURED" replay --continuous --config "$SCENARIO_DIR/config.yaml" "$SCENARIO_DIR/table.evemu" \
  > "$SCENARIO_DIR/continuous.jsonl" 2> "$SCENARIO_DIR/continuous.log" \
  || fail "gestured replay --continuous exited with status $?: $(cat "$SCENARIO_DIR/continuous.log")"
grep -v '"phase":' "$SCENARIO_DIR/continuous.jsonl" > "$SCENARIO_DIR/continuous.firings" || true
cmp -s "$SCENARIO_DIR/continuous.firings" "$SCENARIO_DIR/replay.jsonl" \
  || fail "replay --continuous changed the firing lines: $(diff "$SCENARIO_DIR/replay.jsonl" "$SCENARIO_DIR/continuous.firings")"
jq -r 'select(.phase) | select(.phase != "changed") | "\(.gesture) \(.phase) \(.region)"' \
  "$SCENARIO_DIR/continuous.jsonl" | sort > "$SCENARIO_DIR/stream.sorted"
expect_lines "$SCENARIO_DIR/stream.sorted" "pinch began left
pinch began right
pinch ended left
pinch ended right" "the pinch streams' began and ended lines"

# Per half: the stream begins in the frame the pinch fires, its line first, and ends at the
# lift. The same live, from the monitor.
order() {
  jq -r --arg region "$2" 'select(.region == $region) | select(.phase != "changed")
    | if .phase then "stream \(.phase)" else "fired \(.binding)" end' "$1" | paste -sd ' '
}
for output in continuous monitor; do
  [ "$(order "$SCENARIO_DIR/$output.jsonl" left)" = "stream began fired pinch@left stream ended" ] \
    || fail "$output.jsonl, the left half: $(order "$SCENARIO_DIR/$output.jsonl" left)"
  [ "$(order "$SCENARIO_DIR/$output.jsonl" right)" = "stream began fired pinch@right stream ended fired tap@right" ] \
    || fail "$output.jsonl, the right half: $(order "$SCENARIO_DIR/$output.jsonl" right)"
done
