# Issue 4, scenario 1: the daemon starts with no touchscreen; a panel plugged in later gets
# a tap, a double tap, a 2-finger swipe and a pinch, and each runs exactly its own command,
# once (each action appends a line to its own file; bindings for neighbouring gestures
# write to decoy.out, which must stay empty).
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
bindings:
  - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/tap.out" }
  - { gesture: tap, taps: 2, name: double-tap, run: "@VM_TESTS@/record-firing @DIR@/double-tap.out" }
  - { gesture: swipe, direction: up, fingers: 2, name: swipe-up-2, run: "@VM_TESTS@/record-firing @DIR@/swipe.out" }
  - { gesture: pinch, direction: in, name: pinch-in, run: "@VM_TESTS@/record-firing @DIR@/pinch.out" }
  # Decoys: what a wrong finger count, direction or kind would fire.
  - { gesture: tap, fingers: 2, name: tap-2, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: tap, taps: 3, name: triple-tap, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: swipe, direction: up, name: swipe-up-1, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: swipe, direction: down, fingers: 2, name: swipe-down-2, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: pinch, direction: out, name: pinch-out, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: rotate, direction: clockwise, name: rotate-cw, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: rotate, direction: counterclockwise, name: rotate-ccw, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
  - { gesture: long-press, name: long-press, run: "@VM_TESTS@/record-firing @DIR@/decoy.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
grep -q 'READY=1.*STATUS=0 touchscreens' "$SCENARIO_DIR/notify.log" \
  || fail "the daemon should start with no touchscreen: $(cat "$SCENARIO_DIR/notify.log")"

# The panel stays 1 s after its last touch, so that the pinch's lift is not unplugged with
# it before the daemon reads it.
play_panel late "$VM_TESTS/scripts/daemon/four-gestures.touch" --hold-open 1000
all_ran() {
  for file in tap double-tap swipe pinch; do [ -s "$SCENARIO_DIR/$file.out" ] || return 1; done
}
wait_until 20 "all four actions to run (tap, double-tap, swipe, pinch)" all_ran
# Time for a second run of any of them, or a decoy, to show up.
sleep 2
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"

expect_lines "$SCENARIO_DIR/tap.out" \
  "binding=tap gesture=tap fingers=1 taps=1 region=none profile=default" "the tap's action"
expect_lines "$SCENARIO_DIR/double-tap.out" \
  "binding=double-tap gesture=tap fingers=1 taps=2 region=none profile=default" "the double tap's action"
expect_lines "$SCENARIO_DIR/swipe.out" \
  "binding=swipe-up-2 gesture=swipe fingers=2 direction=up region=none profile=default" "the 2-finger swipe's action"
expect_lines "$SCENARIO_DIR/pinch.out" \
  "binding=pinch-in gesture=pinch fingers=2 direction=in region=none profile=default" "the pinch's action"
expect_lines "$SCENARIO_DIR/decoy.out" "" "bindings for gestures that were not made"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
