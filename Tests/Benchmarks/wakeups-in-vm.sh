#!/usr/bin/env bash
# make bench-vm-wakeups, inside the VM, one boot: what each wake-up of a swipe costs.
#
# 1. Timelines: gestured (a swipe bound to `key: alt+left`, then to bench-vm's command) and
#    lisgd play 10 one-finger swipes of bench-vm's kind while tracefs records their context
#    switches and system calls (sched_switch, raw_syscalls, for their pids only; children
#    such as the commands are left out, as in bench-vm's count). wakeups-report.py splits
#    each process's time on the CPU into user space and each system call, per swipe. The
#    same 10 swipes untraced first give each process's CPU time by the scheduler's count
#    (/proc/PID/schedstat), so that the tracing's own cost can be told.
# 2. Placement: the ticks over bench-vm's stream (40 swipes) of gestured with keys and of
#    lisgd, with the daemon and the player (evemu-play, which stands for the panel) on
#    chosen vCPUs: the same one, or apart.
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED=… GESTURED_TOUCH=… \
#     Tests/Benchmarks/wakeups-in-vm.sh DIR
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/wakeups-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"
report="$(dirname "$0")/wakeups-report.py"

bench_stream
swipes_touch "$SCENARIO_DIR/ten.touch" 10 200 400
"$GESTURED_TOUCH" record "$SCENARIO_DIR/ten.touch" -o "$SCENARIO_DIR/ten.evemu" \
  || fail "gestured-touch record failed"
swipe_command_config "$SCENARIO_DIR/command.yaml"
swipe_key_config "$SCENARIO_DIR/keys.yaml"
touch_start panel create "$SCENARIO_DIR/swipes.touch"
panel=$TOUCH_DEVNODE
exec {held}<"$GESTURED" {held_lisgd}<"$(command -v lisgd)"

tracing=/sys/kernel/tracing
[ -d "$tracing/events" ] || mount -t tracefs nodev "$tracing"
echo mono > "$tracing/trace_clock"
echo 8192 > "$tracing/buffer_size_kb"
events="raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch"

# traced LABEL PIDS...: the 10 swipes, untraced and then traced, for these processes.
traced() {
  local label=$1 event before after pid
  shift
  before=0; for pid in "$@"; do before=$((before + $(cpu_ns "$pid"))); done
  inject "$panel" "$SCENARIO_DIR/ten.evemu"
  sleep 0.5
  after=0; for pid in "$@"; do after=$((after + $(cpu_ns "$pid"))); done
  echo "$label untraced $(((after - before) / 1000))" >> "$results/untraced.txt"
  echo 0 > "$tracing/tracing_on"
  echo > "$tracing/trace"
  echo "$*" > "$tracing/set_event_pid"
  for event in $events; do echo 1 > "$tracing/events/$event/enable"; done
  echo 1 > "$tracing/tracing_on"
  inject "$panel" "$SCENARIO_DIR/ten.evemu"
  sleep 0.5
  echo 0 > "$tracing/tracing_on"
  for event in $events; do echo 0 > "$tracing/events/$event/enable"; done
  echo > "$tracing/set_event_pid"
  cp "$tracing/trace" "$results/trace-$label.txt"
  echo "$label $*" >> "$results/pids.txt"
}

start_lisgd() {
  lisgd_start "$SCENARIO_DIR/lisgd.log"
  sleep 2
}

: > "$results/untraced.txt"
: > "$results/pids.txt"
for kind in keys command; do
  daemon_ready "$SCENARIO_DIR/$kind.yaml" "$panel"
  reader=$(reader_of "$DAEMON_PID")
  inject "$panel" "$SCENARIO_DIR/ten.evemu" # to warm up
  traced "$kind" "$DAEMON_PID" "$reader"
  daemon_stop
done
start_lisgd
inject "$panel" "$SCENARIO_DIR/ten.evemu"
traced lisgd "$lisgd_pid"
kill "$lisgd_pid"
wait "$lisgd_pid" 2>/dev/null || true
"$report" "$results" 10 | tee "$results/wakeups.txt"

# Placement. `taskset -p` moves the daemon's two processes after its start (it keeps to the
# CPU it started on otherwise); the player is started on its CPU.
stream_ticks() { # PLAYER_CPU PIDS...
  local cpu=$1 before after
  shift
  before=$(ticks_of "$@")
  taskset -c "$cpu" evemu-play "$panel" < "$SCENARIO_DIR/swipes.evemu" || fail "evemu-play exited with status $?"
  sleep 0.5
  after=$(ticks_of "$@")
  echo $((after - before))
}
: > "$results/placement.txt"
for placement in "0 0" "1 0" "1 1" "0 1"; do
  set -- $placement
  daemon_ready "$SCENARIO_DIR/keys.yaml" "$panel"
  reader=$(reader_of "$DAEMON_PID")
  taskset -pc "$1" "$DAEMON_PID" > /dev/null
  taskset -pc "$1" "$reader" > /dev/null
  stream_ticks "$2" "$DAEMON_PID" "$reader" > /dev/null # to warm up
  echo "gestured keys on vCPU $1, player on vCPU $2: $(stream_ticks "$2" "$DAEMON_PID" "$reader")" \
    "$(stream_ticks "$2" "$DAEMON_PID" "$reader") ticks" | tee -a "$results/placement.txt"
  daemon_stop
done
for placement in "any 0" "0 0" "1 0"; do
  set -- $placement
  start_lisgd
  [ "$1" = any ] || taskset -pc "$1" "$lisgd_pid" > /dev/null
  echo "lisgd on vCPU $1, player on vCPU $2: $(stream_ticks "$2" "$lisgd_pid")" \
    "$(stream_ticks "$2" "$lisgd_pid") ticks" | tee -a "$results/placement.txt"
  kill "$lisgd_pid"
  wait "$lisgd_pid" 2>/dev/null || true
done
