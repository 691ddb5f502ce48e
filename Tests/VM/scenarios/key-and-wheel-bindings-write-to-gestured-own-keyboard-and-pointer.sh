# Issue 26, built-in input actions: a swipe bound to `key: alt+left` and a pan stepping
# `wheel: 1` write exactly those events to the virtual keyboard and pointer gestured makes
# through uinput (evemu-record on both): the chord pressed in order and released in reverse
# with a SYN_REPORT after each change, and per step one frame of REL_WHEEL -1 and
# REL_WHEEL_HI_RES -120; as many steps as `gestured replay` of the script's recording prints
# (its firing lines name the key and the wheel). udev and libinput call the devices a
# keyboard and a pointer; gestured never opens them, and starts no process.
# vm-time-limit: 240
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
bindings:
  - { name: back, gesture: swipe, direction: left, key: alt+left }
  - { name: scroll, gesture: pan, fingers: 2, direction: down, step: 10mm, wheel: 1 }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
device_of() { sed -n "s|^key and wheel bindings write to \(/dev/input/event[0-9]*\) 'gestured virtual $1'\$|\1|p" "$SCENARIO_DIR/daemon.log" | tail -n 1; }
keyboard="$(device_of keyboard)"
pointer="$(device_of wheel)"
[ -n "$keyboard" ] && [ -n "$pointer" ] || fail "the daemon did not log both virtual devices"
wait_until 10 "udev to know $keyboard" udev_ready "$keyboard"
wait_until 10 "udev to know $pointer" udev_ready "$pointer"
[ "$(udev_property "$keyboard" ID_INPUT_KEYBOARD)" = 1 ] || fail "udev does not call $keyboard a keyboard"
[ "$(udev_property "$pointer" ID_INPUT_MOUSE)" = 1 ] || fail "udev does not call $pointer a mouse"
if command -v libinput > /dev/null; then
  libinput list-devices > "$SCENARIO_DIR/libinput-devices.txt" 2>&1 || true
  capabilities() {
    awk -v name="$1" '/^Device:/ { this = ($0 ~ "Device: +" name "$") } this && /^Capabilities:/ { sub(/^Capabilities: +/, ""); sub(/ +$/, ""); print }' \
      "$SCENARIO_DIR/libinput-devices.txt"
  }
  [ "$(capabilities "gestured virtual keyboard")" = keyboard ] \
    || fail "libinput does not call the virtual keyboard a keyboard (libinput-devices.txt)"
  [ "$(capabilities "gestured virtual wheel")" = pointer ] \
    || fail "libinput does not call the virtual wheel a pointer (libinput-devices.txt)"
else
  note "libinput-tools is not installed (Tests/VM/setup.sh): libinput's classification not checked"
fi

# What replay decides for the script's own recording: the swipe, then N steps.
script="$VM_TESTS/scripts/daemon/key-and-wheel.touch"
"$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/script.evemu" || fail "gestured-touch record failed"
"$GESTURED" replay --config "$SCENARIO_DIR/config.yaml" "$SCENARIO_DIR/script.evemu" > "$SCENARIO_DIR/replay.jsonl" \
  || fail "gestured replay of the script failed"
[ "$(jq -r 'select(.binding == "back") | .key' "$SCENARIO_DIR/replay.jsonl")" = "alt+left" ] \
  || fail "replay does not print the swipe's key as written (replay.jsonl)"
steps="$(jq -r 'select(.binding == "scroll") | .wheel' "$SCENARIO_DIR/replay.jsonl" | grep -c '^1$' || true)"
[ "$steps" -ge 2 ] || fail "replay prints $steps wheel steps of the pan; the script should give at least 2 (replay.jsonl)"

record_start "$keyboard" "$SCENARIO_DIR/keyboard.evemu" '^B: 15 '
keys_recorder=$RECORD_PID
record_start "$pointer" "$SCENARIO_DIR/pointer.evemu" '^B: 15 '
wheel_recorder=$RECORD_PID
plug_panel panel "$script" --hold-open 60000
kill -USR1 "$TOUCH_PID"
wait_until 60 "gestured-touch to play" grep -qs 'played' "$SCENARIO_DIR/panel.touch.log"
note "$(cat "$SCENARIO_DIR/panel.touch.log")"
wait_until 20 "the swipe's key to be written" grep -qs '^\[default/back\] key alt+left$' "$SCENARIO_DIR/daemon.log"
wheel_steps() { [ "$(grep -c '^\[default/scroll\] wheel 1$' "$SCENARIO_DIR/daemon.log")" -ge "$1" ]; }
wait_until 20 "the daemon to write $steps wheel steps" wheel_steps "$steps"
# A moment for a step too many to show.
sleep 1
kill -TERM "$TOUCH_PID"
wait "$TOUCH_PID" 2>/dev/null || true

stop_process "$DAEMON_PID" 20
# The devices go with the daemon, and their recordings end.
wait_until 20 "evemu-record of the keyboard to end" bash -c "! kill -0 $keys_recorder 2>/dev/null"
wait_until 20 "evemu-record of the pointer to end" bash -c "! kill -0 $wheel_recorder 2>/dev/null"

# Events as "TYPE CODE VALUE" in decimal, SYN_REPORTs included (evemu writes the type and
# code in hex, the value zero-padded: 0001, -001, -120; a comment follows).
events() {
  local tag time type code value comment sign
  while read -r tag time type code value comment; do
    [ "$tag" = "E:" ] || continue
    sign=""
    if [ "${value#-}" != "$value" ]; then sign="-" value="${value#-}"; fi
    echo "$((16#$type)) $((16#$code)) $sign$((10#$value))"
  done < "$1"
}
events "$SCENARIO_DIR/keyboard.evemu" > "$SCENARIO_DIR/keyboard.events"
events "$SCENARIO_DIR/pointer.evemu" > "$SCENARIO_DIR/pointer.events"
# KEY_LEFTALT 56, KEY_LEFT 105: down, down, up, up, a SYN_REPORT after each.
expect_lines "$SCENARIO_DIR/keyboard.events" "$(printf '1 56 1\n0 0 0\n1 105 1\n0 0 0\n1 105 0\n0 0 0\n1 56 0\n0 0 0')" \
  "the keyboard's events: alt+left once"
wheel_frame='2 8 -1\n2 11 -120\n0 0 0\n'
expected_wheel="$(for _ in $(seq "$steps"); do printf "$wheel_frame"; done)"
expect_lines "$SCENARIO_DIR/pointer.events" "$expected_wheel" "the pointer's events: $steps wheel clicks down"

# Never opened by the daemon, never taken, no process started.
if grep -q "gestured virtual .*: profile" "$SCENARIO_DIR/daemon.log"; then fail "the daemon took its own virtual device"; fi
if grep -q 'started pid' "$SCENARIO_DIR/daemon.log"; then fail "a key or wheel action started a process"; fi
echo "$steps wheel steps, 1 chord" > "$SCENARIO_DIR/measured.txt"
