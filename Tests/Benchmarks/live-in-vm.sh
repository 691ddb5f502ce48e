#!/usr/bin/env bash
# make bench-vm, inside the VM, one boot:
#  1. gestured and lisgd alternately on the same virtual panel, the same stream of 40
#     one-finger swipes (220 ms each, 100 ms apart): CPU ticks (utime+stime, /proc/PID/stat)
#     of each daemon during the stream, and their threads' voluntary context switches;
#     after them in each run the design's floor with the same command (design-floor.c:
#     two processes that read the panel and run the command as gestured does, recognizing
#     nothing else) and the floor of reading (floor-reader.c: every frame read, nothing
#     done);
#  2. the same stream through `gestured replay` (user time of recognition alone), and the
#     system calls of one gestured run over that stream (strace -f -c);
#  2b. the same stream with the swipe bound to `key:` (no process) against lisgd running its
#     command, A B B A twice, and the latency from the deciding frame to the key's write;
#     between them in each round, twice, the design's floor (design-floor.c: two processes
#     that read the panel and write the key as gestured does, recognizing nothing else);
#  3. with two panels: startup to READY=1 (3 runs), RSS, and the latency from the kernel's
#     stamp of the deciding SYN_REPORT to the spawn's return over 200 taps (gestured's debug line
#     "pid N spawned L µs after its firing's event");
#  4. what the guest's kernel charges for each step of a firing (kernel-costs.c: a wake-up,
#     a key chord, a log line, a spawn with vfork and with fork).
#
#   live-in-vm.sh RESULTS RUNS
# Needs GESTURED, GESTURED_TOUCH, FLOOR_READER and DESIGN_FLOOR in the environment
# (KERNEL_COSTS for 4);
# lisgd from Debian on the host.
set -euo pipefail
results="$1"
runs="${2:-3}"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/bench-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

bench_stream
script="$SCENARIO_DIR/swipes.touch"
swipe_command_config "$SCENARIO_DIR/gestured.yaml"

