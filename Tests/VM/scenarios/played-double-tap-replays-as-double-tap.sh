# The whole input stack without the daemon: gestured-touch plays a double tap through
# uinput, the kernel's evdev node delivers it to evemu-record, and gestured replay of that
# recording reports exactly the double tap.
source "$VM_TESTS/lib.sh"
config="$VM_TESTS/configs/gestures.yaml"

touch_start panel play "$VM_TESTS/scripts/double-tap.touch" --wait-for-signal --hold-open 300
player=$TOUCH_PID
wait_until 20 "udev to process $TOUCH_DEVNODE" udev_ready "$TOUCH_DEVNODE"
[ "$(udev_property "$TOUCH_DEVNODE" ID_INPUT_TOUCHSCREEN)" = 1 ] \
  || fail "udev does not call $TOUCH_DEVNODE a touchscreen: $(udevadm info "$TOUCH_DEVNODE")"

record_start "$TOUCH_DEVNODE" "$SCENARIO_DIR/played.evemu"
kill -USR1 "$player"
touch_wait panel "$player"
# evemu-record ends by itself when the device is destroyed.
wait_until 20 "evemu-record to end after the device was destroyed" \
  bash -c "! kill -0 $RECORD_PID 2>/dev/null"

grep -q '^E: ' "$SCENARIO_DIR/played.evemu" || fail "evemu-record recorded no event"
"$GESTURED" replay --config "$config" "$SCENARIO_DIR/played.evemu" \
  > "$SCENARIO_DIR/replay.jsonl" 2> "$SCENARIO_DIR/replay.log" \
  || fail "gestured replay exited with status $?"
expect_gestures "$SCENARIO_DIR/replay.jsonl" "tap fingers=1 taps=2 binding=double-tap region=none"
