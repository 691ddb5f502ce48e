#!/usr/bin/env bash
# make bench-vm-profile, inside the VM: the user-space instructions gestured and lisgd
# execute over one stream of swipes, counted by callgrind (valgrind). Unlike CPU ticks
# under TCG, an instruction count does not depend on the host's load. The stream is slower
# than bench-vm's (10 swipes 3 s apart) so that the programs, slowed by valgrind, keep up;
# counting is switched on only for the stream (not start-up).
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

# count NAME PID: instructions on for one play of the stream, then off.
count() {
  sleep 2
  callgrind_control -i on "$2" > /dev/null
  inject "$panel" "$SCENARIO_DIR/swipes.evemu"
  sleep 15
  callgrind_control -i off "$2" > /dev/null
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
  valgrind --tool=callgrind --instr-atstart=no \
  --callgrind-out-file="$SCENARIO_DIR/profile/callgrind.gestured" "$GESTURED" --config "$SCENARIO_DIR/gestured.yaml" \
  > /dev/null 2> "$results/gestured.log" &
pid=$!
wait_until 300 "READY=1 under valgrind" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
count gestured "$pid"
stop_process "$pid" 60
cp "$SCENARIO_DIR/profile/callgrind.gestured" "$results/callgrind.gestured"
gestured_runs=$(count_lines "$SCENARIO_DIR/gestured.out")
# Firings: those that started at once, waited behind the previous run, or joined a waiting one.
gestured_firings=$(grep -cE 'started pid [0-9]+:|firing queued|firing coalesced' "$results/gestured.log" || true)

: > "$SCENARIO_DIR/lisgd.out"
lisgd_start "$results/lisgd.log" \
  valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$results/callgrind.lisgd"
sleep 20
count lisgd "$lisgd_pid"
kill "$lisgd_pid"; wait "$lisgd_pid" 2>/dev/null || true
lisgd_runs=$(count_lines "$SCENARIO_DIR/lisgd.out")
kill "$TOUCH_PID" 2>/dev/null || true
wait "$TOUCH_PID" 2>/dev/null || true

# Totals, and for gestured the part spent reading and recognizing against the rest (the
# actions: firing, logging, spawning, reaping; under valgrind, which lacks pidfd_open, the
# runner polls for the exit every 50 ms, so this part is larger than on a kiosk). callgrind_annotate writes whole files
# first: a reader that stops early would end it with SIGPIPE (and pipefail with it).
callgrind_annotate "$results/callgrind.gestured" > "$results/gestured-self.txt" 2>/dev/null
callgrind_annotate --inclusive=yes --threshold=100 "$results/callgrind.gestured" \
  > "$results/gestured-inclusive.txt" 2>/dev/null
callgrind_annotate "$results/callgrind.lisgd" > "$results/lisgd-self.txt" 2>/dev/null
total() { awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }' "$1"; }
gestured_total=$(total "$results/gestured-self.txt")
inclusive() { awk -v pattern="$1" '$0 ~ pattern { gsub(",", "", $1); print $1; exit }' "$results/gestured-inclusive.txt"; }
# Daemon.drain is a wake-up's reading and recognizing and, through Daemon.fire, its actions.
drain=$(inclusive 'DaemonC5drain.*OpenDeviceCF ')
fire=$(inclusive 'DaemonC4fire.*OpenDeviceCF ')
reading=$(( ${drain:-0} - ${fire:-0} ))
lisgd_total=$(total "$results/lisgd-self.txt")
{
  echo "stream: $frames frames, 10 swipes"
  echo "gestured: $gestured_total instructions ($((gestured_total / frames)) per frame, all in);" \
    "reading and recognizing ${reading:-0} ($(( ${reading:-0} / frames )) per frame);" \
    "the rest $((gestured_total - ${reading:-0})) over $gestured_firings firings, $gestured_runs runs"
  echo "lisgd: $lisgd_total instructions ($((lisgd_total / frames)) per frame, all in), $lisgd_runs runs"
  echo "ratio of instructions gestured/lisgd: $(awk -v g="$gestured_total" -v l="$lisgd_total" 'BEGIN { printf "%.2f", g / l }')"
} | tee "$results/profile-summary.txt"
