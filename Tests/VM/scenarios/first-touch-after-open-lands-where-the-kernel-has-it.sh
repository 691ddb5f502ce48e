# A touch at the very place of the panel's previous one, as the first touch the daemon sees
# after opening the panel (at start, and again after a SIGHUP reload reopens it), must be
# read at that place. The kernel does not resend a slot's position that did not change (nor
# ABS_X/ABS_Y), so such a touch arrives as a tracking id alone: its position is the one
# libevdev read from the kernel when the daemon opened the node. A tap in the middle region
# must run the region's binding, never the one for taps elsewhere (e.g. at 0,0).
# Found while writing the SIGHUP scenario; see docs/testing.md.
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
regions:
  - { name: middle, area: { x: 0.25, y: 0.25, width: 0.5, height: 0.5 } }
bindings:
  - { gesture: tap, region: middle, name: middle-tap, run: "@VM_TESTS@/record-firing @DIR@/middle.out" }
  - { gesture: tap, name: tap-elsewhere, run: "@VM_TESTS@/record-firing @DIR@/elsewhere.out" }
  - { gesture: swipe, direction: left, name: swipe-left, run: "@VM_TESTS@/record-firing @DIR@/elsewhere.out" }
  - { gesture: swipe, direction: right, name: swipe-right, run: "@VM_TESTS@/record-firing @DIR@/elsewhere.out" }
  - { gesture: swipe, direction: up, name: swipe-up, run: "@VM_TESTS@/record-firing @DIR@/elsewhere.out" }
  - { gesture: swipe, direction: down, name: swipe-down, run: "@VM_TESTS@/record-firing @DIR@/elsewhere.out" }
YAML
"$GESTURED_TOUCH" record "$VM_TESTS/scripts/daemon/tap-still.touch" -o "$SCENARIO_DIR/tap.evemu" \
  || fail "gestured-touch record failed"

# The panel is touched before the daemon runs.
touch_start panel create "$VM_TESTS/scripts/daemon/tap-still.touch"
node=$TOUCH_DEVNODE
wait_until 20 "udev to process $node" udev_ready "$node"
inject "$node" "$SCENARIO_DIR/tap.evemu"

results=""
# tap_and_see STEP: the same tap again; notes what ran.
tap_and_see() {
  local middle elsewhere
  middle="$(count_lines "$SCENARIO_DIR/middle.out")" elsewhere="$(count_lines "$SCENARIO_DIR/elsewhere.out")"
  inject "$node" "$SCENARIO_DIR/tap.evemu"
  ran() { [ "$(count_lines "$SCENARIO_DIR/middle.out")" -gt "$middle" ] || [ "$(count_lines "$SCENARIO_DIR/elsewhere.out")" -gt "$elsewhere" ]; }
  wait_until 10 "an action for the tap ($1)" ran
  sleep 0.5  # past the 300 ms cooldown, and time for a second firing to show
  if [ "$(count_lines "$SCENARIO_DIR/middle.out")" -gt "$middle" ]; then
    results+="$1: middle-tap; "
  else
    results+="$1: $(tail -n 1 "$SCENARIO_DIR/elsewhere.out"); "
  fi
}

mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
daemon_start "$SCENARIO_DIR/config.yaml" --verbose
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$node '.*': profile" || fail "the daemon did not take $node at start"
tap_and_see "first touch after the daemon started"
tap_and_see "second touch, panel still open"

mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the reload" ready_at_least 2
wait_until 20 "the daemon to take $node again after the reload" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$node '.*': profile"
tap_and_see "first touch after the reload reopened the panel"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"

note "$results"
[ "$(count_lines "$SCENARIO_DIR/middle.out")" -eq 3 ] && [ ! -s "$SCENARIO_DIR/elsewhere.out" ] \
  || fail "taps in the middle, where the panel's previous touch was, ran the wrong binding once the daemon had (re)opened the panel: ${results%; }. The kernel sent no position for them (unchanged since that touch); the daemon must start each slot from the state libevdev read at open, not from 0,0"
