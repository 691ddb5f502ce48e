# Host-side preparation of the scenario of the same name (Tests/VM/scenarios): the part
# that needs no kernel, done on the host because under TCG `gestured replay` of all the
# recordings takes 14 s, and it runs 27 times here (0.5 s each on the host).
# Tests/VM/run-scenarios.sh runs it before booting the VM, with GESTURED, VM_TESTS and
# SCENARIO_DIR (the directory the scenario later reads as PREPARED_DIR).
#
# Writes:
#   recordings/ID          each recording to play, with its device description
#   recordings.tsv         ID <tab> where the description comes from <tab> duration (s)
#   skipped.txt            each file of the folder not played, and why
#   config.yaml            one profile per device name, every gesture bound
#   replay.txt             `gestured replay` of every recording: ID <tab> gesture, reduced
#   near-thresholds.tsv    ID <tab> a moved threshold that changes its replay
#   skip                   instead of the rest, when there are no recordings (the reason)
#
# Which recordings: a file with a description and events plays as it is; a file of events
# alone plays on the description beside it whose name is a prefix of its own (N-Trig's
# ntrig-xt2-1-tap.event on ntrig-xt2.device, Wacom_ISDv4_E6_Finger.*.events on
# Wacom_ISDv4_E6_Finger.desc, as SOURCES.md pairs them). Skipped, and listed: Android
# getevent traces and umockdev dumps (not evemu, no description), description-only files,
# and anything else that is not a recording.
#
# "Well clear of every threshold": `gestured replay` with each threshold moved on its own,
# down and up (durations by 100 ms but at most by half, so finger-landing 100 ms becomes 50
# and 200 ms; distances, angles and the pinch factors' distance from 1 by 20 %), gives the
# same gestures as with the defaults.
source "$VM_TESTS/lib.sh"

root="$(cd "$VM_TESTS/../.." && pwd)"
fixtures="$root/../shared/fixtures/real"
if [ ! -d "$fixtures" ]; then
  echo "no real recordings: $fixtures is absent (CI puts shared/ beside the work tree)" > "$SCENARIO_DIR/skip"
  exit 0
fi
fixtures="$(cd "$fixtures" && pwd)"
rec="$SCENARIO_DIR/recordings"
mkdir -p "$rec"

# --- Which recordings ----------------------------------------------------------------------

