# `gestured monitor` started with no touchscreen sees one plugged in later (a uinput panel
# created by gestured-touch), prints its double tap as replay would, and sees it go.
source "$VM_TESTS/lib.sh"

monitor_start "$VM_TESTS/configs/gestures.yaml"
# The monitor watches udev before it enumerates; give it time to start under TCG.
sleep 3
kill -0 "$MONITOR_PID" 2>/dev/null || fail "gestured monitor exited at start"

touch_start panel play "$VM_TESTS/scripts/double-tap.touch" --wait-for-signal --hold-open 500
player=$TOUCH_PID
added() { grep -qs '"event":"added"' "$SCENARIO_DIR/monitor.jsonl"; }
wait_until 30 "gestured monitor to report $TOUCH_DEVNODE added" added
kill -USR1 "$player"
touch_wait panel "$player"
removed() { grep -qs '"event":"removed"' "$SCENARIO_DIR/monitor.jsonl"; }
wait_until 30 "gestured monitor to report $TOUCH_DEVNODE removed" removed

grep -q "\"devnode\":\"$TOUCH_DEVNODE\"" "$SCENARIO_DIR/monitor.jsonl" \
  || fail "the added line does not name $TOUCH_DEVNODE: $(cat "$SCENARIO_DIR/monitor.jsonl")"
grep -v '"event"' "$SCENARIO_DIR/monitor.jsonl" > "$SCENARIO_DIR/gestures.jsonl" || true
expect_gestures "$SCENARIO_DIR/gestures.jsonl" "tap fingers=1 taps=2 binding=double-tap region=none"
stop_process "$MONITOR_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "gestured monitor exited with status $STOP_STATUS on SIGTERM"
