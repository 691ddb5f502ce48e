#!/usr/bin/env bash
# Where the first run of a boot spends its CPU, inside the VM, one boot: gestured on bench-vm's
# panel, stream and binding, one run per RUN below, in the order given, with its CPU ticks
# (utime, stime) and page faults (minflt, majflt; /proc/PID/stat) read at each step: READY=1,
# the panel taken, just before the stream, just after it.
#
#   cold-in-vm.sh RESULTS RUN...
# RUN is BINARY[,OPTION...]. A binary's first run in the boot is cold for its file (its pages
# neither in the guest's page cache nor translated by TCG yet): give each cold run a copy of
# its own, made on the host. Options:
#   preread  the file read whole (cat) before the start: in the page cache, never executed
#   tmpfs    run a copy in the guest's own /tmp (memory) instead of the shared root
#   hotplug  the panel made after READY=1 (a new one for this run), not before the start
#   never    bound to `swipe up`, which the stream never fires: no action runs
#   hold     the file held open from this run to the end of the script, as its page cache
#            is kept on a real system (the guest's 9p root drops a file's pages when nothing
#            holds it: every run reads its binary again)
# Prints one line per run; RESULTS/cold-runs.txt keeps them. Needs GESTURED_TOUCH.
set -euo pipefail
results="$1"
shift
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/bench-cold.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
script="$SCENARIO_DIR/swipes.touch"
swipe_command_config "$SCENARIO_DIR/fires.yaml"
write_config "$SCENARIO_DIR/never.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: up, run: "echo U >> @DIR@/gestured.out" }
YAML

# ticks (user, system) and faults (minor, major) of PID: four numbers.
counters() { awk '{ print $14, $15, $10, $12 }' "/proc/$1/stat"; }

touch_start panel create "$script"
standing_panel=$TOUCH_DEVNODE
echo "vm: kernel $(uname -r), $(nproc) CPUs, $(cut -d' ' -f1 /proc/uptime) s up" | tee "$results/cold-runs.txt"

for run in "$@"; do
  IFS=, read -r binary options <<<"$run"
  label="$(basename "$binary")${options:+,$options}"
  config="$SCENARIO_DIR/fires.yaml"
  case ",$options," in *,never,*) config="$SCENARIO_DIR/never.yaml" ;; esac
  case ",$options," in *,preread,*) cat "$binary" > /dev/null ;; esac
  case ",$options," in *,hold,*) exec {held}<"$binary" ;; esac
  case ",$options," in
    *,tmpfs,*)
      cp "$binary" "$SCENARIO_DIR/$(basename "$binary").tmpfs"
      binary="$SCENARIO_DIR/$(basename "$binary").tmpfs"
      ;;
  esac
  : > "$SCENARIO_DIR/gestured.out"
  GESTURED="$binary"
  daemon_start "$config"
  wait_until 60 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  ready=$(counters "$DAEMON_PID")
  panel=$standing_panel
  case ",$options," in
    *,hotplug,*)
      touch_start hotplug create "$script"
      panel=$TOUCH_DEVNODE
      hotplug_pid=$TOUCH_PID
      ;;
  esac
  wait_until 60 "gestured to take the panel" grep -qs "^$panel '.*': profile" "$SCENARIO_DIR/daemon.log"
  taken=$(counters "$DAEMON_PID")
  sleep 1
  before=$(counters "$DAEMON_PID")
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  after=$(counters "$DAEMON_PID")
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
  case ",$options," in
    *,hotplug,*) kill "$hotplug_pid" 2>/dev/null || true; wait "$hotplug_pid" 2>/dev/null || true ;;
  esac
  # Each step's ticks as user+system and its faults as minor/major; the stream's total first.
  awk -v label="$label" -v fired="$(count_lines "$SCENARIO_DIR/gestured.out")" \
    -v ready="$ready" -v taken="$taken" -v before="$before" -v after="$after" 'BEGIN {
    split("0 0 0 0", z); split(ready, r); split(taken, t); split(before, b); split(after, a)
    printf "%s: stream %d ticks (%d+%d), faults %d/%d, fired %d;", label, a[1] + a[2] - b[1] - b[2], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], fired
    printf " start to READY=1 %d+%d ticks, faults %d/%d;", r[1], r[2], r[3], r[4]
    printf " to the panel taken %d+%d, %d/%d;", t[1] - r[1], t[2] - r[2], t[3] - r[3], t[4] - r[4]
    printf " the second before the stream %d+%d, %d/%d\n", b[1] - t[1], b[2] - t[2], b[3] - t[3], b[4] - t[4]
  }' | tee -a "$results/cold-runs.txt"
done
kill "$TOUCH_PID" 2>/dev/null || true
wait "$TOUCH_PID" 2>/dev/null || true
