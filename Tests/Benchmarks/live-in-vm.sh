#!/usr/bin/env bash
# make bench-vm, inside the VM: gestured and lisgd alternately on the same virtual panel,
# the same stream of 40 one-finger swipes (220 ms each, 100 ms apart), CPU ticks
# (utime+stime, /proc/PID/stat) of each daemon during the stream; then the system calls of
# one gestured run (strace -f -c, when strace is there) and its threads' context switches.
#
#   live-in-vm.sh RESULTS RUNS
# Needs GESTURED and GESTURED_TOUCH in the environment; lisgd from Debian on the host.
set -euo pipefail
results="$1"
runs="${2:-3}"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/bench-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"

script="$SCENARIO_DIR/swipes.touch"
{
  echo 'panel mt-b name="Bench Swipe Panel" x=0..4095 y=0..4095 resolution=16 slots=10'
  echo 'rate 100hz'
  for i in $(seq 0 39); do
    echo "swipe at=$((200 + i * 320))ms from=0.2,0.5 by=120mm,0 duration=220ms"
  done
} > "$script"
"$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/swipes.evemu" || fail "gestured-touch record failed"
write_config "$SCENARIO_DIR/gestured.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "echo R >> @DIR@/gestured.out" }
YAML

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
switches() {
  local total=0 task n
  for task in /proc/"$1"/task/*; do
    n=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$task/status")
    total=$((total + n))
  done
  echo "$total"
}

touch_start panel create "$script"
panel=$TOUCH_DEVNODE
echo "vm: kernel $(uname -r), $(nproc) CPUs, panel $panel, $runs runs each"

measure() { # NAME PID: ticks and switches over one stream
  local name="$1" pid="$2" t0 t1 s0 s1
  sleep 1
  t0=$(ticks "$pid"); s0=$(switches "$pid")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  t1=$(ticks "$pid"); s1=$(switches "$pid")
  echo "$name $((t1 - t0)) $((s1 - s0))" | tee -a "$results/live-runs.txt"
}

: > "$results/live-runs.txt"
for run in $(seq 1 "$runs"); do
  : > "$SCENARIO_DIR/gestured.out"
  daemon_start "$SCENARIO_DIR/gestured.yaml"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  wait_until 30 "gestured to take the panel" grep -qs "^$panel '.*': profile" "$SCENARIO_DIR/daemon.log"
  measure gestured "$DAEMON_PID"
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
  echo "gestured run $run fired $(count_lines "$SCENARIO_DIR/gestured.out") of 40" | tee -a "$results/live-runs.txt"

  : > "$SCENARIO_DIR/lisgd.out"
  lisgd -d "$panel" -w 800 -h 800 -g "1,LR,*,*,R,echo R >> $SCENARIO_DIR/lisgd.out" \
    > "$SCENARIO_DIR/lisgd.log" 2>&1 &
  lisgd_pid=$!
  measure lisgd "$lisgd_pid"
  kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
  echo "lisgd run $run fired $(count_lines "$SCENARIO_DIR/lisgd.out") of 40" | tee -a "$results/live-runs.txt"
done

if command -v strace > /dev/null; then
  daemon_start "$SCENARIO_DIR/gestured.yaml"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  sleep 1
  strace -f -c -o "$results/strace-gestured.txt" -p "$DAEMON_PID" &
  strace_pid=$!
  sleep 1
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  kill -INT "$strace_pid"; wait "$strace_pid" 2>/dev/null || true
  stop_process "$DAEMON_PID" 10
  frames=$(grep -c 'SYN_REPORT' "$SCENARIO_DIR/swipes.evemu")
  echo "strace: $frames frames in the stream" >> "$results/strace-gestured.txt"
else
  echo "strace: not in the guest; system calls not counted" > "$results/strace-gestured.txt"
fi
kill "$TOUCH_PID" 2>/dev/null || true

# The figure: median ticks of each, their ratio, and the ratio run by run (ticks under TCG
# vary by 2x from run to run; alternating runs share the drift).
awk '
  $1 == "gestured" && NF == 3 { g[++ng] = $2 }
  $1 == "lisgd" && NF == 3 { l[++nl] = $2 }
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  END {
    pairs = ""
    for (i = 1; i <= ng && i <= nl; i++) pairs = pairs sprintf(" %d/%d", g[i], l[i])
    mg = median(g, ng); ml = median(l, nl)
    printf "live: gestured %s ticks, lisgd %s ticks (medians of %d runs; pairs%s); ratio %.2f\n", mg, ml, ng, pairs, (ml > 0 ? mg / ml : -1)
  }' "$results/live-runs.txt" | tee "$results/live-summary.txt"
