#!/bin/sh
# make bench: every figure of BENCHMARKS.md that this machine can measure without a VM.
#   Tests/Benchmarks/bench.sh GESTURED GESTURED_BENCH MALLOC_COUNT_SO WORKDIR
# Prints the machine, then each figure with its unit. The 5 M-event recording is generated
# into WORKDIR (a build directory: never committed) and removed afterwards.
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

echo "== core: $bench core (LD_PRELOAD=$preload)"
LD_PRELOAD=$preload "$bench" core
echo

recording=$work/replay-5M.evemu
echo "== replay: $gestured replay of a generated 5 M-event recording"
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
