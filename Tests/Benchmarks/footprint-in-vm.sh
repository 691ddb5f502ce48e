#!/usr/bin/env bash
# The pages one swipe touches, inside the VM, one boot: gestured with bench-vm's `key:
# alt+left` binding and with its command; after two swipes played to warm up, each
# process's pages are marked unreferenced (/proc/PID/clear_refs), one more swipe is played,
# and the pages it referenced are counted per mapping (/proc/PID/smaps, Referenced): the
# executable's code (r-xp), its read-only data (r--p, the type metadata among it), its
# writable data (rw-p) and the heap: what the link order (make link-order) places together.
# Shared libraries are left out: their pages are the whole system's, and a page another
# process referenced counts here too. Each build in turn, A B B A.
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=… \
#     Tests/Benchmarks/footprint-in-vm.sh DIR BUILD_A BUILD_B
# DIR/footprint-runs.txt: one line per process and run; footprint-summary.txt: the medians.
set -euo pipefail
results="$1"; build_a="$2"; build_b="$3"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/footprint-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

one_swipe
swipe_key_config "$SCENARIO_DIR/keys.yaml"
swipe_command_config "$SCENARIO_DIR/command.yaml"
touch_start panel create "$SCENARIO_DIR/one.touch"
panel=$TOUCH_DEVNODE
exec {held_a}<"$build_a" {held_b}<"$build_b"

# referenced PID EXECUTABLE: KiB referenced in the executable's code, read-only data and
# writable data, then the heap.
referenced() {
  awk -v exe="$2" '
    /^[0-9a-f]+-[0-9a-f]+ / { name = $6; perm = $2; next }
    /^Referenced:/ {
      if (name == exe && perm == "r-xp") code += $2
      else if (name == exe && perm == "r--p") rodata += $2
      else if (name == exe && perm == "rw-p") data += $2
      else if (name == "[heap]") heap += $2
    }
    END { printf "code-kib %d rodata-kib %d data-kib %d heap-kib %d\n", code, rodata, data, heap }' "/proc/$1/smaps"
}

: > "$results/footprint-runs.txt"
run() { # LABEL BUILD CONFIG
  GESTURED="$2" daemon_ready "$SCENARIO_DIR/$3.yaml" "$panel"
  local launcher=$DAEMON_PID recognizer executable
  recognizer=$(reader_of "$DAEMON_PID")
  executable=$(readlink -f "$2") # as smaps names it
  inject "$panel" "$SCENARIO_DIR/one.evemu"; sleep 0.5
  inject "$panel" "$SCENARIO_DIR/one.evemu"; sleep 0.5
  echo 1 > "/proc/$launcher/clear_refs"
  echo 1 > "/proc/$recognizer/clear_refs"
  inject "$panel" "$SCENARIO_DIR/one.evemu"; sleep 0.5
  echo "$1 $3 launcher $(referenced "$launcher" "$executable")" | tee -a "$results/footprint-runs.txt"
  echo "$1 $3 recognizer $(referenced "$recognizer" "$executable")" | tee -a "$results/footprint-runs.txt"
  daemon_stop
}
for config in keys command; do
  run A "$build_a" "$config"; run B "$build_b" "$config"
  run B "$build_b" "$config"; run A "$build_a" "$config"
done

awk "$AWK_MEDIAN"'
  { key = $1 " " $2 " " $3; n[key]++; code[key, n[key]] = $5; ro[key, n[key]] = $7; rw[key, n[key]] = $9; hp[key, n[key]] = $11 }
  END {
    for (key in n) {
      m = n[key]
      for (i = 1; i <= m; i++) { a[i] = code[key, i]; b[i] = ro[key, i]; c[i] = rw[key, i]; d[i] = hp[key, i] }
      printf "%s: code %d pages, read-only data %d, writable data %d, heap %d (medians of %d runs)\n",
        key, median(a, m) / 4, median(b, m) / 4, median(c, m) / 4, median(d, m) / 4, m
    }
  }' "$results/footprint-runs.txt" | sort | tee "$results/footprint-summary.txt"
chmod -R a+rX "$results"
