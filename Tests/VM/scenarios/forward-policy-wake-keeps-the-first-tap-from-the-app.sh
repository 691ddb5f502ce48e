# Issue 26, wake. A forwarded panel with `wake: { after: 2s, run: … }`: the first tap, 4 s
# after the panel appeared, reaches nothing on the clone (evemu-record on it) and runs the
# wake command; the second, 1 s later, reaches the clone. Nothing is bound where they land.
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: kiosk
    forward: true
    wake: { after: 2s, run: "@VM_TESTS@/record-firing @DIR@/woke.out" }
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
    bindings:
      - { gesture: tap, taps: 3, region: corner, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the config does not pass gestured check"
daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
PLAY_AFTER=4 forward_play taps "$VM_TESTS/scripts/daemon/forward-wake.touch"
wait_until 10 "the wake command" lines_at_least "$SCENARIO_DIR/woke.out" 1
grep -q '^binding=wake ' "$SCENARIO_DIR/woke.out" || fail "the wake command did not run as 'wake': $(cat "$SCENARIO_DIR/woke.out")"
[ "$(count_lines "$SCENARIO_DIR/woke.out")" -eq 1 ] || fail "the wake command ran more than once"

clone="$SCENARIO_DIR/taps.clone.evemu"
[ "$(tracking_ids "$clone" | wc -l)" -eq 1 ] || fail "the clone got $(tracking_ids "$clone" | wc -l) contacts; expected the second tap alone"
first="$(awk '$1 == "E:" && $3 == "0003" && $4 == "0039" && $5 + 0 >= 0 { print $2; exit }' "$clone")"
note "the one contact on the clone began at ${first}s of its recording"
[ "$(contacts_left_down "$clone")" -eq 0 ] || fail "a contact was left down on the clone"
grep -q '\[kiosk/wake\] started' "$SCENARIO_DIR/daemon.log" || fail "the daemon did not log the wake command as kiosk/wake"
