# Issue 4, scenario 9: every evemu recording of a real panel in ../shared/fixtures/real that
# has a device description is played into the live daemon: evemu-device makes the panel
# from the description, evemu-play writes the events into its node with their timing. The
# daemon (running actions) and `gestured monitor` (printing firings) both read every panel;
# neither may crash. For the recordings whose timing is well clear of every threshold, the
# monitor must report the same gestures, in the same order, as `gestured replay` of the
# same file.
#
# Tests/VM/prepare/ (same name) chose the recordings (and says which files it skipped and
# why), made the config, replayed them, and found which are near a threshold: `gestured
# replay` with any one threshold moved (durations by 100 ms, at most by half; distances,
# angles, pinch factors by 20 %) fires other gestures. Playing live moves timing (TCG,
# evemu-play's sleeps) and, on panels with fuzz, positions (the kernel's defuzzing); a
# recording that crosses no threshold when they move that far must not change.
#
# vm-time-limit: 480 (about 3 minutes of playback and plugging; more under load)
source "$VM_TESTS/lib.sh"

prepared="${PREPARED_DIR:-}"
[ -n "$prepared" ] && [ -f "$prepared/done" ] \
  || fail "not prepared: run it through Tests/VM/run-scenarios.sh, which runs Tests/VM/prepare/$(basename "$0") on the host first"
if [ -f "$prepared/skip" ]; then skip "$(cat "$prepared/skip")"; fi
rec="$prepared/recordings"
count="$(count_lines "$prepared/recordings.tsv")"
note "$count recordings to play; skipped $(count_lines "$prepared/skipped.txt") files:"
while IFS= read -r line; do note "  skipped $line"; done < "$prepared/skipped.txt"

daemon_start "$prepared/config.yaml"
monitor_start "$prepared/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
wait_until 30 "gestured monitor to start" grep -qs 'gestured started' "$SCENARIO_DIR/monitor.log"

# Lanes play side by side, each its recordings one after another. The longest recordings
# are dealt first, each to the lane with the least to play so far (counting 4 s a panel for
# plugging, the second after the last event, and unplugging); the first lane plays its
# longest first, the second its longest last, so that the two longest (3M: 43000 events in
# 29 s, Wacom DTH2242: 16600 in 24 s) do not play at once: the debug build's daemon and
# monitor each need about a quarter of a TCG CPU for one of them, and a starved reader is
# late for its deadlines.
lanes=2
sort -t$'\t' -k3,3 -g -r "$prepared/recordings.tsv" | awk -F'\t' -v lanes="$lanes" -v dir="$SCENARIO_DIR" '
  { best = 1; for (l = 2; l <= lanes; l++) if (load[l] < load[best]) best = l
    load[best] += $3 + 4; ids[best, ++count[best]] = $1 }
  END { for (l = 1; l <= lanes; l++) for (i = 1; i <= count[l]; i++)
    print ids[l, l % 2 == 1 ? i : count[l] + 1 - i] > (dir "/lane-" l ".ids") }'
: > "$SCENARIO_DIR/instances.txt"

# seen_at_least FILE REGEX N: at least N lines of FILE match REGEX.
seen_at_least() { [ "$(grep -cE -- "$2" "$1" 2>/dev/null || true)" -ge "$3" ]; }
# taken NODE N, let_go NODE N: the monitor and the daemon have both taken (let go) NODE
# for the N-th time.
taken() {
  seen_at_least "$SCENARIO_DIR/monitor.jsonl" "\"event\":\"added\".*\"devnode\":\"$1\"" "$2" \
    && seen_at_least "$SCENARIO_DIR/daemon.log" "^$1 '.*': profile" "$2"
}
let_go() {
  seen_at_least "$SCENARIO_DIR/monitor.jsonl" "\"event\":\"removed\".*\"devnode\":\"$1\"" "$2" \
    && seen_at_least "$SCENARIO_DIR/daemon.log" "^$1 '.*': removed" "$2"
}

# play_lane LANE: plays the lane's recordings, one panel at a time.
play_lane() {
  local lane="$1" id node instance device start
  while IFS= read -r id; do
    start=${EPOCHREALTIME/./}
    : > "$SCENARIO_DIR/lane-$lane.device"
    evemu-device "$rec/$id" > "$SCENARIO_DIR/lane-$lane.device" 2>&1 < /dev/null &
    device=$!
    wait_until 30 "evemu-device to make the panel of $id" grep -qs '/dev/input/event' "$SCENARIO_DIR/lane-$lane.device"
    node="$(grep -o '/dev/input/event[0-9]*' "$SCENARIO_DIR/lane-$lane.device" | head -n 1)"
    local created=$(ms_since "$start")
    # A node number is reused only after its panel is gone, so the instances of one node are
    # in order here, as in the monitor's and the daemon's output.
    echo "$node $id" >> "$SCENARIO_DIR/instances.txt"
    instance="$(grep -c "^$node " "$SCENARIO_DIR/instances.txt")"
    wait_until 30 "gestured monitor and the daemon to take $node ($id)" taken "$node" "$instance"
    local taken_ms=$(ms_since "$start")
    evemu-play "$node" < "$rec/$id" 2> "$SCENARIO_DIR/lane-$lane.play.log" \
      || fail "evemu-play of $id into $node failed: $(cat "$SCENARIO_DIR/lane-$lane.play.log")"
    local played=$(ms_since "$start")
    # Replay ends a recording by firing what waits for a deadline (a tap waiting 300 ms for
    # a second one); live, that needs the panel to stay until the deadline has passed: an
    # unplug cancels what is in flight.
    sleep 1
    kill "$device"
    wait "$device" 2>/dev/null || true
    wait_until 30 "gestured monitor and the daemon to let $node ($id) go" let_go "$node" "$instance"
    echo "$id: $node made at $created ms, taken at $taken_ms ms, played at $played ms, gone at $(ms_since "$start") ms"
  done < "$SCENARIO_DIR/lane-$lane.ids"
}

