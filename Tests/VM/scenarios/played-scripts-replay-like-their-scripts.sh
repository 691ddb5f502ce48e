# Each VM script played in real time through uinput (protocol B with and without
# resolution, protocol A, single-touch, BTN_LEFT) and recorded from the kernel's node gives
# `gestured replay` the same gestures as the script's own ideal recording: the kernel path
# (uinput, evdev, its duplicate filtering and timestamps) changes nothing gestured sees.
source "$VM_TESTS/lib.sh"
config="$VM_TESTS/configs/gestures.yaml"

for script in "$VM_TESTS"/scripts/*.touch; do
  name="$(basename "$script" .touch)"
  "$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/$name.script.evemu" \
    || fail "gestured-touch record $name failed"
  "$GESTURED" replay --config "$config" "$SCENARIO_DIR/$name.script.evemu" \
    > "$SCENARIO_DIR/$name.script.jsonl" || fail "gestured replay of $name's script failed"
  expected="$(gestures "$SCENARIO_DIR/$name.script.jsonl")"
  [ -n "$expected" ] || fail "$name: its script fires nothing; the scenario would prove nothing"

  touch_start "$name" play "$script" --wait-for-signal --hold-open 200
  player=$TOUCH_PID
  wait_until 20 "udev to process $TOUCH_DEVNODE ($name)" udev_ready "$TOUCH_DEVNODE"
  record_start "$TOUCH_DEVNODE" "$SCENARIO_DIR/$name.played.evemu"
  kill -USR1 "$player"
  touch_wait "$name" "$player"
  wait_until 20 "evemu-record to end after $name's device was destroyed" \
    bash -c "! kill -0 $RECORD_PID 2>/dev/null"

  "$GESTURED" replay --config "$config" "$SCENARIO_DIR/$name.played.evemu" \
    > "$SCENARIO_DIR/$name.played.jsonl" 2> "$SCENARIO_DIR/$name.replay.log" \
    || fail "gestured replay of $name's recording exited with status $?"
  expect_gestures "$SCENARIO_DIR/$name.played.jsonl" "$expected"
  note "$name: $(echo "$expected" | tr '\n' ';')"
done
