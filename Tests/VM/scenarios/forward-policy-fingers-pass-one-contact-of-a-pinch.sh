# Issue 26, forward-fingers. A forwarded panel with `forward-fingers: 1` and only a corner
# tap bound: an unbound two-finger pinch reaches the clone (evemu-record on it) as one
# contact, the first to land, with its moves; the second never appears, not even after the
# first lifts. The drag after it, landing with nothing forwarded down, goes out whole.
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: kiosk
    forward: true
    forward-fingers: 1
    regions:
      - { name: corner, area: { x: 0, y: 0, width: 0.1, height: 0.15 } }
    bindings:
      - { gesture: tap, taps: 3, region: corner, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the config does not pass gestured check"
daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
forward_play pinch "$VM_TESTS/scripts/daemon/forward-pinch.touch"

clone="$SCENARIO_DIR/pinch.clone.evemu"
ids="$(tracking_ids "$clone" | tr '\n' ' ')"
[ "$(tracking_ids "$clone" | wc -l)" -eq 2 ] || fail "the clone got contacts $ids; expected the pinch's first and the drag"
most="$(contact_counts "$clone" | awk '$2 > m { m = $2 } END { print m + 0 }')"
[ "$most" -eq 1 ] || fail "the clone had $most contacts down at once; forward-fingers is 1"
moves="$(grep -c '^E: [0-9.]* 0003 0035 ' "$clone" || true)"
[ "$moves" -ge 20 ] || fail "the clone got only $moves x positions: the pinch's first finger and the drag should move"
[ "$(contacts_left_down "$clone")" -eq 0 ] || fail "a contact was left down on the clone"
note "clone contacts: $ids; $moves x positions"