live_started=$SECONDS
lane_pids=()
for lane in $(seq 1 "$lanes"); do
  play_lane "$lane" > "$SCENARIO_DIR/lane-$lane.out" 2>&1 &
  lane_pids+=($!)
done
for lane in $(seq 1 "$lanes"); do
  wait "${lane_pids[$((lane - 1))]}" \
    || fail "lane $lane of the live playback failed: $(grep -h '^FAIL: ' "$SCENARIO_DIR/lane-$lane.out" | head -n 1)"
done
note "played $count recordings live in $((SECONDS - live_started)) s, $lanes at a time"

kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon crashed while the recordings played"
kill -0 "$MONITOR_PID" 2>/dev/null || fail "gestured monitor crashed while the recordings played"
stop_process "$MONITOR_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "gestured monitor exited with status $STOP_STATUS on SIGTERM, not 0"
stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"

# --- Live against replay ------------------------------------------------------------------

# The monitor's firings keyed by recording: the k-th "added" of a node is the k-th line of
# that node in instances.txt.
jq -r 'if .event == "added" then "added\t\(.devnode)"
  elif .event then empty
  else "firing\t\(.file)\t" + ([.gesture, "fingers=\(.fingers)"]
    + (if .taps then ["taps=\(.taps)"] else [] end)
    + (if .direction then ["direction=\(.direction)"] else [] end)
    + ["binding=\(.binding)"] | join(" ")) end' "$SCENARIO_DIR/monitor.jsonl" \
  | awk -F'\t' -v instances="$SCENARIO_DIR/instances.txt" '
    BEGIN { while ((getline line < instances) > 0) { split(line, f, " "); n[f[1]]++; id[f[1], n[f[1]]] = f[2] } }
    $1 == "added" { seen[$2]++; next }
    { print id[$2, seen[$2]] "\t" $3 }' > "$SCENARIO_DIR/live.txt"

# One awk for the whole comparison (each process start costs ~0.1 s under TCG).
awk -F'\t' -v out="$SCENARIO_DIR/comparison.txt" -v mismatches="$SCENARIO_DIR/mismatches.txt" '
  FILENAME ~ /recordings.tsv$/ { order[++count] = $1; description[$1] = $2; duration[$1] = $3; next }
  FILENAME ~ /replay.txt$/ { expected[$1] = expected[$1] $2 "\n"; firings[$1]++; next }
  FILENAME ~ /live.txt$/ { actual[$1] = actual[$1] $2 "\n"; next }
  FILENAME ~ /near-thresholds.tsv$/ { near[$1] = near[$1] (near[$1] == "" ? "" : ", ") $2; next }
  END {
    compared = 0
    for (i = 1; i <= count; i++) {
      id = order[i]
      same = expected[id] == actual[id]
      if (near[id] == "") {
        compared++
        verdict = same ? ("same as replay (" (firings[id] + 0) " firings)") : "DIFFERENT from replay"
        if (!same) printf "%s (description: %s):\n--- replay\n%s--- live\n%s", id, description[id], \
          (expected[id] == "" ? "(nothing)\n" : expected[id]), (actual[id] == "" ? "(nothing)\n" : actual[id]) > mismatches
      } else {
        verdict = "near " near[id] ": not compared; live " (same ? "matches" : "differs from") " replay"
      }
      printf "%s (%s s, description: %s): %s\n", id, duration[id], description[id], verdict > out
    }
    print compared > (out ".compared")
  }' "$prepared/recordings.tsv" "$prepared/replay.txt" "$SCENARIO_DIR/live.txt" "$prepared/near-thresholds.tsv"
: >> "$SCENARIO_DIR/mismatches.txt"
while IFS= read -r line; do note "$line"; done < "$SCENARIO_DIR/comparison.txt"
compared="$(cat "$SCENARIO_DIR/comparison.txt.compared")"
note "$compared of $count recordings are well clear of every threshold and were compared"

[ "$compared" -gt 0 ] || fail "no recording is well clear of the thresholds: the comparison proves nothing"
[ ! -s "$SCENARIO_DIR/mismatches.txt" ] || fail "recordings well clear of every threshold fired other gestures live than in replay:
$(cat "$SCENARIO_DIR/mismatches.txt")"
