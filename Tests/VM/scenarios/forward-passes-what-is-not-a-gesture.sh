# Issue 12, forwarding. One script (scripts/daemon/forward.touch) played twice in the same
# boot: without `forward`, evemu-record on the panel itself (what the app would get); with
# `forward: true`, evemu-record on the clone gestured makes. The clone gets exactly the drag,
# the tap where only a pinch is bound and the unbound two-finger swipe, each frame as the
# panel had it (forward-compare.py), the drag and the swipe with their frame-to-frame timing;
# nothing of the bound 5-tap and the bound pinch, which run their commands. Then a SIGKILL of
# the daemon mid-touch: the kernel removes the clone and ends the grab, and the panel is the
# app's again. The daemon's log gives the added latency of the frames that went out live,
# /proc/PID/io its system calls per frame (BENCHMARKS.md, row "forwarding").
# vm-time-limit: 240
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"

config() {
  write_config "$SCENARIO_DIR/$1.yaml" <<'YAML'
devices:
  - name: kiosk
    forward: FORWARD
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
      - { name: right, area: { x: 0.6, y: 0, width: 0.4, height: 1 } }
    bindings:
      - { gesture: tap, taps: 5, region: corner, name: five-tap, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
      - { gesture: pinch, direction: in, region: right, name: pinch-in, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
  sed -i "s/FORWARD/$2/" "$SCENARIO_DIR/$1.yaml"
}
config plain false
config forwarded true
script="$VM_TESTS/scripts/daemon/forward.touch"

# 1. Without forward: what the panel gives any reader.
daemon_start "$SCENARIO_DIR/plain.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
plug_panel plain "$script"
record_start "$TOUCH_DEVNODE" "$SCENARIO_DIR/panel.evemu"
recorder=$RECORD_PID
plain_before="$(cat /proc/$DAEMON_PID/io)"
kill -USR1 "$TOUCH_PID"
touch_wait plain "$TOUCH_PID"
wait_until 20 "evemu-record of the panel to end" bash -c "! kill -0 $recorder 2>/dev/null"
plain_after="$(cat /proc/$DAEMON_PID/io)"
wait_until 10 "the two bound gestures to run (plain)" lines_at_least "$SCENARIO_DIR/fired.out" 2
stop_process "$DAEMON_PID" 20
mv "$SCENARIO_DIR/daemon.log" "$SCENARIO_DIR/plain-daemon.log"
mv "$SCENARIO_DIR/fired.out" "$SCENARIO_DIR/plain-fired.out"
# A fresh notify listener for the second daemon (the socket path is the same).
kill "$NOTIFY_PID"
wait "$NOTIFY_PID" 2>/dev/null || true
rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"

# 2. With forward: what the clone gives.
daemon_start "$SCENARIO_DIR/forwarded.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
plug_panel forwarded "$script"
panel=$TOUCH_DEVNODE
wait_until 10 "the daemon to make the clone" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel: forwarding .* clone /dev/input/event"
clone="$(sed -n "s|^$panel: forwarding .* clone \(/dev/input/event[0-9]*\).*|\1|p" "$SCENARIO_DIR/daemon.log" | tail -n 1)"
wait_until 10 "udev to know the clone $clone" udev_ready "$clone"
[ "$(udev_property "$clone" ID_INPUT_TOUCHSCREEN)" = 1 ] || fail "udev does not call the clone a touchscreen"
wait_until 10 "the daemon to leave its clone alone" grep -qs "^$clone .*own forwarding clone; left alone" "$SCENARIO_DIR/daemon.log"
record_start "$clone" "$SCENARIO_DIR/clone.evemu"
recorder=$RECORD_PID
syscalls_before="$(cat /proc/$DAEMON_PID/io)"
kill -USR1 "$TOUCH_PID"
touch_wait forwarded "$TOUCH_PID"
wait_until 20 "evemu-record of the clone to end (the clone goes with its panel)" bash -c "! kill -0 $recorder 2>/dev/null"
syscalls_after="$(cat /proc/$DAEMON_PID/io)"
wait_until 10 "the two bound gestures to run (forwarded)" lines_at_least "$SCENARIO_DIR/fired.out" 2
expect_lines "$SCENARIO_DIR/fired.out" "$(cat "$SCENARIO_DIR/plain-fired.out")" "the bound gestures, forwarded as without"
grep -q '^N: gestured VM Forward Panel$' "$SCENARIO_DIR/clone.evemu" || fail "the clone does not have the panel's name"
grep -q '^I: 0003 1234 5690 ' "$SCENARIO_DIR/clone.evemu" || fail "the clone does not have the panel's ids"

# Panel sequences: 1-5 the corner taps, 6 the drag, 7 the tap, 8 the pinch, 9 the swipe.
# The two plays' timing differ by their own lateness (gestured-touch reports its worst):
# forwarding must add no more than that and 50 ms.
late() { sed -n 's/.*latest event \([0-9]*\)\.[0-9]* ms late.*/\1/p' "$SCENARIO_DIR/$1.touch.log" | tail -n 1; }
noise=$(($(late plain) + $(late forwarded) + 50))
python3 "$VM_TESTS/forward-compare.py" "$SCENARIO_DIR/panel.evemu" "$SCENARIO_DIR/clone.evemu" 6,7,9 6,9 "$noise" \
  | tee "$SCENARIO_DIR/compare.txt" >&2 || fail "the clone did not get what it should (compare.txt)"
latency="$(grep -o 'went to the clone as they were read; .*' "$SCENARIO_DIR/daemon.log" | tail -n 1)"
note "latency: $latency"
frames="$(grep -c '^E: [0-9.]* 0000 0000 0000' "$SCENARIO_DIR/clone.evemu" || true)"
field() { echo "$1" | sed -n "s/^$2: //p"; }
reads=$(($(field "$syscalls_after" syscr) - $(field "$syscalls_before" syscr)))
writes=$(($(field "$syscalls_after" syscw) - $(field "$syscalls_before" syscw)))
plain_reads=$(($(field "$plain_after" syscr) - $(field "$plain_before" syscr)))
plain_writes=$(($(field "$plain_after" syscw) - $(field "$plain_before" syscw)))
note "system calls during the play: forwarded $reads reads, $writes writes ($frames frames on the clone); plain $plain_reads reads, $plain_writes writes"
echo "latency $latency; forwarded: $reads read and $writes write syscalls, $frames clone frames; plain: $plain_reads read and $plain_writes write syscalls" > "$SCENARIO_DIR/measured.txt"

# 3. SIGKILL mid-touch: the kernel ends the grab and removes the clone.
mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
create_panel held "$script"
panel=$TOUCH_DEVNODE held_pid=$TOUCH_PID
wait_until 10 "the daemon to make the second clone" \
  logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$panel: forwarding .* clone /dev/input/event"
clone="$(sed -n "s|^$panel: forwarding .* clone \(/dev/input/event[0-9]*\).*|\1|p" "$SCENARIO_DIR/daemon.log" | tail -n 1)"
cat > "$SCENARIO_DIR/down.evemu" <<'EVEMU'
E: 0.000000 0003 0039 0077
E: 0.000000 0003 0035 1200
E: 0.000000 0003 0036 1100
E: 0.000000 0001 014a 0001
E: 0.000000 0000 0000 0000
E: 0.020000 0003 0035 1210
E: 0.020000 0000 0000 0000
EVEMU
cat > "$SCENARIO_DIR/up.evemu" <<'EVEMU'
E: 0.000000 0003 0039 -001
E: 0.000000 0001 014a 0000
E: 0.000000 0000 0000 0000
EVEMU
inject "$panel" "$SCENARIO_DIR/down.evemu"
kill -KILL "$DAEMON_PID"
wait "$DAEMON_PID" 2>/dev/null || true
wait_until 10 "the kernel to remove the clone $clone" bash -c "! test -e $clone"
record_start "$panel" "$SCENARIO_DIR/after-kill.evemu"
after=$RECORD_PID
inject "$panel" "$SCENARIO_DIR/up.evemu"
inject "$panel" "$SCENARIO_DIR/down.evemu"
sleep 0.5
kill "$held_pid"
wait_until 20 "evemu-record of the panel to end" bash -c "! kill -0 $after 2>/dev/null"
grep -q '^E: .* 0003 0039 0077' "$SCENARIO_DIR/after-kill.evemu" \
  || fail "after the SIGKILL the panel's touches do not reach another reader (still grabbed?)"
