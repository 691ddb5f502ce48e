# Every VM script's panel, created by gestured-touch, is the device its script describes
# (evemu-describe of the live node gives the script's own N:, I:, P:, B: and A: lines: name,
# ids, properties, event bits, axis ranges and resolution), udev classifies it as gestured
# expects (a touchscreen; the Elo-style BTN_LEFT panel without INPUT_PROP_DIRECT a mouse),
# and it is gone from /dev and udev once gestured-touch is killed (hot-unplug).
source "$VM_TESTS/lib.sh"

description() { grep -E '^[NIPBA]: ' "$1"; }
gone() { [ ! -e "$1" ]; }

for script in "$VM_TESTS"/scripts/*.touch; do
  name="$(basename "$script" .touch)"
  "$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/$name.script.evemu" \
    || fail "gestured-touch record $name failed"
  touch_start "$name" create "$script"
  node="$TOUCH_DEVNODE"
  wait_until 20 "udev to process $node ($name)" udev_ready "$node"

  evemu-describe "$node" > "$SCENARIO_DIR/$name.live.evemu" 2>&1 \
    || fail "evemu-describe $node ($name) failed: $(cat "$SCENARIO_DIR/$name.live.evemu")"
  if ! diff <(description "$SCENARIO_DIR/$name.script.evemu") \
    <(description "$SCENARIO_DIR/$name.live.evemu") > "$SCENARIO_DIR/$name.diff"; then
    fail "$name: the live device differs from its script (< script, > live):
$(cat "$SCENARIO_DIR/$name.diff")"
  fi

  touchscreen="$(udev_property "$node" ID_INPUT_TOUCHSCREEN)"
  mouse="$(udev_property "$node" ID_INPUT_MOUSE)"
  if [ "$name" = elo-single-left ]; then
    [ "$mouse" = 1 ] && [ -z "$touchscreen" ] \
      || fail "$name: udev should call a BTN_LEFT panel without INPUT_PROP_DIRECT a mouse, not a touchscreen; it says ID_INPUT_MOUSE='$mouse' ID_INPUT_TOUCHSCREEN='$touchscreen'"
  else
    [ "$touchscreen" = 1 ] || fail "$name: udev does not call $node a touchscreen:
$(udevadm info --query=property --name="$node")"
  fi
  note "$name: $node, $(udev_property "$node" ID_INPUT_TOUCHSCREEN | sed 's/1/touchscreen/')$(udev_property "$node" ID_INPUT_MOUSE | sed 's/1/mouse/')"

  kill -TERM "$TOUCH_PID"
  wait "$TOUCH_PID" || fail "gestured-touch create ($name) exited with status $? on SIGTERM"
  wait_until 20 "$node to disappear after gestured-touch create ended" gone "$node"
done
