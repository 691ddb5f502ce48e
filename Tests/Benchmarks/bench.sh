#!/bin/sh
# make bench: every figure of BENCHMARKS.md that this machine can measure without a VM.
#   Tests/Benchmarks/bench.sh GESTURED GESTURED_BENCH MALLOC_COUNT_SO WORKDIR
# Prints the machine, then each figure with its unit and goal. GESTURED_BENCH keeps its
# symbols: callgrind counts the instructions of one function of it by name. The 5 M-event
# recording is generated into WORKDIR (a build directory: never committed) and removed
# afterwards.
set -eu
gestured=$1
bench=$2
preload=$3
work=$4
mkdir -p "$work"

echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(uname -r)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

echo "== core: $bench core (LD_PRELOAD=$preload); goal >= 50 M events per CPU second"
LD_PRELOAD=$preload "$bench" core
echo

# Instructions do not move with the machine's load, as CPU seconds do: callgrind counts
# those executed inside DeviceEngine.handle(events:into:) (its calls included), which
# gestured-bench calls once a frame after the warm-up round, over each stream.
symbol=$(nm "$bench" | awk '$3 ~ /^\$s11GestureCore12DeviceEngineV6handle6events4into.*F$/ { print $3; exit }')
[ -n "$symbol" ] || { echo "bench: no DeviceEngine.handle(events:into:) in $bench (stripped?)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "bench: valgrind is not installed" >&2; exit 1; }
echo "== instructions per raw event in DeviceEngine.handle(events:into:): valgrind --tool=callgrind '--toggle-collect=$symbol' $bench core --runs 1 --events 1000000 --stream NAME"
"$bench" streams | while read -r name goal title; do
  out=$work/callgrind.out.$name
  valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect="$symbol" \
    "$bench" core --runs 1 --events 1000000 --stream "$name" >"$work/callgrind-core.txt" 2>"$work/callgrind.log" \
    || { cat "$work/callgrind.log" >&2; exit 1; }
  events=$(sed -n 's/.*); \([0-9]*\) events, .*/\1/p' "$work/callgrind-core.txt")
  instructions=$(awk '$1 == "totals:" { print $2 }' "$out")
  [ -n "$events" ] && [ -n "$instructions" ] && [ "$instructions" -gt 0 ] \
    || { echo "bench: callgrind counted nothing for stream $name" >&2; exit 1; }
  awk -v title="$title" -v i="$instructions" -v e="$events" -v goal="$goal" 'BEGIN {
    per = i / e
    printf "instructions %s: %.1f per raw event (%d in %d events); goal <= %d: %s\n", title, per, i, e, goal, (per <= goal ? "met" : "NOT met")
  }'
done
rm -f "$work"/callgrind.out.* "$work/callgrind-core.txt" "$work/callgrind.log"
echo

recording=$work/replay-5M.evemu
echo "== replay: $gestured replay of a generated 5 M-event recording; goal >= 10 M events per CPU second, peak RSS <= 32 MB"
"$bench" recording "$recording" --events 5000000
size=$(stat -c %s "$recording")
echo "recording size: $((size / 1048576)) MiB"
# Wall time on a shared machine counts other processes' turns: user+sys is the figure.
for run in 1 2 3; do
  /usr/bin/time -f '%e %U %S %M' -o "$work/time.txt" "$gestured" replay --config "$recording.yaml" "$recording" >"$work/replay.out"
  read -r wall user sys kilobytes <"$work/time.txt"
  echo "replay run $run: $user s user + $sys s sys ($wall s wall), peak RSS $((kilobytes / 1024)) MiB, $(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", 5 / (u + s) }') M events per CPU second, $(wc -l <"$work/replay.out") firings printed"
done
rm -f "$recording" "$work/replay.out" "$work/time.txt"
