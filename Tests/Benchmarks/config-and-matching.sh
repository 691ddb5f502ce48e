#!/bin/sh
# make bench: the figures docs/testing.md#benchmarks quotes, measured on the release binary.
#   - `gestured check` on a valid config at the 4 MiB size cap (22 000 device entries), on a
#     40 000-key map and on a 40 000-item list (sizes where a tree builder that copies goes quadratic);
#   - `gestured replay` of a protocol A recording with 64 contacts in every frame (the most a
#     frame holds), per frame, against the same frames with one contact, and with 64 contacts
#     jumping anywhere every frame.
# Usage: Tests/Benchmarks/config-and-matching.sh GESTURED WORKDIR
set -eu
gestured=$1
work=$2
mkdir -p "$work"

seconds() { # the wall time of a command, in seconds, its output dropped
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1 || true
  end=$(date +%s%N)
  echo "$(( (end - start) / 1000000 ))" | awk '{ printf "%.3f", $1 / 1000 }'
}

awk 'BEGIN {
  print "devices:"
  for (n = 0; size < 4194000; n++) {
    entry = sprintf("  - name: p%d\n    match: { name: \"panel %d\" }\n    bindings:\n      - { gesture: tap, taps: 2, run: \"echo hello %d\" }\n      - { gesture: swipe, direction: left, run: \"echo swipe\" }\n", n, n, n)
    size += length(entry)
    if (size >= 4194000) break
    printf "%s", entry
  }
  print "  - name: last\n    bindings:\n      - { gesture: tap, run: a }"
}' > "$work/4mb.yaml"
awk 'BEGIN { print "bindings:\n  - { gesture: tap, run: a }\nx:"; for (i = 0; i < 40000; i++) printf "  k%d: v\n", i }' > "$work/map.yaml"
awk 'BEGIN { print "bindings:\n  - { gesture: tap, run: a }\nx:"; for (i = 0; i < 40000; i++) print "  - 1" }' > "$work/list.yaml"

# Protocol A: ABS_MT_POSITION_X/Y only, contacts as a grid drifting right by 2 units a frame,
# or (jump=1) every contact anywhere in a 3000-unit square each frame, the matcher's worst.
recording() { # contacts frames [jump]
  awk -v contacts="$1" -v frames="$2" -v jump="${3:-0}" 'BEGIN {
    srand(7)
    print "# EVEMU 1.3\nN: bench protocol A\nI: 0003 1234 5678 0001\nP: 02 00 00 00 00 00 00 00"
    print "B: 00 0b 00 00 00 00 00 00 00"
    for (i = 0; i < 12; i++) print (i == 5 ? "B: 01 00 04 00 00 00 00 00 00" : "B: 01 00 00 00 00 00 00 00 00")
    print "B: 03 00 00 00 00 00 00 60 00"
    print "A: 35 0 32767 0 0 128\nA: 36 0 18431 0 0 128"
    for (f = 0; f < frames; f++) {
      t = sprintf("%d.%06d", 1 + int(f / 100), (f % 100) * 10000)
      for (c = 0; c < contacts; c++) {
        x = jump ? 10000 + int(rand() * 3000) : 1000 + (c % 8) * 3000 + 2 * f
        y = jump ? 8000 + int(rand() * 3000) : 1000 + int(c / 8) * 2000
        printf "E: %s 0003 0035 %04d\nE: %s 0003 0036 %04d\nE: %s 0000 0002 0000\n", t, x, t, y, t
      }
      printf "E: %s 0000 0000 0000\n", t
    }
  }'
}
frames=2000
recording 64 $frames > "$work/a64.evemu"
recording 1 $frames > "$work/a1.evemu"
recording 64 $frames 1 > "$work/a64-jumping.evemu"
printf 'bindings:\n  - { gesture: tap, run: "true" }\n' > "$work/replay.yaml"

echo "bench: gestured check, $(wc -c < "$work/4mb.yaml") bytes, 22000 device entries: $(seconds "$gestured" check --config "$work/4mb.yaml") s"
echo "bench: gestured check, 40000-key map ($(wc -c < "$work/map.yaml") bytes): $(seconds "$gestured" check --config "$work/map.yaml") s"
echo "bench: gestured check, 40000-item list ($(wc -c < "$work/list.yaml") bytes): $(seconds "$gestured" check --config "$work/list.yaml") s"
t64=$(seconds "$gestured" replay --config "$work/replay.yaml" "$work/a64.evemu")
t1=$(seconds "$gestured" replay --config "$work/replay.yaml" "$work/a1.evemu")
tj=$(seconds "$gestured" replay --config "$work/replay.yaml" "$work/a64-jumping.evemu")
echo "bench: replay, protocol A, $frames frames: 64 contacts $t64 s, 1 contact $t1 s;" \
  "$(echo "$t64 $t1 $frames" | awk '{ printf "%.1f", ($1 - $2) * 1e6 / $3 }') µs a frame for 63 more contacts (reading included)"
echo "bench: replay, protocol A, $frames frames of 64 contacts jumping anywhere: $tj s," \
  "$(echo "$tj $frames" | awk '{ printf "%.1f", $1 * 1e6 / $2 }') µs a frame (reading and recognizers included)"
