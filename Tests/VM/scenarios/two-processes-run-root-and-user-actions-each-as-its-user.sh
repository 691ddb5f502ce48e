# Issue 25: started as root, the daemon is two processes. The launcher stays root; the
# recognizer it starts runs as nobody (no user gestured here: the package creates it) with
# the input group only, no capabilities and no new privileges, and says so in the log. A tap
# in the left region runs its command as root, one in the right region its `user: nobody`
# command as nobody: the launcher runs both. Killing the recognizer makes the launcher
# exit 71 (systemd restarts the service).
source "$VM_TESTS/lib.sh"
config="$SCENARIO_DIR/config.yaml"

! getent passwd gestured > /dev/null || skip "a user gestured exists: this scenario is about its absence"
: > "$SCENARIO_DIR/user.out"
chmod 666 "$SCENARIO_DIR/user.out"
write_config "$config" <<'YAML'
regions:
  - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 } }
  - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 } }
bindings:
  - { gesture: tap, region: left, run: "id -un > @DIR@/root.out" }
  - { gesture: tap, region: right, user: nobody, run: "id -un > @DIR@/user.out" }
YAML
chmod 644 "$config"
record_tap left 0.25 0.5
record_tap right 0.75 0.5

daemon_start "$config"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
grep -q "no user gestured (the package creates it): the recognizer runs as nobody with the input group" \
  "$SCENARIO_DIR/daemon.log" || fail "the launcher did not say the recognizer runs as nobody: $(cat "$SCENARIO_DIR/daemon.log")"
expect_recognizer_as nobody

create_panel panel "$VM_TESTS/scripts/daemon/tap.touch"
node=$TOUCH_DEVNODE
inject "$node" "$SCENARIO_DIR/left.evemu"
wait_until 10 "the left tap's command" test -s "$SCENARIO_DIR/root.out"
inject "$node" "$SCENARIO_DIR/right.evemu"
wait_until 10 "the right tap's command" test -s "$SCENARIO_DIR/user.out"
expect_lines "$SCENARIO_DIR/root.out" "root" "the left tap's command runs as root"
expect_lines "$SCENARIO_DIR/user.out" "nobody" "the right tap's user: command runs as nobody"

# The recognizer gone: the launcher stops with 71 for the service manager to restart both.
recognizer="$(reader_of "$DAEMON_PID")"
kill -KILL "$recognizer"
wait_until 10 "the launcher to exit" bash -c "! kill -0 $DAEMON_PID 2>/dev/null"
status=0
wait "$DAEMON_PID" || status=$?
[ "$status" -eq 71 ] || fail "the launcher exited with status $status after the recognizer was killed"
grep -q "the recognizer closed its channel; stopping\|the recognizer ended" "$SCENARIO_DIR/daemon.log" \
  || fail "the launcher did not say why it stopped: $(tail -5 "$SCENARIO_DIR/daemon.log")"
kill "$TOUCH_PID"