# CPU ticks (all, user, system) and page faults (minor, major) of the PIDs, summed: run as
# root, gestured is two processes (the launcher, which runs the actions, and its recognizer,
# which reads the panel), and both count.
ticks() {
  local pid
  for pid in "$@"; do cat "/proc/$pid/stat"; done \
    | awk '{ t += $14 + $15; u += $14; s += $15; m += $10; j += $12 } END { print t, u, s, m, j }'
}
switches() {
  local total=0 task n
  for task in $(for pid in "$@"; do echo /proc/"$pid"/task/*; done); do
    n=$(awk '/^voluntary_ctxt_switches/ { print $2 }' "$task/status")
    total=$((total + n))
  done
  echo "$total"
}
# The processes of a daemon whose ticks count: gestured's launcher and recognizer (one pid
# when it runs as one process), any other daemon itself.
daemon_pids() {
  local reader
  reader=$(reader_of "$1")
  if [ "$reader" = "$1" ]; then echo "$1"; else echo "$1 $reader"; fi
}

touch_start panel create "$script"
panel=$TOUCH_DEVNODE
# Both daemons' executables held open for the boot: the guest's 9p root drops a file's
# pages when nothing holds it, so every run would read its binary again, where a real
# system keeps it in the page cache after the first. The first run of each stays cold.
exec {gestured_held}<"$GESTURED" {lisgd_held}<"$(command -v lisgd)"
echo "vm: kernel $(uname -r), $(nproc) CPUs, panel $panel, $runs runs each"

measure() { # NAME PID: ticks (all, user, system) and switches over one stream
  local name="$1" pids t0 u0 k0 m0 j0 t1 u1 k1 m1 j1 s0 s1
  sleep 1
  pids=$(daemon_pids "$2")
  read -r t0 u0 k0 m0 j0 < <(ticks $pids); s0=$(switches $pids)
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  read -r t1 u1 k1 m1 j1 < <(ticks $pids); s1=$(switches $pids)
  echo "$name $((t1 - t0)) $((s1 - s0)) user $((u1 - u0)) system $((k1 - k0)) faults $((m1 - m0))/$((j1 - j0))" \
    | tee -a "$results/live-runs.txt"
  # Idle: no touch, no action running; a daemon with nothing to do should not wake at all.
  sleep 2
  s0=$(switches $pids)
  sleep 5
  s1=$(switches $pids)
  echo "$name idle: $((s1 - s0)) wake-ups in 5 s" | tee -a "$results/idle.txt"
}

gestured_live_run() { # RUN
  : > "$SCENARIO_DIR/gestured.out"
  daemon_start "$SCENARIO_DIR/gestured.yaml"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  wait_until 30 "gestured to take the panel" grep -qs "^$panel '.*': profile" "$SCENARIO_DIR/daemon.log"
  measure gestured "$DAEMON_PID"
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
  echo "gestured run $1 fired $(count_lines "$SCENARIO_DIR/gestured.out") of 40" | tee -a "$results/live-runs.txt"
}
lisgd_live_run() { # RUN
  : > "$SCENARIO_DIR/lisgd.out"
  lisgd_start "$SCENARIO_DIR/lisgd.log"
  measure lisgd "$lisgd_pid"
  kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
  echo "lisgd run $1 fired $(count_lines "$SCENARIO_DIR/lisgd.out") of 40" | tee -a "$results/live-runs.txt"
}
: > "$results/live-runs.txt"
: > "$results/idle.txt"
# In turn, A B B A: gestured first in odd runs, lisgd first in even ones, so that a drift
# of the guest's speed over the boot weighs on both alike.
for run in $(seq 1 "$runs"); do
  if [ $((run % 2)) = 1 ]; then
    gestured_live_run "$run"; lisgd_live_run "$run"
  else
    lisgd_live_run "$run"; gestured_live_run "$run"
  fi

  # The design's floor with the command (design-floor.c: two processes that read the panel
  # and run the command as gestured does, recognizing nothing else); then the floor of
  # reading alone (floor-reader.c: every frame read as it comes, nothing else done).
  : > "$SCENARIO_DIR/design-floor.out.txt"
  "$DESIGN_FLOOR" "$panel" "$SCENARIO_DIR/design-floor.log" "echo R >> $SCENARIO_DIR/design-floor.out.txt" \
    > "$SCENARIO_DIR/design-floor.out" 2>&1 &
  floor_pid=$!
  measure design-floor "$floor_pid"
  kill "$floor_pid"; wait "$floor_pid" 2>/dev/null || true
  echo "design-floor run $run ran $(count_lines "$SCENARIO_DIR/design-floor.out.txt") of 40" | tee -a "$results/live-runs.txt"
  "$FLOOR_READER" "$panel" 0 > "$SCENARIO_DIR/floor.log" 2>&1 &
  floor_pid=$!
  measure floor-0 "$floor_pid"
  kill "$floor_pid"; wait "$floor_pid" 2>/dev/null || true
  echo "floor-0 run $run: $(cat "$SCENARIO_DIR/floor.log")" | tee -a "$results/live-runs.txt"
done

# Key actions: the same stream with the swipe bound to `key: alt+left` (written to
# gestured's virtual keyboard, no process) against lisgd running its command, A B B A twice
# in this boot; ticks summed over the runs. Then one --verbose run for the latency from the
# kernel's stamp of the deciding frame to the key's write ("written L µs after its firing's
# event"; the kernel stamps the key events inside that write), evemu-record on the keyboard
# counting the chords that arrived.
swipe_key_config "$SCENARIO_DIR/keys.yaml"
: > "$results/keys-runs.txt"
measure_ticks() { # NAME PID: ticks over one stream, appended to keys-runs.txt
  local t0 t1 rest pids
  sleep 1
  pids=$(daemon_pids "$2")
  read -r t0 rest < <(ticks $pids)
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  read -r t1 rest < <(ticks $pids)
  echo "$1 $((t1 - t0))" | tee -a "$results/keys-runs.txt"
}
keys_run() {
  daemon_start "$SCENARIO_DIR/keys.yaml" "$@"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  wait_until 30 "gestured to take the panel" grep -qs "^$panel '.*': profile" "$SCENARIO_DIR/daemon.log"
}
keys_stop() {
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
}
lisgd_run() {
  lisgd_start "$SCENARIO_DIR/lisgd.log"
  measure_ticks lisgd-command "$lisgd_pid"
  kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
}
# The design's floor: its two processes' ticks, and the chords its launcher wrote.
design_floor_run() {
  "$DESIGN_FLOOR" "$panel" "$SCENARIO_DIR/design-floor.log" > "$SCENARIO_DIR/design-floor.out" 2>&1 &
  local pid=$!
  measure_ticks design-floor "$pid"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "design-floor $(grep 'chords written' "$SCENARIO_DIR/design-floor.out" || echo 'wrote nothing')" \
    | tee -a "$results/keys-runs.txt"
}
for round in 1 2; do
  for who in gestured lisgd floor floor lisgd gestured; do
    if [ "$who" = lisgd ]; then lisgd_run; continue; fi
    if [ "$who" = floor ]; then design_floor_run; continue; fi
    keys_run
    measure_ticks gestured-keys "$DAEMON_PID"
    echo "gestured-keys wrote $(grep -c '^\[default/swipe\] key alt+left$' "$SCENARIO_DIR/daemon.log" || true) of 40" \
      | tee -a "$results/keys-runs.txt"
    keys_stop
  done
done
keys_run --verbose
keyboard="$(sed -n "s|^key and wheel bindings write to \(/dev/input/event[0-9]*\) 'gestured virtual keyboard'\$|\1|p" "$SCENARIO_DIR/daemon.log")"
record_start "$keyboard" "$SCENARIO_DIR/keyboard.evemu" '^B: 15 '
sleep 1
inject "$panel" "$SCENARIO_DIR/swipes.evemu"
sleep 1
keys_stop
cp "$SCENARIO_DIR/daemon.log" "$results/keys-latency-daemon.log"
presses=$(grep -c '^E: [0-9.]* 0001 0038 0001' "$SCENARIO_DIR/keyboard.evemu" || true)
awk '/ written [0-9-]+ µs after/ { for (i = 1; i <= NF; i++) if ($i == "written") print $(i + 1) }' \
  "$SCENARIO_DIR/daemon.log" | sort -n > "$results/keys-latency-us.txt"
{
  awk '$2 !~ /^[0-9]+$/ { next }
    $1 == "gestured-keys" { g += $2; ng++ } $1 == "lisgd-command" { l += $2; nl++ } $1 == "design-floor" { f += $2; nf++ }
    END {
      printf "keys: gestured with key: %d ticks over %d runs, lisgd running its command %d ticks over %d runs (A B B A twice); ratio %.2f\n", g, ng, l, nl, (l > 0 ? g / l : -1)
      printf "design floor: %d ticks over %d runs (its launcher and reader summed); %.2f x lisgd, gestured %.2f x the floor\n", f, nf, (l > 0 ? f / l : -1), (f > 0 ? g / f : -1)
    }' "$results/keys-runs.txt"
  awk -v presses="$presses" '{ v[++n] = $1 }
    END {
      if (n == 0) { print "keys latency: no key written"; exit }
      printf "keys latency (kernel stamp of the deciding frame to the key write, --verbose): %d writes, %d alt presses on the keyboard; median %d us, worst %d us, best %d us\n", n, presses, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[n], v[1]
    }' "$results/keys-latency-us.txt"
} | tee "$results/keys-summary.txt"

# The recognition alone in this guest: the same stream through `gestured replay` (no
# wake-ups, no actions run), ten copies in one process against a one-swipe recording ten
# times; the difference in user time is what reading and recognizing 8 970 frames costs
# under TCG, to set against the daemon's user ticks above.
one_swipe 200
replay_user_seconds() {
  local TIMEFORMAT=%U
  { time "$GESTURED" replay --config "$SCENARIO_DIR/gestured.yaml" "$@" > /dev/null 2>&1; } 2>&1
}
: > "$results/replay-in-vm.txt"
for run in $(seq 1 "$runs"); do
  many=$(replay_user_seconds $(for _ in $(seq 10); do echo "$SCENARIO_DIR/swipes.evemu"; done))
  few=$(replay_user_seconds $(for _ in $(seq 10); do echo "$SCENARIO_DIR/one.evemu"; done))
  echo "replay run $run: 9200 frames $many s user, 230 frames $few s user," \
    "$(awk -v many="$many" -v few="$few" 'BEGIN { printf "%.0f", (many - few) * 1e6 / 8970 }') us a frame" \
    | tee -a "$results/replay-in-vm.txt"
done

if command -v strace > /dev/null; then
  daemon_start "$SCENARIO_DIR/gestured.yaml"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  sleep 1
  strace -f -c -o "$results/strace-gestured.txt" $(for pid in $(daemon_pids "$DAEMON_PID"); do echo "-p $pid"; done) &
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
# Software counters of one more gestured run over the stream (page faults, switches,
# migrations: costs that strace does not show). `perf record` gets no samples in this TCG
# guest (cpu-clock, software event), so there is no profile by symbol here.
if command -v perf > /dev/null; then
  kill "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
  daemon_start "$SCENARIO_DIR/gestured.yaml"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  sleep 1
  perf stat -e task-clock,context-switches,cpu-migrations,page-faults,minor-faults,major-faults \
    -o "$results/perf-stat.txt" -p "$(daemon_pids "$DAEMON_PID" | tr ' ' ,)" &
  perf_pid=$!
  sleep 1
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 0.5
  kill -INT "$perf_pid"; wait "$perf_pid" 2>/dev/null || true
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
fi
kill "$TOUCH_PID" 2>/dev/null || true
wait "$TOUCH_PID" 2>/dev/null || true

# The figure: median ticks of each, their ratio, and the ratio run by run (ticks under TCG
# vary by 2x from run to run; alternating runs share the drift); then the boot's first run of
# each apart (cold: its binary's pages neither cached nor yet translated by TCG) against the
# median of the warm runs after it.
awk "$AWK_MEDIAN"'
  $1 == "gestured" && $2 ~ /^[0-9]+$/ { g[++ng] = $2 }
  $1 == "lisgd" && $2 ~ /^[0-9]+$/ { l[++nl] = $2 }
  $1 == "floor-0" && $2 ~ /^[0-9]+$/ { f[++nf] = $2 }
  $1 == "design-floor" && $2 ~ /^[0-9]+$/ { d[++nd] = $2 }
  END {
    pairs = ""
    for (i = 1; i <= ng && i <= nl; i++) pairs = pairs sprintf(" %d/%d", g[i], l[i])
    # Before median(), which sorts in place.
    g1 = g[1]; l1 = l[1]
    for (i = 2; i <= ng; i++) gw[i - 1] = g[i]
    for (i = 2; i <= nl; i++) lw[i - 1] = l[i]
    mg = median(g, ng); ml = median(l, nl)
    printf "live: gestured %s ticks, lisgd %s ticks (medians of %d runs; pairs%s); ratio %.2f\n", mg, ml, ng, pairs, (ml > 0 ? mg / ml : -1)
    if (ng > 1 && nl > 1) {
      wg = median(gw, ng - 1); wl = median(lw, nl - 1)
      printf "cold: the first run of the boot gestured %s ticks, lisgd %s (ratio %.2f); the warm runs after it gestured %s, lisgd %s (medians); first over warm gestured %.2f, lisgd %.2f\n", g1, l1, (l1 > 0 ? g1 / l1 : -1), wg, wl, (wg > 0 ? g1 / wg : -1), (wl > 0 ? l1 / wl : -1)
    }
    if (nd > 0 && ml > 0) {
      dpairs = ""
      for (i = 1; i <= nd; i++) dpairs = dpairs " " d[i]
      md = median(d, nd)
      printf "design floor with the command: %s ticks (median of %d runs:%s); %.2f x lisgd, gestured %.2f x the floor\n", md, nd, dpairs, md / ml, (md > 0 ? mg / md : -1)
    }
    if (nf > 0 && ml > 0) {
      mf = median(f, nf)
      printf "floor: every frame read and nothing done %s ticks (%.2f x lisgd)\n", mf, mf / ml
    }
  }' "$results/live-runs.txt" | tee "$results/live-summary.txt"

# --- Two panels: startup, RSS, latency ---------------------------------------------------
taps="$SCENARIO_DIR/taps.touch"
taps_touch "$taps" 200 200 400
"$GESTURED_TOUCH" record "$taps" -o "$SCENARIO_DIR/taps.evemu" || fail "gestured-touch record taps failed"
# Only a one-finger tap is bound (no double tap, no long press): it must fire at the lift,
# with no timer. 400 ms apart, so that each run (`true`, which takes 50-300 ms under TCG)
# has usually ended before the next tap; a tap whose run had to wait is counted apart.
taps_config "$SCENARIO_DIR/taps.yaml"
touch_start first create "$taps"
first=$TOUCH_DEVNODE
first_pid=$TOUCH_PID
touch_start second create "$script"
second=$TOUCH_DEVNODE
second_pid=$TOUCH_PID

: > "$results/startup.txt"
for run in 1 2 3; do
  read -r startup_us pid < <(start_until_ready "$GESTURED" --config "$SCENARIO_DIR/taps.yaml")
  taken=$(grep -c "': profile" "$SCENARIO_DIR/daemon.log" || true)
  echo "startup $startup_us us, $taken panels taken" | tee -a "$results/startup.txt"
  [ "$taken" -ge 2 ] || fail "READY=1 came before both panels were taken"
  if [ "$run" -lt 3 ]; then stop_process "$pid" 10; fi
done

# RSS of the last one: at READY=1 (plus 2 s), then after the 200 taps ran their actions.
rss_line() {
  awk '/^(VmRSS|RssAnon|RssFile|VmHWM|Threads):/ { printf "%s %s%s ", $1, $2, ($3 ? " " $3 : "") }' "/proc/$1/status"
  echo
}
sleep 2
# As root, gestured is two processes: the launcher and its recognizer, each on its own line.
reader=$(reader_of "$pid")
echo "rss at start: $(rss_line "$pid")" | tee "$results/rss.txt"
if [ "$reader" != "$pid" ]; then echo "recognizer rss at start: $(rss_line "$reader")" | tee -a "$results/rss.txt"; fi
inject "$second" "$SCENARIO_DIR/swipes.evemu"
sleep 2
echo "rss after 40 swipes on one panel: $(rss_line "$pid")" | tee -a "$results/rss.txt"
if [ "$reader" != "$pid" ]; then
  echo "recognizer rss after 40 swipes: $(rss_line "$reader")" | tee -a "$results/rss.txt"
fi
cp "/proc/$pid/smaps_rollup" "$results/smaps-rollup.txt" 2>/dev/null || true
# Where the resident memory is, by mapping (KiB).
awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 != "" ? $6 : "[anonymous]") } /^Rss:/ { rss[name] += $2 }
  END { for (n in rss) print rss[n], n }' "/proc/$pid/smaps" | sort -rn > "$results/smaps-rss.txt"
stop_process "$pid" 10

# Latency: --verbose for the debug line (recognizer transitions are logged too, a few per
# tap: the figure is an upper bound for a daemon run without it).
read -r _ pid < <(start_until_ready "$GESTURED" --config "$SCENARIO_DIR/taps.yaml" --verbose)
sleep 1
inject "$first" "$SCENARIO_DIR/taps.evemu"
sleep 2
stop_process "$pid" 10
cp "$SCENARIO_DIR/daemon.log" "$results/latency-daemon.log"
# Runs that started at once (not queued behind the previous run): pid and latency.
awk '/started pid [0-9]+ after waiting/ { for (i = 1; i <= NF; i++) if ($i == "pid") queued[$(i + 1)] = 1 }
  / spawned [0-9-]+ µs/ { for (i = 1; i <= NF; i++) if ($i == "pid") { pid = $(i + 1); us = $(i + 3) }
    if (!(pid in queued)) print us }' "$SCENARIO_DIR/daemon.log" > "$results/latency-us.txt"
queued=$(grep -c 'started pid [0-9]* after waiting' "$SCENARIO_DIR/daemon.log" || true)
coalesced=$(grep -c 'coalesced' "$SCENARIO_DIR/daemon.log" || true)
dropped=$(grep -c 'firing dropped' "$SCENARIO_DIR/daemon.log" || true)
sort -n "$results/latency-us.txt" | awk -v queued="$queued" -v coalesced="$coalesced" -v dropped="$dropped" '
  { v[++n] = $1 }
  END {
    if (n == 0) { print "latency: no action spawned"; exit }
    printf "latency (kernel stamp of the deciding SYN_REPORT to the return of the spawn): %d of 200 taps started at once (%d queued, %d coalesced, %d dropped); median %d us, p90 %d us, worst %d us, best %d us\n", n, queued, coalesced, dropped, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[int(n * 0.9 + 0.5)], v[n], v[1]
  }' | tee "$results/latency-summary.txt"
kill "$first_pid" "$second_pid" 2>/dev/null || true
wait "$first_pid" "$second_pid" 2>/dev/null || true

# --- What the kernel charges for a firing's steps, in this boot (kernel-costs.c) ----------
if [ -n "${KERNEL_COSTS:-}" ]; then
  "$KERNEL_COSTS" "$SCENARIO_DIR" 5 | tee "$results/kernel-costs.txt"
fi
