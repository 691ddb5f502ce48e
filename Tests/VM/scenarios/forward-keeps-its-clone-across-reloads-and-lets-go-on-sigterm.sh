# Issue 12, forwarding and reloads. One forwarded panel stays plugged (its touches are
# written into its node with evemu-play) under three SIGHUPs: a config that changes only a
# command (the panel stays open: no close, no reopen, no new clone; the new command runs), a
# config that changes the profile but keeps it forwarded (the engine is new, the clone
# stays; the new command runs) and a broken config (everything stays). Throughout, the clone
# keeps its node and sysfs path, `udevadm monitor` sees no remove or add of it, one
# evemu-record on it stays attached and gets each drag where nothing is bound, and the bound
# corner tap never reaches it. Then SIGTERM with a finger down: the clone's reader sees it
# released, the clone goes (udev sees it removed), and
# evemu-record, which cannot read the panel while the daemon holds the grab, gets the next
# touch.
# vm-time-limit: 150
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
config="$SCENARIO_DIR/config.yaml"

# install_config OUT [SECOND-BINDING]: the config, replaced in one rename; the corner tap
# runs record-firing into OUT.out.
install_config() {
  write_config "$config.new" <<'YAML'
devices:
  - name: kiosk
    forward: true
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
    bindings:
      - { gesture: tap, region: corner, name: corner-tap, run: "@VM_TESTS@/record-firing @DIR@/OUT.out" }
YAML
  sed -i "s/OUT/$1/" "$config.new"
  if [ -n "${2:-}" ]; then echo "      - $2" >> "$config.new"; fi
  mv "$config.new" "$config"
}

# The corner tap (bound) and a drag in the middle (nothing bound: on the clone at once),
# as evemu recordings of this panel; a drag's tracking id is its last argument.
cat > "$SCENARIO_DIR/corner-tap.evemu" <<'EVEMU'
E: 0.000000 0003 002f 0000
E: 0.000000 0003 0039 0101
E: 0.000000 0003 0035 0164
E: 0.000000 0003 0036 0138
E: 0.000000 0001 014a 0001
E: 0.000000 0000 0000 0000
E: 0.060000 0003 0039 -001
E: 0.060000 0001 014a 0000
E: 0.060000 0000 0000 0000
EVEMU
drag() {
  write_drag "$SCENARIO_DIR/drag-$1.evemu" "$1" 1200
  inject "$panel" "$SCENARIO_DIR/drag-$1.evemu"
}
# on_clone ID: the clone's recording has the contact with tracking id ID, lifted.
# (evemu-record ends each event's line with a comment after a tab.)
has_contact() { grep -qE "^E: [0-9.]+ 0003 0039 0*$2([^0-9]|\$)" "$1"; }
on_clone() { has_contact "$SCENARIO_DIR/clone.evemu" "$1" && [ "$(contacts_left_down "$SCENARIO_DIR/clone.evemu")" = 0 ]; }

install_config one
daemon_start "$config"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
create_panel panel "$VM_TESTS/scripts/daemon/forward.touch"
panel=$TOUCH_DEVNODE panel_pid=$TOUCH_PID
wait_until 10 "the daemon to make the clone" bash -c "grep -qs '^$panel: forwarding .* clone /dev/input/event' '$SCENARIO_DIR/daemon.log'"
clone="$(clone_of "$panel")"
wait_until 10 "udev to know the clone $clone" udev_ready "$clone"
clone_path="$(udevadm info --query=path --name="$clone")"
[ -n "$clone_path" ] || fail "udev has no sysfs path for the clone $clone"
note "panel $panel, clone $clone ($clone_path)"
udevadm monitor --udev --subsystem-match=input > "$SCENARIO_DIR/udev-monitor.txt" 2>&1 &
monitor=$!
record_start "$clone" "$SCENARIO_DIR/clone.evemu"
clone_recorder=$RECORD_PID

inject "$panel" "$SCENARIO_DIR/corner-tap.evemu"
wait_until 10 "the first config's corner tap" test -s "$SCENARIO_DIR/one.out"
drag 201
wait_until 10 "the first drag on the clone" on_clone 201

# still_the_same WHAT: the clone has its node and sysfs path, its recorder is attached, and
# the daemon made no clone and closed no panel since MARK.
still_the_same() {
  [ -e "$clone" ] || fail "after $1 the clone $clone is gone"
  [ "$(udevadm info --query=path --name="$clone")" = "$clone_path" ] \
    || fail "after $1 $clone is another device: $(udevadm info --query=path --name="$clone")"
  kill -0 "$clone_recorder" 2>/dev/null || fail "after $1 evemu-record on the clone ended (the clone went away)"
  if logged_since "$SCENARIO_DIR/daemon.log" "$mark" "removed|forwarding every touch|cannot"; then
    fail "after $1 the daemon closed, reopened or failed: $(tail -n +"$((mark + 1))" "$SCENARIO_DIR/daemon.log")"
  fi
}

# 1. Only a command changes: the profile is the same, the panel stays open.
install_config two
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the first reload" ready_at_least 2
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel '.*': profile '.*' \(unchanged: kept open\)" \
  || fail "the daemon did not keep the unchanged panel open: $(tail -n +"$((mark + 1))" "$SCENARIO_DIR/daemon.log")"
