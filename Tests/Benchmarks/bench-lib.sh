# Shared by the VM benchmark scripts, sourced after Tests/VM/lib.sh: the streams they play,
# the config of the two-panel steps, and a start that waits for READY=1.

# swipes_touch FILE COUNT FIRST_MS EVERY_MS: a TouchScript of COUNT one-finger swipes right
# (120 mm in 220 ms) on a protocol B panel, the first at FIRST_MS, then one every EVERY_MS.
swipes_touch() {
  local file="$1" count="$2" first="$3" every="$4" i
  {
    echo 'panel mt-b name="Bench Swipe Panel" x=0..4095 y=0..4095 resolution=16 slots=10'
    echo 'rate 100hz'
    for i in $(seq 0 $((count - 1))); do
      echo "swipe at=$((first + i * every))ms from=0.2,0.5 by=120mm,0 duration=220ms"
    done
  } > "$file"
}

# bench_stream: the stream of make bench-vm, 40 swipes, the first at 200 ms, one every
# 320 ms: $SCENARIO_DIR/swipes.touch (for gestured-touch create) and its recording
# $SCENARIO_DIR/swipes.evemu (for evemu-play).
bench_stream() {
  swipes_touch "$SCENARIO_DIR/swipes.touch" 40 200 320
  "$GESTURED_TOUCH" record "$SCENARIO_DIR/swipes.touch" -o "$SCENARIO_DIR/swipes.evemu" \
    || fail "gestured-touch record failed"
}

# one_swipe [FIRST_MS]: one swipe of the same kind alone, FIRST_MS (100) after the player
# starts: $SCENARIO_DIR/one.touch and its recording $SCENARIO_DIR/one.evemu.
one_swipe() {
  swipes_touch "$SCENARIO_DIR/one.touch" 1 "${1:-100}" 320
  "$GESTURED_TOUCH" record "$SCENARIO_DIR/one.touch" -o "$SCENARIO_DIR/one.evemu" \
    || fail "gestured-touch record failed"
}

# swipe_command_config FILE: the swipe right running `echo R >> DIR/gestured.out`, the
# action both daemons run in make bench-vm.
swipe_command_config() {
  write_config "$1" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "echo R >> @DIR@/gestured.out" }
YAML
}

# swipe_key_config FILE: the same swipe writing `key: alt+left` to gestured's virtual
# keyboard, which starts no process.
swipe_key_config() {
  write_config "$1" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, key: alt+left }
YAML
}

# taps_touch FILE COUNT FIRST_MS EVERY_MS: the same for one-finger taps of 40 ms.
taps_touch() {
  local file="$1" count="$2" first="$3" every="$4" i
  {
    echo 'panel mt-b name="Bench Tap Panel" x=0..4095 y=0..4095 resolution=16 slots=10'
    echo 'rate 100hz'
    for i in $(seq 0 $((count - 1))); do
      echo "tap at=$((first + i * every))ms x=0.5 y=0.5 duration=40ms"
    done
  } > "$file"
}

# taps_config FILE: a one-finger tap and a swipe bound, each running `true`. No double tap
# and no long press: a tap must fire at its lift, with no timer.
taps_config() {
  write_config "$1" <<'YAML'
bindings:
  - { gesture: swipe, direction: right, run: "true" }
  - { gesture: tap, run: "true" }
YAML
}

# start_until_ready BINARY ARGS...: starts BINARY and waits for READY=1 on a notify socket
# of its own; prints "MICROSECONDS PID" (CLOCK_MONOTONIC from just before the fork to the
# datagram's arrival) and stays, in the background, until the daemon exits; the daemon's
# stderr goes to daemon.log.
start_until_ready() {
  /usr/bin/python3 - "$SCENARIO_DIR" "$@" <<'PY'
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
daemon.wait()  # reaped here, so that a stopped daemon is gone, not a zombie
PY
}

# daemon_ready CONFIG PANEL: gestured started on CONFIG, ready and holding PANEL (its pid in
# DAEMON_PID); daemon_stop: stopped, with its notify listener.
daemon_ready() {
  daemon_start "$1"
  wait_until 30 "READY=1" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
  wait_until 30 "gestured to take the panel" grep -qs "^$2 '.*': profile" "$SCENARIO_DIR/daemon.log"
  sleep 1
}
daemon_stop() {
  stop_process "$DAEMON_PID" 10
  kill "$NOTIFY_PID" 2>/dev/null || true
  wait "$NOTIFY_PID" 2>/dev/null || true
  rm -f "$SCENARIO_DIR/notify.log" "$SCENARIO_DIR/notify.sock"
}

# lisgd_start LOG [WRAPPER...]: Debian's lisgd on $panel, its one-finger swipe right running
# `echo R >> $SCENARIO_DIR/lisgd.out`, the action gestured runs in swipe_command_config;
# under WRAPPER when given (valgrind); its output to LOG, its pid in lisgd_pid.
lisgd_start() {
  local log="$1"
  shift
  "$@" lisgd -d "$panel" -w 800 -h 800 -g "1,LR,*,*,R,echo R >> $SCENARIO_DIR/lisgd.out" > "$log" 2>&1 &
  lisgd_pid=$!
}

# ticks_of PID...: the processes' utime + stime summed, in ticks (/proc/PID/stat).
ticks_of() {
  local pid
  for pid in "$@"; do cat "/proc/$pid/stat"; done | awk '{ t += $14 + $15 } END { print t }'
}

# cpu_ns PID: the process's CPU time in nanoseconds by the scheduler's own count
# (/proc/PID/schedstat), finer than the 10 ms ticks of /proc/PID/stat.
cpu_ns() { awk '{ print $1 }' "/proc/$1/schedstat"; }

# AWK_MEDIAN: an awk function for the summaries' programs (awk "$AWK_MEDIAN"'...'):
# median(a, n) sorts a[1..n] in place and returns its median.
AWK_MEDIAN='
  function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
'
