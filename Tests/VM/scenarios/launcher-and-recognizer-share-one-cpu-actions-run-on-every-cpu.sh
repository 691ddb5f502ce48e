# The launcher keeps itself and the recognizer on one CPU, the same one, so that they wake
# each other without waking another CPU, and says which in its log; an action still runs on
# every CPU the daemon was allowed (the VM has two).
source "$VM_TESTS/lib.sh"
config="$SCENARIO_DIR/config.yaml"

allowed="$(grep Cpus_allowed_list /proc/self/status)"
[ "$(nproc)" -gt 1 ] || skip "one CPU: there is nothing to keep to"
write_config "$config" <<'YAML'
bindings:
  - { gesture: tap, run: "grep Cpus_allowed_list /proc/self/status > @DIR@/action.cpus" }
YAML
record_tap tap 0.5 0.5

daemon_start "$config"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
cpus_of() { awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status"; }
launcher="$(cpus_of "$DAEMON_PID")"
recognizer="$(cpus_of "$(reader_of "$DAEMON_PID")")"
[[ "$launcher" =~ ^[0-9]+$ ]] || fail "the launcher may run on CPUs $launcher, not on one"
[ "$recognizer" = "$launcher" ] || fail "the recognizer runs on CPUs $recognizer, the launcher on $launcher"
grep -q "the launcher and the recognizer run on CPU $launcher, actions on every CPU the daemon may use" \
  "$SCENARIO_DIR/daemon.log" || fail "the launcher did not say which CPU it keeps to: $(cat "$SCENARIO_DIR/daemon.log")"

create_panel panel "$VM_TESTS/scripts/daemon/tap.touch"
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/tap.evemu"
wait_until 10 "the tap's command" test -s "$SCENARIO_DIR/action.cpus"
expect_lines "$SCENARIO_DIR/action.cpus" "$allowed" "the action runs on every CPU the daemon may use"
kill "$TOUCH_PID"