: > "$SCENARIO_DIR/recordings.tsv"
: > "$SCENARIO_DIR/skipped.txt"
skipped() { printf '%s: %s\n' "$1" "$2" >> "$SCENARIO_DIR/skipped.txt"; }
while IFS= read -r -d '' file; do
  relative="${file#"$fixtures"/}"
  case "$relative" in
    android-getevent/*) skipped "$relative" "Android getevent trace: not evemu, no device description"; continue ;;
    mir/*) skipped "$relative" "umockdev recording: not evemu"; continue ;;
    *.md) skipped "$relative" "documentation"; continue ;;
  esac
  descriptions="$(grep -c '^N:' "$file" || true)" events="$(grep -c '^E:' "$file" || true)"
  if [ "$events" -eq 0 ]; then
    skipped "$relative" "$([ "$descriptions" -gt 0 ] && echo "description only, no events" || echo "neither description nor events")"
    continue
  fi
  id="${relative//\//_}"
  if [ "$descriptions" -gt 0 ]; then
    cp "$file" "$rec/$id"
    description="its own"
  else
    # Events alone: the longest description file in the same folder whose name (without
    # its extension) begins this file's name.
    description=""
    for candidate in "$(dirname "$file")"/*.desc "$(dirname "$file")"/*.device "$(dirname "$file")"/*.prop; do
      [ -f "$candidate" ] || continue
      stem="$(basename "$candidate")"
      stem="${stem%.*}"
      case "$(basename "$file")" in
        "$stem".* | "$stem"-*) if [ "${#stem}" -gt "${#description}" ]; then description="$candidate"; fi ;;
      esac
    done
    if [ -z "$description" ]; then
      skipped "$relative" "events without a device description"
      continue
    fi
    cat "$description" "$file" > "$rec/$id"
    description="${description#"$fixtures"/}"
  fi
  duration="$(awk '/^E: / { if (first == "") first = $2; last = $2 } END { printf "%.2f", last - first }' "$rec/$id")"
  printf '%s\t%s\t%s\n' "$id" "$description" "$duration" >> "$SCENARIO_DIR/recordings.tsv"
done < <(find "$fixtures" -type f -print0 | sort -z)

if [ "$(count_lines "$SCENARIO_DIR/recordings.tsv")" -eq 0 ]; then
  echo "no recording with a device description in $fixtures" > "$SCENARIO_DIR/skip"
  exit 0
fi

# --- The config: one profile per device name, every gesture bound -----------------------

# A profile matching each panel by its exact name, so that panels udev calls something
# else than a touchscreen (no INPUT_PROP_DIRECT, BTN_LEFT, pen bits) are taken too, alike
# live and in replay.
cut -f1 "$SCENARIO_DIR/recordings.tsv" | while IFS= read -r id; do
  sed -n 's/^N: //p' "$rec/$id" | head -n 1
done | sort -u > "$SCENARIO_DIR/device-names.txt"

# recordings_config [THRESHOLD]: the config, with one threshold set ("tap-slop: 2.4mm").
recordings_config() {
  if [ -n "${1:-}" ]; then echo "thresholds: { $1 }"; fi
  echo "devices:"
  local number=0 name glob
  while IFS= read -r name; do
    number=$((number + 1))
    # The name as a glob matching only itself, in a single-quoted YAML string.
    glob="$(printf '%s' "$name" | sed -e 's/[][*?\\]/\\&/g' -e "s/'/''/g")"
    echo "  - name: recorded-$number"
    echo "    match: { name: '$glob' }"
    if [ "$number" -gt 1 ]; then
      echo "    bindings: *every-gesture"
      continue
    fi
    echo "    bindings: &every-gesture"
    local fingers direction
    for fingers in 1 2 3 4 5; do echo "      - { gesture: tap, fingers: $fingers, name: tap-$fingers, run: \"true\" }"; done
    for fingers in 1 2; do
      echo "      - { gesture: tap, taps: 2, fingers: $fingers, name: double-tap-$fingers, run: \"true\" }"
      echo "      - { gesture: long-press, fingers: $fingers, name: long-press-$fingers, run: \"true\" }"
    done
    for fingers in 1 2 3 4; do
      for direction in up down left right; do
        echo "      - { gesture: swipe, direction: $direction, fingers: $fingers, name: swipe-$direction-$fingers, run: \"true\" }"
      done
    done
    for direction in in out; do echo "      - { gesture: pinch, direction: $direction, name: pinch-$direction, run: \"true\" }"; done
    for direction in clockwise counterclockwise; do
      echo "      - { gesture: rotate, direction: $direction, name: rotate-$direction, run: \"true\" }"
    done
  done < "$SCENARIO_DIR/device-names.txt"
}
recordings_config > "$SCENARIO_DIR/config.yaml"
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null 2> "$SCENARIO_DIR/check.log" \
  || fail "the generated config does not pass gestured check: $(cat "$SCENARIO_DIR/check.log")"

# --- Replay, and which recordings are well clear of the thresholds -----------------------

recordings=()
while IFS=$'\t' read -r id _ _; do recordings+=("$rec/$id"); done < "$SCENARIO_DIR/recordings.tsv"

# replay_all CONFIG NAME: replays every recording with CONFIG into NAME.jsonl, reduced into
# NAME.txt: "ID<tab>gesture fingers=N [taps=N] [direction=D] binding=B" (what live must
# repeat; not the time, nor x/y, scale and angle, which the kernel's defuzzing may nudge).
replay_all() {
  "$GESTURED" replay --config "$1" "${recordings[@]}" > "$SCENARIO_DIR/$2.jsonl" 2> "$SCENARIO_DIR/$2.replay.log" \
    || fail "gestured replay ($2) exited with status $?: $(head -c 2000 "$SCENARIO_DIR/$2.replay.log")"
  jq -r '[(.file | split("/") | last), ([.gesture, "fingers=\(.fingers)"]
    + (if .taps then ["taps=\(.taps)"] else [] end)
    + (if .direction then ["direction=\(.direction)"] else [] end)
    + ["binding=\(.binding)"] | join(" "))] | join("\t")' "$SCENARIO_DIR/$2.jsonl" > "$SCENARIO_DIR/$2.txt"
}

replay_all "$SCENARIO_DIR/config.yaml" replay
perturbations=(
  "tap-slop: 2.4mm" "tap-slop: 3.6mm"
  "tap-max-duration: 200ms" "tap-max-duration: 400ms"
  "multi-tap-gap: 200ms" "multi-tap-gap: 400ms"
  "multi-tap-distance: 8mm" "multi-tap-distance: 12mm"
  "long-press: 400ms" "long-press: 600ms"
  "finger-landing: 50ms" "finger-landing: 200ms"
  "swipe-min-distance: 16mm" "swipe-min-distance: 24mm"
  "swipe-max-duration: 700ms" "swipe-max-duration: 900ms"
  "swipe-angle: 20deg" "swipe-angle: 30deg"
  "pinch-in: 0.76" "pinch-in: 0.84"
  "pinch-out: 1.2" "pinch-out: 1.3"
  "rotate-angle: 12deg" "rotate-angle: 18deg"
  "stuck-contact: 29900ms" "stuck-contact: 30100ms"
)
# (edge-width: no binding here has an edge.)
: > "$SCENARIO_DIR/near-thresholds.tsv"
for perturbation in "${perturbations[@]}"; do
  recordings_config "$perturbation" > "$SCENARIO_DIR/perturbed.yaml"
  replay_all "$SCENARIO_DIR/perturbed.yaml" perturbed
  # Each recording whose gestures differ, with the threshold that made the difference.
  awk -F'\t' -v what="$perturbation" '
    FNR == 1 { part++ }
    { lines[part, $1] = lines[part, $1] "|" $2; ids[$1] = 1 }
    END { for (id in ids) if (lines[1, id] != lines[2, id]) print id "\t" what }
  ' "$SCENARIO_DIR/replay.txt" "$SCENARIO_DIR/perturbed.txt" >> "$SCENARIO_DIR/near-thresholds.tsv"
done
rm -f "$SCENARIO_DIR/perturbed".*
echo "${#perturbations[@]}" > "$SCENARIO_DIR/perturbation-count"
