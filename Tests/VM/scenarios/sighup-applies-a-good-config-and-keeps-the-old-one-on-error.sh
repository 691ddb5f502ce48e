# Issue 4, scenario 5: SIGHUP reloads. With a valid changed config the new bindings apply
# to the panel already open; with a broken one the old bindings stay, the error is logged
# with file:line:col, and READY=1 is sent again (after RELOADING=1) either way. One panel
# stays plugged throughout; its taps are written into its node with evemu-play, each at
# another place (a tap where the previous one ended is the business of
# first-touch-after-open-lands-where-the-kernel-has-it).
source "$VM_TESTS/lib.sh"
config="$SCENARIO_DIR/config.yaml"

# install_config: the new file replaces the old in one rename, as an editor or a package
# manager would, so the daemon never reads half a file.
install_config() {
  write_config "$config.new"
  mv "$config.new" "$config"
}

install_config <<'YAML'
bindings:
  - { gesture: tap, name: tap-first, run: "@VM_TESTS@/record-firing @DIR@/first.out" }
YAML
# record_tap NAME X Y: NAME.evemu, tap.touch's tap moved to (X, Y).
record_tap() {
  sed "s/^tap at=100ms x=0.5 y=0.5 /tap at=100ms x=$2 y=$3 /" "$VM_TESTS/scripts/daemon/tap.touch" > "$SCENARIO_DIR/$1.touch"
  "$GESTURED_TOUCH" record "$SCENARIO_DIR/$1.touch" -o "$SCENARIO_DIR/$1.evemu" \
    || fail "gestured-touch record $1 failed"
}
record_tap tap1 0.3 0.3
record_tap tap2 0.5 0.5
record_tap tap3 0.7 0.7

daemon_start "$config"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
create_panel panel "$VM_TESTS/scripts/daemon/tap.touch"
node=$TOUCH_DEVNODE

inject "$node" "$SCENARIO_DIR/tap1.evemu"
wait_until 10 "the first config's tap action" test -s "$SCENARIO_DIR/first.out"

# A valid, changed config.
install_config <<'YAML'
bindings:
  - { gesture: tap, name: tap-second, run: "@VM_TESTS@/record-firing @DIR@/second.out" }
YAML
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the first reload" ready_at_least 2
wait_until 20 "the daemon to take $node again after the reload" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$node '.*': profile"
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "config reloaded" \
  || fail "the daemon did not log that it reloaded the valid config"
inject "$node" "$SCENARIO_DIR/tap2.evemu"
wait_until 10 "the second config's tap action" test -s "$SCENARIO_DIR/second.out"

# A broken config: 'tapp' on line 3, column 16.
install_config <<'YAML'
bindings:
  - { gesture: tap, name: tap-third, run: "@VM_TESTS@/record-firing @DIR@/third.out" }
  - { gesture: tapp, name: typo, run: "true" }
YAML
expected_error="$config:3:16: error:"
"$GESTURED" check --config "$config" > /dev/null 2> "$SCENARIO_DIR/check.txt" \
  && fail "gestured check accepts the broken config"
grep -qF "$expected_error" "$SCENARIO_DIR/check.txt" \
  || fail "the scenario expects the error at 3:16 but gestured check says: $(cat "$SCENARIO_DIR/check.txt")"
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the failed reload" ready_at_least 3
tail -n +"$((mark + 1))" "$SCENARIO_DIR/daemon.log" | grep -qF "$expected_error" \
  || fail "the daemon did not log the broken config's error as '$expected_error...'"
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "keeping the previous one" \
  || fail "the daemon did not log that it keeps the previous config"
sleep 0.5  # past the tap binding's 300 ms cooldown
inject "$node" "$SCENARIO_DIR/tap3.evemu"
wait_until 10 "the second config's tap action, still in force" \
  lines_at_least "$SCENARIO_DIR/second.out" 2
sleep 1
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"

expect_lines "$SCENARIO_DIR/first.out" "binding=tap-first gesture=tap fingers=1 taps=1 region=none profile=default" \
  "the first config's action (only before the first reload)"
expect_lines "$SCENARIO_DIR/second.out" "binding=tap-second gesture=tap fingers=1 taps=1 region=none profile=default
binding=tap-second gesture=tap fingers=1 taps=1 region=none profile=default" \
  "the second config's action (after the good reload, and kept through the bad one)"
expect_lines "$SCENARIO_DIR/third.out" "" "the broken config's action"

# The notify protocol: READY=1, then RELOADING=1 (with MONOTONIC_USEC) and READY=1 per reload.
sequence="$(grep -oE 'READY=1|RELOADING=1' "$SCENARIO_DIR/notify.log" | tr '\n' ' ')"
[ "$sequence" = "READY=1 RELOADING=1 READY=1 RELOADING=1 READY=1 " ] \
  || fail "notify messages out of order: $sequence; all: $(cat "$SCENARIO_DIR/notify.log")"
[ "$(grep -c 'RELOADING=1.*MONOTONIC_USEC=[0-9]' "$SCENARIO_DIR/notify.log")" -eq 2 ] \
  || fail "RELOADING=1 without MONOTONIC_USEC: $(cat "$SCENARIO_DIR/notify.log")"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
