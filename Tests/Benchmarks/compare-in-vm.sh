#!/usr/bin/env bash
# Two gestured builds compared inside the VM, one boot: each plays the stream of make
# bench-vm (40 one-finger swipes) with the swipe bound to `key: alt+left` and to bench-vm's
# command, in turn A B B A for each config, ROUNDS rounds, and lisgd once a round for scale.
# Per run: the ticks (utime + stime, /proc/PID/stat) of the launcher and the recognizer over
# the stream, both processes' CPU time in microseconds (/proc/PID/schedstat), their minor
# page faults, and their resident sets after it (VmRSS, RssFile). The summary gives each
# build's median ticks and CPU time per config, with the range. With WARM_UP=B (or A), that
# build's runs first play one swipe alone and wait a second, so that its stream is measured
# after each process's first use of the path (give both the same binary to see what the
# first use costs).
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=… [WARM_UP=B] \
#     Tests/Benchmarks/compare-in-vm.sh DIR ROUNDS BUILD_A BUILD_B
set -euo pipefail
results="$1"; rounds="$2"; build_a="$3"; build_b="$4"; warm_up="${WARM_UP:-}"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/compare-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
[ -z "$warm_up" ] || one_swipe
swipe_command_config "$SCENARIO_DIR/command.yaml"
swipe_key_config "$SCENARIO_DIR/keys.yaml"
touch_start panel create "$SCENARIO_DIR/swipes.touch"
panel=$TOUCH_DEVNODE
# Held open for the boot, as in make bench-vm: only each binary's first run reads it.
exec {held_a}<"$build_a" {held_b}<"$build_b" {held_lisgd}<"$(command -v lisgd)"

stat_field() { awk -v f="$2" '{ print $f }' "/proc/$1/stat"; }
runtime() { echo $(( $(cpu_ns "$1") / 1000 )); } # microseconds
resident() { awk '/^(VmRSS|RssFile):/ { printf "%s %s ", $1, $2 }' "/proc/$1/status"; }

: > "$results/compare-runs.txt"
run() { # LABEL BINARY CONFIG
  GESTURED="$2" daemon_ready "$SCENARIO_DIR/$3.yaml" "$panel"
  local launcher=$DAEMON_PID recognizer t0 t1 r0 r1 c0 c1 f0 f1 g0 g1
  recognizer=$(reader_of "$DAEMON_PID")
  if [ "$1" = "$warm_up" ]; then
    inject "$panel" "$SCENARIO_DIR/one.evemu"
    sleep 1
  fi
  t0=$(ticks_of "$launcher"); r0=$(ticks_of "$recognizer")
  c0=$(( $(runtime "$launcher") + $(runtime "$recognizer") ))
  f0=$(stat_field "$launcher" 10); g0=$(stat_field "$recognizer" 10)
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  t1=$(ticks_of "$launcher"); r1=$(ticks_of "$recognizer")
  c1=$(( $(runtime "$launcher") + $(runtime "$recognizer") ))
  f1=$(stat_field "$launcher" 10); g1=$(stat_field "$recognizer" 10)
  echo "$1 $3 total $((t1 - t0 + r1 - r0)) launcher $((t1 - t0)) recognizer $((r1 - r0)) cpu-us $((c1 - c0))" \
    "faults $((f1 - f0)) $((g1 - g0)) launcher-rss $(resident "$launcher")recognizer-rss $(resident "$recognizer")" \
    | tee -a "$results/compare-runs.txt"
  daemon_stop
}
lisgd_run() {
  : > "$SCENARIO_DIR/lisgd.out"
  lisgd_start /dev/null
  local pid=$lisgd_pid t0 c0
  sleep 1
  t0=$(ticks_of "$pid"); c0=$(runtime "$pid")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  echo "lisgd command total $(( $(ticks_of "$pid") - t0 )) cpu-us $(( $(runtime "$pid") - c0 ))" \
    | tee -a "$results/compare-runs.txt"
  kill "$pid"; wait "$pid" 2>/dev/null || true
}
for round in $(seq 1 "$rounds"); do
  for config in keys command; do
    run A "$build_a" "$config"; run B "$build_b" "$config"
    run B "$build_b" "$config"; run A "$build_a" "$config"
  done
  lisgd_run
done

awk "$AWK_MEDIAN"'$3 == "total" {
    key = $1 " " $2; n[key]++; v[key, n[key]] = $4
    for (i = 5; i < NF; i++) if ($i == "cpu-us") c[key, n[key]] = $(i + 1)
  }
  END {
    for (key in n) {
      m = n[key]
      for (i = 1; i <= m; i++) { tv[i] = v[key, i]; tc[i] = c[key, i] }
      median_ticks = median(tv, m); median_cpu = median(tc, m)
      printf "%s: median %s ticks over %d runs (%d to %d); CPU median %.1f ms (%.1f to %.1f)\n", key, median_ticks, m, tv[1], tv[m], median_cpu / 1000, tc[1] / 1000, tc[m] / 1000
    }
  }' "$results/compare-runs.txt" | sort | tee "$results/compare-summary.txt"
chmod -R a+rX "$results"
