# Issue 12, forwarding: a clone is never left with a contact down. A forwarded panel where
# only the top-left corner has a binding plays scripts/daemon/flood-after-landing.touch (its
# touches are all outside the corner, so each goes to the clone at once): a finger lands, the
# daemon is stopped (SIGSTOP, as in daemon-recovers-from-syn-dropped), the panel floods more
# than the kernel buffers and lifts every finger, SIGCONT. evemu-record on the clone (never
# stopped) must see every contact released after the drop and then the tap alone, down and
# up. Then a panel with two contacts down on its clone is unplugged (gestured-touch killed):
# the clone's reader sees both released (tracking id -1) before the clone goes. (First it
# gets BTN_TOUCH 0 in a SYN_REPORT of value 1: the kernel's own release of the vanishing
# panel's keys, passed through; a reader of the panel itself gets that and no MT release.)
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: kiosk
    forward: true
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
    bindings:
      - { gesture: tap, region: corner, name: corner-tap, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML

# 1. SYN_DROPPED. --verbose: the recognizer's transitions show when the landing was read.
daemon_start "$SCENARIO_DIR/config.yaml" --verbose
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
plug_panel flooded "$VM_TESTS/scripts/daemon/flood-after-landing.touch"
player=$TOUCH_PID panel=$TOUCH_DEVNODE
wait_until 10 "the daemon to make the clone" bash -c "grep -qs '^$panel: forwarding .* clone /dev/input/event' '$SCENARIO_DIR/daemon.log'"
clone="$(clone_of "$panel")"
record_start "$clone" "$SCENARIO_DIR/clone.evemu"
clone_recorder=$RECORD_PID

mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
start=${EPOCHREALTIME/./}
kill -USR1 "$player"
sleep_until "$start" 1000
reader="$(reader_of "$DAEMON_PID")"
kill -STOP "$reader"
stopped_ms=$(ms_since "$start")
sleep_until "$start" 4600
kill -CONT "$reader"
resumed_ms=$(ms_since "$start")
note "daemon stopped at $stopped_ms ms, resumed at $resumed_ms ms (landing at 100 ms, flood 2000-3600 ms, tap at 6500 ms)"
logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel: .*sequence began" \
  || fail "the daemon had not read the landing (at 100 ms) when it was stopped at $stopped_ms ms; the scenario needs it read first"
[ "$stopped_ms" -lt 1900 ] && [ "$resumed_ms" -gt 3700 ] && [ "$resumed_ms" -lt 6400 ] \
  || fail "the stop ($stopped_ms ms) and resume ($resumed_ms ms) missed their windows (before 1900 ms; 3700-6400 ms): the VM is too slow"
touch_wait flooded "$player"
wait_until 20 "evemu-record on the clone to end (the clone goes with its panel)" bash -c "! kill -0 $clone_recorder 2>/dev/null"
# (evemu-record cannot witness the drop on the panel: the daemon's grab keeps it out.)
grep -q "^$panel: the kernel dropped input events" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon saw no SYN_DROPPED: the kernel's buffer did not overflow, the scenario proves nothing"
# The landing (and what of the flood the daemon read before the drop), all released, then
# the tap alone: "1 ... 0 1 0".
counts="$(contact_counts "$SCENARIO_DIR/clone.evemu" | awk '{ print $2 }' | tr '\n' ' ')"
note "contacts down on the clone, frame by frame as it changed: $counts"
[[ "$counts" =~ ^1\ ([1-9]\ )*0\ 1\ 0\ $ ]] \
  || fail "the clone's contacts after the drop: $counts (expected the landing, every contact released, the tap alone)"
[ ! -s "$SCENARIO_DIR/fired.out" ] || fail "a gesture ran: $(cat "$SCENARIO_DIR/fired.out")"

# 2. Unplugged with two contacts down on the clone.
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
create_panel held "$VM_TESTS/scripts/daemon/forward.touch"
panel=$TOUCH_DEVNODE held=$TOUCH_PID
wait_until 10 "the daemon to make the second clone" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel: forwarding .* clone /dev/input/event"
clone="$(clone_of "$panel")"
record_start "$clone" "$SCENARIO_DIR/unplugged.evemu"
clone_recorder=$RECORD_PID
cat > "$SCENARIO_DIR/two-down.evemu" <<'EVEMU'
E: 0.000000 0003 002f 0000
E: 0.000000 0003 0039 0077
E: 0.000000 0003 0035 1200
E: 0.000000 0003 0036 1100
E: 0.000000 0001 014a 0001
E: 0.000000 0000 0000 0000
E: 0.020000 0003 002f 0001
E: 0.020000 0003 0039 0078
E: 0.020000 0003 0035 1800
E: 0.020000 0003 0036 1100
E: 0.020000 0000 0000 0000
E: 0.040000 0003 0035 1810
E: 0.040000 0000 0000 0000
EVEMU
inject "$panel" "$SCENARIO_DIR/two-down.evemu"
two_down() { [ "$(contacts_left_down "$SCENARIO_DIR/unplugged.evemu")" = 2 ]; }
wait_until 10 "both contacts on the clone" two_down
kill "$held"
wait "$held" 2>/dev/null || true
wait_until 10 "the clone $clone to go with its panel" bash -c "! test -e $clone"
wait_until 10 "evemu-record on the clone to end" bash -c "! kill -0 $clone_recorder 2>/dev/null"
note "unplugged mid-touch, the clone's contacts: $(contact_counts "$SCENARIO_DIR/unplugged.evemu" | awk '{ print $2 }' | tr '\n' ' ')"
[ "$(contacts_left_down "$SCENARIO_DIR/unplugged.evemu")" = 0 ] \
  || fail "the clone went with contacts down: no release (tracking id -1) reached its reader before it disappeared"
wait_until 10 "the daemon to let the panel go" logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel '.*': removed"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
