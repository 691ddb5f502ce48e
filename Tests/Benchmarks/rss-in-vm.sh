#!/usr/bin/env bash
# Inside the VM: bench-vm's RSS step (live-in-vm.sh) for several gestured binaries in turn,
# to compare builds in one boot. Two panels (gestured-touch create), the taps config; each
# binary is started three times and the third measured (its pages are in the page cache
# then), 2 s after READY=1 and after the 40 swipes on one panel: VmRSS, RssAnon, RssFile
# and the page faults (rss.txt), KiB resident by mapping (smaps) and the binary's pages by
# ELF section (pagemap-sections.py). ROUNDS rounds of all the binaries.
#
#   Tests/VM/run-in-vm.sh --rwdir DIR -- env GESTURED_TOUCH=... \
#     Tests/Benchmarks/rss-in-vm.sh DIR ROUNDS BINARY...
set -euo pipefail
results="$1"; rounds="$2"; shift 2
VM_TESTS="$(cd "$(dirname "$0")/../VM" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
SCENARIO_DIR="$(mktemp -d /tmp/rss-vm.XXXXXX)"
export VM_TESTS SCENARIO_DIR
source "$VM_TESTS/lib.sh"
script="$SCENARIO_DIR/swipes.touch"
{
  echo 'panel mt-b name="Bench Swipe Panel" x=0..4095 y=0..4095 resolution=16 slots=10'
  echo 'rate 100hz'
  for i in $(seq 0 39); do echo "swipe at=$((200 + i * 320))ms from=0.2,0.5 by=120mm,0 duration=220ms"; done
} > "$script"
taps="$SCENARIO_DIR/taps.touch"
{
  echo 'panel mt-b name="Bench Tap Panel" x=0..4095 y=0..4095 resolution=16 slots=10'
  echo 'rate 100hz'
  for i in $(seq 0 199); do echo "tap at=$((200 + i * 400))ms x=0.5 y=0.5 duration=40ms"; done
} > "$taps"
"$GESTURED_TOUCH" record "$script" -o "$SCENARIO_DIR/swipes.evemu" || fail "gestured-touch record failed"
write_config "$SCENARIO_DIR/taps.yaml" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "true" }
  - { gesture: tap, run: "true" }
YAML
touch_start first create "$taps"
first_pid=$TOUCH_PID
touch_start second create "$script"
second=$TOUCH_DEVNODE
second_pid=$TOUCH_PID
echo "vm: kernel $(uname -r), fault_around_bytes $(cat /sys/kernel/debug/fault_around_bytes 2>/dev/null || echo '?')"

start_until_ready() {
  local bin="$1"; shift
  /usr/bin/python3 - "$SCENARIO_DIR" "$bin" "$@" <<'PY'
import os, socket, subprocess, sys, time
directory, gestured, args = sys.argv[1], sys.argv[2], sys.argv[3:]
path = os.path.join(directory, "ready.sock")
if os.path.exists(path):
    os.unlink(path)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(path)
listener.settimeout(1)
log = open(os.path.join(directory, "daemon.log"), "w")
start = time.monotonic_ns()
daemon = subprocess.Popen([gestured] + args, stderr=log, stdout=subprocess.DEVNULL,
                          env=dict(os.environ, NOTIFY_SOCKET=path), start_new_session=True)
while True:
    try:
        if b"READY=1" in listener.recv(65536).split(b"\n"):
            break
    except TimeoutError:
        if daemon.poll() is not None or time.monotonic_ns() - start > 60e9:
            sys.exit("gestured exited or sent no READY=1 in 60 s (its log: daemon.log)")
print((time.monotonic_ns() - start) // 1000, daemon.pid, flush=True)
sys.stdout.close()
daemon.wait()
PY
}
rss_line() {
  awk '/^(VmRSS|RssAnon|RssFile|VmHWM|Threads):/ { printf "%s %s ", $1, $2 }' "/proc/$1/status"
  awk '{ printf "minflt %s majflt %s", $10, $12 }' "/proc/$1/stat"
  echo
}
by_mapping() {
  awk '/^[0-9a-f]+-[0-9a-f]+ / { name = ($6 != "" ? $6 : "[anonymous]") } /^Rss:/ { rss[name] += $2 }
    END { for (n in rss) print rss[n], n }' "/proc/$1/smaps" | sort -rn
}
for round in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    tag="$(basename "$bin").r$round"
    for run in 1 2 3; do
      read -r us pid < <(start_until_ready "$bin" --config "$SCENARIO_DIR/taps.yaml")
      if [ "$run" -lt 3 ]; then stop_process "$pid" 10; fi
    done
    sleep 2
    echo "$tag start: $(rss_line "$pid") (ready after $us us, load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$results/rss.txt"
    by_mapping "$pid" > "$results/$tag.start.maps"
    python3 "$here/pagemap-sections.py" "$pid" "$bin" "$results/$tag.start.pages" > "$results/$tag.start.sections"
    inject "$second" "$SCENARIO_DIR/swipes.evemu"
    sleep 2
    echo "$tag after: $(rss_line "$pid")" | tee -a "$results/rss.txt"
    by_mapping "$pid" > "$results/$tag.after.maps"
    python3 "$here/pagemap-sections.py" "$pid" "$bin" "$results/$tag.after.pages" > "$results/$tag.after.sections"
    cp "/proc/$pid/maps" "$results/$tag.procmaps"
    stop_process "$pid" 10
  done
done
kill "$first_pid" "$second_pid" 2>/dev/null || true
wait "$first_pid" "$second_pid" 2>/dev/null || true
