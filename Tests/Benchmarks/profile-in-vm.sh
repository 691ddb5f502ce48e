#!/usr/bin/env bash
# make bench-vm-profile, inside the VM: the user-space instructions gestured and lisgd
# execute over a stream of swipes, counted by callgrind (valgrind). Unlike CPU ticks under
# TCG, an instruction count does not depend on the host's load. The stream is slower than
# bench-vm's (10 swipes 3 s apart) so that the programs, slowed by valgrind, keep up; it is
# played twice, each counted on its own (not start-up): the first shows what a program does
# once, at its first swipes, the second what every swipe costs after that.
#
#   profile-in-vm.sh RESULTS
# Needs GESTURED (an unstripped build, for function names) and GESTURED_TOUCH.
set -euo pipefail
results="$1"
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/profile-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
source "$(dirname "$0")/bench-lib.sh"

script="$SCENARIO_DIR/swipes.touch"
swipes_touch "$script" 10 500 3000
"$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/swipes.evemu" || fail "gestured-touch record failed"
write_config "$SCENARIO_DIR/gestured.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "echo R >> @DIR@/gestured.out" }
YAML
touch_start panel create "$script"
panel=$TOUCH_DEVNODE
frames=$(grep -c SYN_REPORT "$SCENARIO_DIR/swipes.evemu")

# count PID USER: each play of the stream counted on its own: instructions on, the first
# play, a dump (OUT.1), the second, instructions off (the rest is dumped at the exit). vgdb,
# through which callgrind_control reaches the process, must run as the process's user: as
# root it waits for ever on the FIFOs of a process running as another user.
count() {
  local pid="$1" user="$2" as=()
  [ "$user" = root ] || as=(setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups)
  sleep 2
  "${as[@]}" callgrind_control -i on "$pid" > /dev/null
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 15
  "${as[@]}" callgrind_control -d "$pid" > /dev/null
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 15
  "${as[@]}" callgrind_control -i off "$pid" > /dev/null
}

# As root gestured is two processes, and valgrind cannot run the launcher (valgrind 3.19 has
# no pidfd_open). As a user of the input group it is one process, which reads the panel and
# runs the actions: the same code of recognition and of the action runner.
chmod 755 "$SCENARIO_DIR"
mkdir -m 777 "$SCENARIO_DIR/profile"
: > "$SCENARIO_DIR/gestured.out"
chmod 666 "$SCENARIO_DIR/gestured.out"
notify_listen
chmod 666 "$NOTIFY_SOCKET"
input_group=$(getent group input | cut -d: -f3)
NOTIFY_SOCKET="$NOTIFY_SOCKET" setpriv --reuid=nobody --regid=nogroup --groups="$input_group" --inh-caps=-all \
  valgrind --tool=callgrind --instr-atstart=no --demangle=no \
  --callgrind-out-file="$SCENARIO_DIR/profile/callgrind.gestured" "$GESTURED" --config "$SCENARIO_DIR/gestured.yaml" \
  > /dev/null 2> "$results/gestured.log" &
pid=$!
wait_until 300 "READY=1 under valgrind" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
count "$pid" nobody
stop_process "$pid" 60
cp "$SCENARIO_DIR"/profile/callgrind.gestured* "$results/"
gestured_runs=$(count_lines "$SCENARIO_DIR/gestured.out")
# Firings: those that started at once, waited behind the previous run, or joined a waiting one.
gestured_firings=$(grep -cE 'started pid [0-9]+:|firing queued|firing coalesced' "$results/gestured.log" || true)

: > "$SCENARIO_DIR/lisgd.out"
lisgd_start "$results/lisgd.log" \
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$results/callgrind.lisgd"
sleep 20
count "$lisgd_pid" root
kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
lisgd_runs=$(count_lines "$SCENARIO_DIR/lisgd.out")
kill "$TOUCH_PID" 2>/dev/null || true
wait "$TOUCH_PID" 2>/dev/null || true

# Totals of each play, and for gestured's second the part spent reading and recognizing
# against the rest (the actions: firing, logging, spawning, reaping; under valgrind, which
# lacks pidfd_open, the runner polls for the exit every 50 ms, so this part is larger than on
# a kiosk). callgrind_annotate writes whole files first: a reader that stops early would end
# it with SIGPIPE (and pipefail with it).
#
# total FILE: a part's own count, its `totals:` line. valgrind 3.19 writes a wrapped
# `summary:` for a part after a dump, which callgrind_annotate would take for the total (and
# each function's share of it), so the summary is set to the totals first.
total() {
  local count
  count=$(awk '/^totals:/ { print $2; exit }' "$1")
  sed -i "s/^summary: .*/summary: $count/" "$1"
  callgrind_annotate "$1" > "$1.txt" 2>/dev/null
  echo "$count"
}
gestured_first=$(total "$results/callgrind.gestured.1")
gestured_total=$(total "$results/callgrind.gestured")
lisgd_first=$(total "$results/callgrind.lisgd.1")
lisgd_total=$(total "$results/callgrind.lisgd")
callgrind_annotate --inclusive=yes --threshold=100 "$results/callgrind.gestured" \
  > "$results/gestured-inclusive.txt" 2>/dev/null
inclusive() { awk -v pattern="$1" '$0 ~ pattern { gsub(",", "", $1); print $1; exit }' "$results/gestured-inclusive.txt"; }
# Daemon.drain is a wake-up's reading and recognizing and, through Daemon.fire, its actions.
drain=$(inclusive 'DaemonC5drain.*OpenDeviceCF ')
fire=$(inclusive 'DaemonC4fire.*OpenDeviceCF ')
reading=$(( ${drain:-0} - ${fire:-0} ))
{
  echo "stream: $frames frames, 10 swipes, played twice"
  echo "gestured, second play: $gestured_total instructions ($((gestured_total / 10)) per swipe, $((gestured_total / frames)) per frame, all in);" \
    "reading and recognizing ${reading:-0} ($(( ${reading:-0} / frames )) per frame);" \
    "the rest $((gestured_total - ${reading:-0})); $gestured_firings firings and $gestured_runs runs over both plays"
  echo "gestured, first play: $gestured_first instructions ($((gestured_first / 10)) per swipe)"
  echo "lisgd, second play: $lisgd_total instructions ($((lisgd_total / 10)) per swipe, $((lisgd_total / frames)) per frame, all in); first play $lisgd_first; $lisgd_runs runs over both plays"
  echo "ratio of instructions gestured/lisgd, second play: $(awk -v g="$gestured_total" -v l="$lisgd_total" 'BEGIN { printf "%.2f", g / l }')"
} | tee "$results/profile-summary.txt"
