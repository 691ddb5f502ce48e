#!/usr/bin/env bash
# Where gestured's ticks go, inside the VM, one boot: as root gestured is two processes, the
# launcher (runs the actions) and its recognizer (reads the panel). One daemon plays the
# stream of make bench-vm (40 one-finger swipes) three times in a row, and the utime and
# stime of each process over each stream are printed apart, for a swipe bound to a command,
# to `key: alt+left`, and to nothing that fires; the key stream again with the two processes
# on one vCPU, on a vCPU each, and where the scheduler puts them; then lisgd's, and
# `strace -c` of each process apart over one stream (BENCHMARKS.md, rows "live CPU" and
# "system calls").
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED=… GESTURED_TOUCH=… \
#     Tests/Benchmarks/split-in-vm.sh DIR
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/split-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
script="$SCENARIO_DIR/swipes.touch"
swipe_command_config "$SCENARIO_DIR/command.yaml"
swipe_key_config "$SCENARIO_DIR/keys.yaml"
write_config "$SCENARIO_DIR/nothing.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: up, run: "true" }
YAML
touch_start panel create "$script"
panel=$TOUCH_DEVNODE
exec {held}<"$GESTURED"

user_system() { awk '{ print $14, $15 }' "/proc/$1/stat"; }
one_stream() { # LABEL READER: the stream played once, each process's ticks over it printed
  local lu ls ru rs lu1 ls1 ru1 rs1
  read -r lu ls < <(user_system "$DAEMON_PID"); read -r ru rs < <(user_system "$2")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  read -r lu1 ls1 < <(user_system "$DAEMON_PID"); read -r ru1 rs1 < <(user_system "$2")
  echo "$1: launcher user $((lu1 - lu)) system $((ls1 - ls));" \
    "recognizer user $((ru1 - ru)) system $((rs1 - rs));" \
    "total $((lu1 - lu + ls1 - ls + ru1 - ru + rs1 - rs))" | tee -a "$results/split.txt"
  sleep 1
}
split() { # LABEL CONFIG
  local reader stream
  daemon_ready "$2" "$panel"
  reader=$(reader_of "$DAEMON_PID")
  for stream in 1 2 3; do one_stream "$1 stream $stream" "$reader"; done
  daemon_stop
}

: > "$results/split.txt"
for round in 1 2; do
  split command "$SCENARIO_DIR/command.yaml"
  split keys "$SCENARIO_DIR/keys.yaml"
  split nothing "$SCENARIO_DIR/nothing.yaml"
done
# Where the two processes run: the key stream with both on vCPU 0 (the launcher woken where
# the recognizer ran), each on a vCPU of its own, and left to the scheduler, in turn.
daemon_ready "$SCENARIO_DIR/keys.yaml" "$panel"
reader=$(reader_of "$DAEMON_PID")
for mode in shared apart free shared apart free; do
  case $mode in
    shared) launcher_cpus=0 recognizer_cpus=0 ;;
    apart) launcher_cpus=1 recognizer_cpus=0 ;;
    free) launcher_cpus=0,1 recognizer_cpus=0,1 ;;
  esac
  taskset -a -c -p "$launcher_cpus" "$DAEMON_PID" > /dev/null
  taskset -a -c -p "$recognizer_cpus" "$reader" > /dev/null
  one_stream "keys on vCPUs $mode" "$reader"
done
daemon_stop

for run in 1 2 3; do
  lisgd_start /dev/null
  sleep 1
  read -r u s < <(user_system "$lisgd_pid")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  read -r u1 s1 < <(user_system "$lisgd_pid")
  echo "lisgd run $run: user $((u1 - u)) system $((s1 - s)); total $((u1 - u + s1 - s))" | tee -a "$results/split.txt"
  kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
done

if command -v strace > /dev/null; then
  for config in command keys; do
    daemon_ready "$SCENARIO_DIR/$config.yaml" "$panel"
    reader=$(reader_of "$DAEMON_PID")
    strace -c -o "$results/strace-$config-launcher.txt" -p "$DAEMON_PID" &
    launcher_strace=$!
    strace -c -o "$results/strace-$config-recognizer.txt" -p "$reader" &
    recognizer_strace=$!
    sleep 1
    inject "$panel" "$SCENARIO_DIR/swipes.evemu"
    sleep 0.5
    kill -INT "$launcher_strace" "$recognizer_strace"
    wait "$launcher_strace" "$recognizer_strace" 2>/dev/null || true
    daemon_stop
  done
fi
kill "$TOUCH_PID" 2>/dev/null || true
wait "$TOUCH_PID" 2>/dev/null || true
