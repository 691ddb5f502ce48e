#!/usr/bin/env bash
# Inside the VM: bench-vm's RSS step (live-in-vm.sh) for several gestured binaries in turn,
# to compare builds in one boot. Two panels (gestured-touch create), the taps config; each
# binary is started three times and the third measured (its pages are in the page cache
# then), 2 s after READY=1 and after the 40 swipes on one panel, of the launcher and of the
# recognizer when there are two: VmRSS, RssAnon, RssFile
# and the page faults (rss.txt), KiB resident by mapping (smaps) and the binary's pages by
# ELF section (pagemap-sections.py). ROUNDS rounds of all the binaries.
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=... \
#     Tests/Benchmarks/rss-in-vm.sh DIR ROUNDS BINARY...
set -euo pipefail
results="$1"; rounds="$2"; shift 2
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/rss-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"
bench_stream
script="$SCENARIO_DIR/swipes.touch"
taps="$SCENARIO_DIR/taps.touch"
taps_touch "$taps" 200 200 400
taps_config "$SCENARIO_DIR/taps.yaml"
touch_start first create "$taps"
first_pid=$TOUCH_PID
touch_start second create "$script"
second=$TOUCH_DEVNODE
second_pid=$TOUCH_PID
echo "vm: kernel $(uname -r), fault_around_bytes $(cat /sys/kernel/debug/fault_around_bytes 2>/dev/null || echo '?')"

rss_line() {
  awk '/^(VmRSS|RssAnon|RssFile|VmHWM|Threads):/ { printf "%s %s ", $1, $2 }' "/proc/$1/status"
  awk '{ printf "minflt %s majflt %s", $10, $12 }' "/proc/$1/stat"
  echo
}
by_mapping() {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 != "" ? $6 : "[anonymous]") } /^Rss:/ { rss[name] += $2 }
    END { for (n in rss) print rss[n], n }' "/proc/$1/smaps" | sort -rn
}
for round in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    tag="$(basename "$bin").r$round"
    for run in 1 2 3; do
      read -r us pid < <(start_until_ready "$bin" --config "$SCENARIO_DIR/taps.yaml")
      if [ "$run" -lt 3 ]; then stop_process "$pid" 10; fi
    done
    sleep 2
    echo "$tag start: $(rss_line "$pid") (ready after $us us, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$results/rss.txt"
    recognizer=$(reader_of "$pid")
    if [ "$recognizer" != "$pid" ]; then
      echo "$tag recognizer start: $(rss_line "$recognizer")" | tee -a "$results/rss.txt"
    fi
    by_mapping "$pid" > "$results/$tag.start.maps"
    python3 "$here/pagemap-sections.py" "$pid" "$bin" "$results/$tag.start.pages" > "$results/$tag.start.sections"
    inject "$second" "$SCENARIO_DIR/swipes.evemu"
    sleep 2
    echo "$tag after: $(rss_line "$pid")" | tee -a "$results/rss.txt"
    if [ "$recognizer" != "$pid" ]; then
      echo "$tag recognizer after: $(rss_line "$recognizer")" | tee -a "$results/rss.txt"
      by_mapping "$recognizer" > "$results/$tag.recognizer.after.maps"
    fi
    by_mapping "$pid" > "$results/$tag.after.maps"
    python3 "$here/pagemap-sections.py" "$pid" "$bin" "$results/$tag.after.pages" > "$results/$tag.after.sections"
    cp "/proc/$pid/maps" "$results/$tag.procmaps"
    stop_process "$pid" 10
  done
done
kill "$first_pid" "$second_pid" 2>/dev/null || true
wait "$first_pid" "$second_pid" 2>/dev/null || true
