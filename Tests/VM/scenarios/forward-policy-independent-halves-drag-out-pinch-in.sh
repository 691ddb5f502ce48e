# Issue 26, independent regions with forward: true. Two independent halves; a one-finger
# drag on the left (nothing bound there) while a bound pinch runs on the right. The pinch's
# command runs and none of its contacts reach the clone (evemu-record on it); the drag does,
# every frame's position, in a slot of its own.
# vm-time-limit: 120
source "$VM_TESTS/lib.sh"

command -v evemu-record > /dev/null || skip "evemu-record is not installed (Tests/VM/setup.sh)"
write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: table
    forward: true
    regions:
      - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 }, independent: true }
      - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 }, independent: true }
    bindings:
      - { gesture: pinch, direction: in, region: right, run: "@VM_TESTS@/record-firing @DIR@/fired.out" }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the config does not pass gestured check"
daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
forward_play table "$VM_TESTS/scripts/daemon/forward-halves.touch"
wait_until 10 "the pinch's command" lines_at_least "$SCENARIO_DIR/fired.out" 1
expect_lines "$SCENARIO_DIR/fired.out" "binding=pinch@right gesture=pinch fingers=2 direction=in region=right profile=table" "the bound pinch"

clone="$SCENARIO_DIR/table.clone.evemu"
[ "$(tracking_ids "$clone" | wc -l)" -eq 1 ] || fail "the clone got $(tracking_ids "$clone" | wc -l) contacts; expected the drag alone"
most="$(contact_counts "$clone" | awk '$2 > m { m = $2 } END { print m + 0 }')"
[ "$most" -eq 1 ] || fail "the clone had $most contacts down at once"
moves="$(grep -c '^E: [0-9.]* 0003 0036 ' "$clone" || true)"
[ "$moves" -ge 4 ] || fail "the clone got only $moves y positions of the drag"
[ "$(contacts_left_down "$clone")" -eq 0 ] || fail "a contact was left down on the clone"
