# Issue 4, scenario 2: two panels at once, one taken by a profile that matches its name, the
# other by a profile that matches its vendor and product. Both play their touches at the
# same time; each panel's gestures run its own profile's bindings and respect its regions
# (a region's binding in the region, the region-less one elsewhere, nothing where nothing is
# bound); the default profile, listed last, gets neither panel. The panels are uinput's, so
# the first entry (`virtual: false`, hardware only) takes neither, and `virtual: true`
# beside the left one's name still takes it.
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: hardware
    match: { virtual: false }
    bindings:
      - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/hardware.out" }
  - name: left
    match: { name: "gestured VM Kiosk Left", virtual: true }
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.25, height: 0.25 } }
    bindings:
      - { gesture: tap, region: corner, name: corner-tap, run: "@VM_TESTS@/record-firing @DIR@/left.out" }
      - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/left.out" }
  - name: right
    match: { vendor: 0x3333, product: 0x4444 }
    regions:
      - { name: bottom, area: { x: 0, y: 0.5, width: 1, height: 0.5 } }
    bindings:
      - { gesture: tap, region: bottom, name: bottom-tap, run: "@VM_TESTS@/record-firing @DIR@/right.out" }
      - { gesture: swipe, direction: left, name: swipe-left, run: "@VM_TESTS@/record-firing @DIR@/right.out" }
  - name: fallback
    bindings:
      - { gesture: tap, name: tap, run: "@VM_TESTS@/record-firing @DIR@/fallback.out" }
      - { gesture: swipe, direction: left, name: swipe-left, run: "@VM_TESTS@/record-firing @DIR@/fallback.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"

# Each panel stays 1 s after its last touch, as a real one does: destroyed at once, a panel
# took its last lift with it whenever the daemon, reading it at contact changes, came for it
# more than the few milliseconds the player left (the kernel gives nothing of an unplugged
# device), and the right panel's swipe was lost.
plug_panel left "$VM_TESTS/scripts/daemon/kiosk-left.touch" --hold-open 1000
left_pid=$TOUCH_PID left_node=$TOUCH_DEVNODE
plug_panel right "$VM_TESTS/scripts/daemon/kiosk-right.touch" --hold-open 1000
right_pid=$TOUCH_PID right_node=$TOUCH_DEVNODE
grep -q "^$left_node 'gestured VM Kiosk Left': profile 'left'" "$SCENARIO_DIR/daemon.log" \
  || fail "the profile matching by name did not take $left_node (the left panel)"
grep -q "^$right_node 'gestured VM Kiosk Right': profile 'right'" "$SCENARIO_DIR/daemon.log" \
  || fail "the profile matching by vendor/product did not take $right_node (the right panel)"

# Both at once.
kill -USR1 "$left_pid" "$right_pid"
touch_wait left "$left_pid"
touch_wait right "$right_pid"
both_ran() { [ "$(count_lines "$SCENARIO_DIR/left.out")" -ge 2 ] && [ "$(count_lines "$SCENARIO_DIR/right.out")" -ge 2 ]; }
wait_until 20 "two actions from each panel" both_ran
sleep 1.5
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"

expect_lines "$SCENARIO_DIR/left.out" "binding=corner-tap gesture=tap fingers=1 taps=1 region=corner profile=left
binding=tap gesture=tap fingers=1 taps=1 region=none profile=left" "the left panel's actions"
expect_lines "$SCENARIO_DIR/right.out" "binding=bottom-tap gesture=tap fingers=1 taps=1 region=bottom profile=right
binding=swipe-left gesture=swipe fingers=1 direction=left region=none profile=right" "the right panel's actions"
expect_lines "$SCENARIO_DIR/fallback.out" "" "the default profile, which neither panel belongs to"
expect_lines "$SCENARIO_DIR/hardware.out" "" "the hardware-only entry, which no virtual panel belongs to"
