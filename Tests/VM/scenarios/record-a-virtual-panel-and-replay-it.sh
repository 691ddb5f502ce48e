# Issue 11: `gestured record` on a live panel. Its description is evemu-describe's, line for
# line; recording a double tap played through uinput ends by itself when the panel goes
# away, starts at 0.000000, and replays as the double tap; a second recording of a panel
# that stays, stopped with SIGINT, is complete (exit 0, ends with a SYN_REPORT) and replays
# the same.
source "$VM_TESTS/lib.sh"
config="$VM_TESTS/configs/gestures.yaml"
double_tap="tap fingers=1 taps=2 binding=double-tap region=none"

# A recording the way an operator makes one: gestured record DEVICE > FILE.
record_to() {
  "$GESTURED" record "$1" > "$SCENARIO_DIR/$2.evemu" 2> "$SCENARIO_DIR/$2.record.log" &
  RECORDER_PID=$!
  # The device is open before the description is written: nothing played after this is lost.
  wait_until 20 "gestured record to describe $1" grep -qs '^A: ' "$SCENARIO_DIR/$2.evemu"
}

# 1. A panel that plays a double tap and is destroyed 300 ms after it.
touch_start panel play "$VM_TESTS/scripts/double-tap.touch" --wait-for-signal --hold-open 300
player=$TOUCH_PID
wait_until 20 "udev to process $TOUCH_DEVNODE" udev_ready "$TOUCH_DEVNODE"
record_to "$TOUCH_DEVNODE" played
evemu-describe "$TOUCH_DEVNODE" > "$SCENARIO_DIR/described.evemu" 2>/dev/null \
  || fail "evemu-describe $TOUCH_DEVNODE exited with status $?"
description() { grep -E '^[NIPBA]: ' "$1"; }
[ "$(description "$SCENARIO_DIR/played.evemu")" = "$(description "$SCENARIO_DIR/described.evemu")" ] \
  || fail "$(printf 'the description differs from evemu-describe'"'"'s\n%s' \
    "$(diff <(description "$SCENARIO_DIR/described.evemu") <(description "$SCENARIO_DIR/played.evemu"))")"

kill -USR1 "$player"
touch_wait panel "$player"
wait_until 20 "gestured record to end when the panel went away" \
  bash -c "! kill -0 $RECORDER_PID 2>/dev/null"
status=0
wait "$RECORDER_PID" || status=$?
[ "$status" -eq 0 ] || fail "gestured record exited with status $status when the device went away"
grep -qE '^gestured: record: the device went away; [0-9]+ events written$' \
  "$SCENARIO_DIR/played.record.log" || fail "record's last words: $(cat "$SCENARIO_DIR/played.record.log")"
[ "$(grep -m1 '^E: ' "$SCENARIO_DIR/played.evemu" | cut -d' ' -f2)" = 0.000000 ] \
  || fail "the first event is not at 0.000000: $(grep -m1 '^E: ' "$SCENARIO_DIR/played.evemu")"
note "$(grep -c '^E: ' "$SCENARIO_DIR/played.evemu") events recorded"
"$GESTURED" replay --config "$config" "$SCENARIO_DIR/played.evemu" \
  > "$SCENARIO_DIR/played.jsonl" 2> "$SCENARIO_DIR/replay.log" || fail "gestured replay exited with status $?"
expect_gestures "$SCENARIO_DIR/played.jsonl" "$double_tap"

# 2. A panel that stays; the first recording played into it; Ctrl-C's SIGINT ends record.
touch_start still create "$VM_TESTS/scripts/double-tap.touch"
wait_until 20 "udev to process $TOUCH_DEVNODE" udev_ready "$TOUCH_DEVNODE"
record_to "$TOUCH_DEVNODE" interrupted
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/played.evemu"
# Let the last frame reach the recorder before the signal.
sleep 0.5
kill -INT "$RECORDER_PID"
status=0
wait "$RECORDER_PID" || status=$?
[ "$status" -eq 0 ] || fail "gestured record exited with status $status on SIGINT, not 0"
grep -qE '^gestured: record: stopped by signal 2; [0-9]+ events written$' \
  "$SCENARIO_DIR/interrupted.record.log" || fail "record's last words: $(cat "$SCENARIO_DIR/interrupted.record.log")"
last="$(grep '^E: ' "$SCENARIO_DIR/interrupted.evemu" | tail -n 1)"
[[ "$last" == *" 0000 0000 0000"*"SYN_REPORT"* ]] || fail "the recording does not end with a whole frame: $last"
# (The kernel drops injected values that did not change, so the counts may differ.)
note "$(grep -c '^E: ' "$SCENARIO_DIR/interrupted.evemu") events recorded before SIGINT"
"$GESTURED" replay --config "$config" "$SCENARIO_DIR/interrupted.evemu" \
  > "$SCENARIO_DIR/interrupted.jsonl" 2>> "$SCENARIO_DIR/replay.log" || fail "gestured replay exited with status $?"
expect_gestures "$SCENARIO_DIR/interrupted.jsonl" "$double_tap"
kill "$TOUCH_PID"
