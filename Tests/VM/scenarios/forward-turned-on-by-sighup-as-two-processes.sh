# Issue 25: as two processes, a reload that makes a profile forward for the first time. The
# daemon starts (as root: launcher and recognizer) on a config that does not forward; SIGHUP
# to the same profile with `forward: true` makes the launcher hand /dev/uinput descriptors
# to the recognizer with the reload, and the recognizer, which cannot open /dev/uinput
# itself, makes the panel's clone: a drag where nothing is bound reaches it, and the bound
# corner tap still runs its command and never reaches it.
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
config="$SCENARIO_DIR/config.yaml"

# install_config FORWARD: the config, replaced in one rename.
install_config() {
  write_config "$config.new" <<'YAML'
devices:
  - name: kiosk
    forward: FORWARD
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
    bindings:
      - { gesture: tap, region: corner, name: corner-tap, run: "@VM_TESTS@/record-firing @DIR@/tap.out" }
YAML
  sed -i "s/FORWARD/$1/" "$config.new"
  mv "$config.new" "$config"
}

record_tap corner-tap 0.05 0.07
write_drag "$SCENARIO_DIR/drag.evemu" 0301 1200
has_contact() { grep -qE "^E: [0-9.]+ 0003 0039 0*$2([^0-9]|\$)" "$1"; }

install_config false
daemon_start "$config"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
expect_recognizer_as nobody
create_panel panel "$VM_TESTS/scripts/daemon/forward.touch"
panel=$TOUCH_DEVNODE
wait_until 10 "the daemon to take $panel" grep -qs "^$panel" "$SCENARIO_DIR/daemon.log"
if grep -qs "forwarding .* clone" "$SCENARIO_DIR/daemon.log"; then fail "a clone before forwarding was asked for"; fi

install_config true
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the reload" ready_at_least 2
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "config reloaded" \
  || fail "the launcher did not move to the new config: $(tail -n +"$((mark + 1))" "$SCENARIO_DIR/daemon.log")"
wait_until 10 "the recognizer to make the clone" bash -c "grep -qs '^$panel: forwarding .* clone /dev/input/event' '$SCENARIO_DIR/daemon.log'"
clone="$(clone_of "$panel")"
wait_until 10 "udev to know the clone $clone" udev_ready "$clone"
note "panel $panel, clone $clone"
record_start "$clone" "$SCENARIO_DIR/clone.evemu"

inject "$panel" "$SCENARIO_DIR/corner-tap.evemu"
wait_until 10 "the corner tap's command" test -s "$SCENARIO_DIR/tap.out"
inject "$panel" "$SCENARIO_DIR/drag.evemu"
wait_until 10 "the drag on the clone" has_contact "$SCENARIO_DIR/clone.evemu" 301
# The tap's own tracking ids: none of them on the clone.
for id in $(awk '$4 == "0039" && $5 != "-001" { print $5 }' "$SCENARIO_DIR/corner-tap.evemu"); do
  has_contact "$SCENARIO_DIR/clone.evemu" "$id" && fail "the bound corner tap reached the clone"
done
stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
