#!/usr/bin/env bash
# What a new daemon's first swipe costs against its later ones, inside the VM, one boot:
# gestured with bench-vm's `key: alt+left` binding, started anew for each run; per run the
# CPU time (/proc/PID/schedstat, launcher and recognizer apart) of one swipe played alone,
# then of bench-vm's stream of 40 swipes. Each run is started either as is ("random": the
# kernel places the executable and its libraries at new addresses, as at every start) or
# under `setarch -R` ("fixed": the same addresses as the previous fixed run), in turn
# random fixed fixed random, ROUNDS times. Under TCG a new process's code is translated
# again wherever it lies at addresses the emulator has not run before.
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=… \
#     Tests/Benchmarks/first-swipe-in-vm.sh DIR ROUNDS GESTURED
# RESULTS/first-swipe-runs.txt: one line per run; first-swipe-summary.txt: the medians.
set -euo pipefail
results="$1"; rounds="$2"; build="$3"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/first-swipe-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
one_swipe
swipe_key_config "$SCENARIO_DIR/keys.yaml"
touch_start panel create "$SCENARIO_DIR/swipes.touch"
panel=$TOUCH_DEVNODE
# Held open for the boot, as in make bench-vm: only the first run reads it.
exec {held}<"$build"
# The fixed runs' start: setarch execs gestured, which keeps the wrapper's pid.
fixed="$SCENARIO_DIR/fixed-addresses"
printf '#!/bin/sh\nexec setarch "$(uname -m)" -R %q "$@"\n' "$build" > "$fixed"
chmod +x "$fixed"

runtime() { echo $(( $(cpu_ns "$1") / 1000 )); } # microseconds
: > "$results/first-swipe-runs.txt"
run() { # LABEL START
  GESTURED="$2" daemon_ready "$SCENARIO_DIR/keys.yaml" "$panel"
  local launcher=$DAEMON_PID recognizer l0 r0 l1 r1 l2 r2
  recognizer=$(reader_of "$DAEMON_PID")
  [ "$recognizer" != "$launcher" ] || fail "no recognizer under the launcher"
  l0=$(runtime "$launcher"); r0=$(runtime "$recognizer")
  inject "$panel" "$SCENARIO_DIR/one.evemu"
  sleep 0.3
  l1=$(runtime "$launcher"); r1=$(runtime "$recognizer")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  l2=$(runtime "$launcher"); r2=$(runtime "$recognizer")
  echo "$1 first-swipe-us $((l1 - l0 + r1 - r0)) launcher $((l1 - l0)) recognizer $((r1 - r0))" \
    "stream-us $((l2 - l1 + r2 - r1)) per-swipe-us $(( (l2 - l1 + r2 - r1) / 40 ))" \
    | tee -a "$results/first-swipe-runs.txt"
  daemon_stop
}
for round in $(seq 1 "$rounds"); do
  run random "$build"; run fixed "$fixed"; run fixed "$fixed"; run random "$build"
done

# The first fixed run translates the code at its addresses for the later ones: not counted.
awk "$AWK_MEDIAN"'
  $1 == "fixed" && !seen++ { next }
  { n[$1]++; f[$1, n[$1]] = $3; s[$1, n[$1]] = $11 }
  END {
    for (label in n) {
      m = n[label]
      for (i = 1; i <= m; i++) { a[i] = f[label, i]; b[i] = s[label, i] }
      printf "%s: first swipe median %.1f ms (%.1f to %.1f), a swipe of the stream after it median %.1f ms, %d runs\n",
        label, median(a, m) / 1000, a[1] / 1000, a[m] / 1000, median(b, m) / 1000, m
    }
  }' "$results/first-swipe-runs.txt" | sort | tee "$results/first-swipe-summary.txt"
chmod -R a+rX "$results"