sleep 0.4 # past the tap's cooldown
inject "$panel" "$SCENARIO_DIR/corner-tap.evemu"
wait_until 10 "the changed command after the first reload" test -s "$SCENARIO_DIR/two.out"
drag 202
wait_until 10 "the second drag on the clone" on_clone 202
still_the_same "a reload that changed a command"

# 2. The profile changes (a second binding) and stays forwarded: the clone stays.
install_config three "{ gesture: tap, fingers: 2, region: corner, name: corner-tap-2, run: \"true\" }"
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the second reload" ready_at_least 3
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel '.*': profile '.*' \(reloaded; its clone stays\)" \
  || fail "the daemon did not keep the clone of the changed profile: $(tail -n +"$((mark + 1))" "$SCENARIO_DIR/daemon.log")"
inject "$panel" "$SCENARIO_DIR/corner-tap.evemu"
wait_until 10 "the changed command after the second reload" test -s "$SCENARIO_DIR/three.out"
drag 203
wait_until 10 "the third drag on the clone" on_clone 203
still_the_same "a reload that changed the profile"

# 3. A broken config: everything stays.
write_config "$config.new" <<'YAML'
devices:
  - name: kiosk
    forward: true
    bindings:
      - { gesture: tapp, name: typo, run: "@VM_TESTS@/record-firing @DIR@/broken.out" }
YAML
mv "$config.new" "$config"
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the failed reload" ready_at_least 4
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "keeping the previous one" \
  || fail "the daemon did not log that it keeps the previous config"
sleep 0.4
inject "$panel" "$SCENARIO_DIR/corner-tap.evemu"
wait_until 10 "the kept command after the failed reload" lines_at_least "$SCENARIO_DIR/three.out" 2
drag 204
wait_until 10 "the fourth drag on the clone" on_clone 204
still_the_same "a reload to a broken config"

expect_lines "$SCENARIO_DIR/one.out" "binding=corner-tap gesture=tap fingers=1 taps=1 region=corner profile=kiosk" "the first command"
expect_lines "$SCENARIO_DIR/two.out" "binding=corner-tap gesture=tap fingers=1 taps=1 region=corner profile=kiosk" "the command after the first reload"
[ "$(count_lines "$SCENARIO_DIR/three.out")" -eq 2 ] || fail "three.out: $(cat "$SCENARIO_DIR/three.out")"
has_contact "$SCENARIO_DIR/clone.evemu" 101 && fail "a bound corner tap reached the clone"
if grep -E " (remove|add) +$clone_path( |$)" "$SCENARIO_DIR/udev-monitor.txt"; then
  fail "udev saw the clone removed or added during the reloads"
fi

# 4. SIGTERM: the grab and the clone go. While the daemon holds the grab, evemu-record
# cannot read the panel (it says so); after, it gets the next touch.
drag 205
wait_until 10 "the fifth drag on the clone" on_clone 205
evemu-record "$panel" > "$SCENARIO_DIR/grabbed.evemu" 2> "$SCENARIO_DIR/grabbed.txt" &
grabbed_recorder=$!
wait_until 20 "evemu-record to refuse the grabbed panel" grep -qs 'grabbed' "$SCENARIO_DIR/grabbed.txt"
wait "$grabbed_recorder" 2>/dev/null || true
# A finger down on the clone when SIGTERM comes: released before the clone goes.
cat > "$SCENARIO_DIR/down.evemu" <<'EVEMU'
E: 0.000000 0003 002f 0000
E: 0.000000 0003 0039 0207
E: 0.000000 0003 0035 1200
E: 0.000000 0003 0036 1100
E: 0.000000 0001 014a 0001
E: 0.000000 0000 0000 0000
EVEMU
inject "$panel" "$SCENARIO_DIR/down.evemu"
one_down() { [ "$(contacts_left_down "$SCENARIO_DIR/clone.evemu")" = 1 ]; }
wait_until 10 "the finger down on the clone" one_down
stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
wait_until 10 "the clone $clone to go" bash -c "! test -e $clone"
wait_until 10 "evemu-record on the clone to end" bash -c "! kill -0 $clone_recorder 2>/dev/null"
[ "$(contacts_left_down "$SCENARIO_DIR/clone.evemu")" = 0 ] || fail "SIGTERM left the clone with a contact down"
wait_until 10 "udev to see the clone removed" grep -qE " remove +$clone_path( |$)" "$SCENARIO_DIR/udev-monitor.txt"
record_start "$panel" "$SCENARIO_DIR/panel.evemu"
panel_recorder=$RECORD_PID
drag 206
kill "$panel_pid"
wait_until 20 "evemu-record on the panel to end" bash -c "! kill -0 $panel_recorder 2>/dev/null"
kill "$monitor" 2>/dev/null || true
has_contact "$SCENARIO_DIR/panel.evemu" 206 \
  || fail "after SIGTERM the panel's touches do not reach another reader (still grabbed?)"
note "clone contacts: $(contact_counts "$SCENARIO_DIR/clone.evemu" | tr '\n' ' ')"
