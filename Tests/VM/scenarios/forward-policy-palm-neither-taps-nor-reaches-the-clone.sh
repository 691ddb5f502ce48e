# Issue 26, palm rejection. A forwarded panel reporting touch-major (no tool type), a tap
# bound: a contact 25 mm wide (palm-size is 20 mm by default) rests while a finger beside
# it taps (the tap's command runs) and then drags (on the clone, evemu-record on it); then
# the palm alone taps. The palm fires nothing and never reaches the clone; the clone has
# the tool-type axis the panel lacks.
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
thresholds: { tap-max-duration: 1s }
devices:
  - name: kiosk
    forward: true
    bindings:
      - { gesture: tap, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the config does not pass gestured check"
daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
create_panel palm "$VM_TESTS/scripts/daemon/forward-palm.touch"
panel=$TOUCH_DEVNODE panel_pid=$TOUCH_PID
wait_until 10 "the daemon to make the clone" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel: forwarding .* clone /dev/input/event"
clone="$(clone_of "$panel")"
wait_until 10 "udev to know the clone $clone" udev_ready "$clone"
record_start "$clone" "$SCENARIO_DIR/clone.evemu"
recorder=$RECORD_PID
grep -q '^A: 37 0 2 ' "$SCENARIO_DIR/clone.evemu" || fail "the clone has no ABS_MT_TOOL_TYPE (0..2)"
{
  # The palm lands in slot 0: touch-major 400, 25 mm.
  echo "E: 0.000000 0003 0039 0010"
  echo "E: 0.000000 0003 0035 0800"
  echo "E: 0.000000 0003 0036 1100"
  echo "E: 0.000000 0003 0030 0400"
  echo "E: 0.000000 0001 014a 0001"
  echo "E: 0.000000 0000 0000 0000"
  # A finger taps beside it, in slot 1.
  echo "E: 0.300000 0003 002f 0001"
  echo "E: 0.300000 0003 0039 0011"
  echo "E: 0.300000 0003 0035 3000"
  echo "E: 0.300000 0003 0036 1100"
  echo "E: 0.300000 0003 0030 0080"
  echo "E: 0.300000 0000 0000 0000"
  echo "E: 0.380000 0003 0039 -001"
  echo "E: 0.380000 0000 0000 0000"
  # Then drags there: 40 mm in 10 frames.
  echo "E: 1.200000 0003 0039 0012"
  echo "E: 1.200000 0000 0000 0000"
  for k in 1 2 3 4 5 6 7 8 9 10; do
    t="$(printf '1.%06d' $((200000 + k * 30000)))"
    echo "E: $t 0003 0035 $(printf '%04d' $((3000 + k * 64)))"
    echo "E: $t 0000 0000 0000"
  done
  echo "E: 1.550000 0003 0039 -001"
  echo "E: 1.550000 0000 0000 0000"
  # The palm lifts, then taps alone.
  echo "E: 1.800000 0003 002f 0000"
  echo "E: 1.800000 0003 0039 -001"
  echo "E: 1.800000 0001 014a 0000"
  echo "E: 1.800000 0000 0000 0000"
  echo "E: 2.500000 0003 0039 0013"
  echo "E: 2.500000 0003 0035 0900"
  echo "E: 2.500000 0001 014a 0001"
  echo "E: 2.500000 0000 0000 0000"
  echo "E: 2.580000 0003 0039 -001"
  echo "E: 2.580000 0001 014a 0000"
  echo "E: 2.580000 0000 0000 0000"
} > "$SCENARIO_DIR/touches.evemu"
inject "$panel" "$SCENARIO_DIR/touches.evemu"
sleep 1.5
kill "$panel_pid"
wait_until 20 "evemu-record of the clone to end" bash -c "! kill -0 $recorder 2>/dev/null"
wait_until 10 "the finger's tap" lines_at_least "$SCENARIO_DIR/fired.out" 1
sleep 0.5
expect_lines "$SCENARIO_DIR/fired.out" "binding=tap gesture=tap fingers=1 taps=1 region=none profile=kiosk" "the finger's tap alone"

ids="$(tracking_ids "$SCENARIO_DIR/clone.evemu" | tr '\n' ' ')"
[ "$ids" = "12 " ] || fail "the clone got contacts '$ids'; expected the drag's (12) alone"
moves="$(grep -c '^E: [0-9.]* 0003 0035 ' "$SCENARIO_DIR/clone.evemu" || true)"
[ "$moves" -ge 10 ] || fail "the clone got only $moves x positions of the drag"
if grep -q '^E: [0-9.]* 0003 0030 0400' "$SCENARIO_DIR/clone.evemu"; then
  fail "the palm's touch-major reached the clone"
fi
[ "$(contacts_left_down "$SCENARIO_DIR/clone.evemu")" -eq 0 ] || fail "a contact was left down on the clone"
