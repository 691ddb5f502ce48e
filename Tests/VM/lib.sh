# Helpers for the VM scenarios (Tests/VM/scenarios/*.sh), sourced by each scenario.
#
# A scenario runs as root inside the VM (Tests/VM/scenario-runner.sh starts it) with:
#   GESTURED        the gestured binary under test
#   GESTURED_TOUCH  the gestured-touch binary (virtual touchscreens, docs/testing.md)
#   VM_TESTS        this directory (Tests/VM), read-only
#   SCENARIO_DIR    an empty writable directory of its own (tmpfs: sockets work there);
#                   everything in it is kept on the host after the run
# It passes by exiting 0, fails by exiting non-zero (use `fail "what went wrong"`), and is
# skipped with `skip "why"` (exit 77). Files named *.log in SCENARIO_DIR (daemon.log,
# monitor.log, ...) are printed when the scenario fails.
#
# Keep every scripted timing at least 100 ms clear of a threshold: the VM runs under TCG,
# on two cores shared with whatever else the machine does.

set -euo pipefail

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

skip() {
  echo "SKIP: $*" >&2
  exit 77
}

note() { echo "  $*" >&2; }

# wait_until SECONDS DESCRIPTION COMMAND...: polls COMMAND every 0.1 s until it succeeds;
# fails the scenario with DESCRIPTION when SECONDS pass first.
wait_until() {
  local limit="$1" what="$2"
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then fail "timed out after ${limit} s waiting for $what"; fi
    sleep 0.1
  done
}

# first_line FILE: the first line of FILE, or nothing.
first_line() { head -n 1 "$1" 2>/dev/null || true; }

# --- Virtual touchscreens ---------------------------------------------------------------

# touch_start NAME gestured-touch-ARGS...: runs `gestured-touch ARGS` in the background and
# waits for the devnode it creates. Sets TOUCH_PID and TOUCH_DEVNODE; NAME.devnode and
# NAME.touch.log (its stderr: the playback report) stay in SCENARIO_DIR.
touch_start() {
  local name="$1"
  shift
  : > "$SCENARIO_DIR/$name.devnode"
  "$GESTURED_TOUCH" "$@" > "$SCENARIO_DIR/$name.devnode" 2> "$SCENARIO_DIR/$name.touch.log" &
  TOUCH_PID=$!
  wait_until 30 "gestured-touch $1 to create its device" \
    grep -qs '^/dev/input/event' "$SCENARIO_DIR/$name.devnode"
  TOUCH_DEVNODE="$(first_line "$SCENARIO_DIR/$name.devnode")"
}

# touch_wait NAME PID: waits for a gestured-touch started by touch_start and fails the
# scenario if it failed. Prints its playback report.
touch_wait() {
  local name="$1" pid="$2" status=0
  wait "$pid" || status=$?
  if [ -s "$SCENARIO_DIR/$name.touch.log" ]; then note "$(cat "$SCENARIO_DIR/$name.touch.log")"; fi
  [ "$status" -eq 0 ] || fail "gestured-touch ($name) exited with status $status"
}

# udev_property DEVNODE PROPERTY: the property's value in udev's database, or nothing.
udev_property() {
  udevadm info --query=property --name="$1" 2>/dev/null | sed -n "s/^$2=//p"
}

# udev_ready DEVNODE: udev has processed the node (its database entry exists).
udev_ready() { udevadm info --query=property --name="$1" 2>/dev/null | grep -q '^ID_INPUT=1$'; }

# --- evemu -------------------------------------------------------------------------------

# record_start DEVNODE FILE: evemu-record DEVNODE into FILE in the background (it ends by
# itself when the device goes away). Sets RECORD_PID; waits until the description is out,
# so no event is missed.
record_start() {
  evemu-record "$1" > "$2" 2> "$2.log" &
  RECORD_PID=$!
  wait_until 20 "evemu-record to describe $1" grep -qs '^A: ' "$2"
  # The description is written before the first read; give it a moment to reach read().
  sleep 0.2
}

# --- gestured ----------------------------------------------------------------------------

# gestures FILE: the JSON lines in FILE reduced to what a scenario compares, one firing a
# line: "gesture fingers=N [taps=N] [direction=D] binding=B region=R".
gestures() {
  jq -r '[.gesture, "fingers=\(.fingers)"]
    + (if .taps then ["taps=\(.taps)"] else [] end)
    + (if .direction then ["direction=\(.direction)"] else [] end)
    + ["binding=\(.binding)", "region=\(.region // "none")"] | join(" ")' "$1"
}

# expect_gestures FILE EXPECTED: fails unless `gestures FILE` is exactly EXPECTED (lines).
expect_gestures() {
  local actual
  actual="$(gestures "$1")" || fail "$1 is not JSON lines: $(head -c 300 "$1")"
  if [ "$actual" != "$2" ]; then
    fail "$(printf 'wrong gestures from %s\n--- expected\n%s\n--- actual\n%s\n--- raw\n%s' \
      "$1" "$2" "$actual" "$(cat "$1")")"
  fi
}

# daemon_start CONFIG [ARGS...]: runs `gestured --config CONFIG ARGS` in the background,
# its stderr in daemon.log, with a notify listener on $NOTIFY_SOCKET writing each message
# as one line to notify.log. Sets DAEMON_PID.
daemon_start() {
  local config="$1"
  shift
  notify_listen
  NOTIFY_SOCKET="$NOTIFY_SOCKET" "$GESTURED" --config "$config" "$@" \
    > "$SCENARIO_DIR/daemon.stdout.log" 2> "$SCENARIO_DIR/daemon.log" &
  DAEMON_PID=$!
}

# stop_process PID SECONDS: SIGTERM, then waits up to SECONDS for it to exit (SIGKILL after
# that, and the scenario fails). Sets STOP_STATUS to its exit status.
stop_process() {
  local pid="$1" limit="$2"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + limit))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      kill -KILL "$pid" 2>/dev/null || true
      fail "process $pid did not exit within $limit s of SIGTERM"
    fi
    sleep 0.1
  done
  STOP_STATUS=0
  wait "$pid" 2>/dev/null || STOP_STATUS=$?
}

# monitor_start CONFIG [ARGS...]: runs `gestured monitor --config CONFIG ARGS` in the
# background, its JSON lines in monitor.jsonl and stderr in monitor.log. Sets MONITOR_PID.
monitor_start() {
  local config="$1"
  shift
  "$GESTURED" monitor --config "$config" "$@" \
    > "$SCENARIO_DIR/monitor.jsonl" 2> "$SCENARIO_DIR/monitor.log" &
  MONITOR_PID=$!
}

# notify_listen: a datagram socket for the systemd notify protocol; each message received
# becomes one line of notify.log (newlines inside it become spaces). Sets NOTIFY_SOCKET.
notify_listen() {
  NOTIFY_SOCKET="$SCENARIO_DIR/notify.sock"
  /usr/bin/python3 "$VM_TESTS/notify-listener.py" "$NOTIFY_SOCKET" "$SCENARIO_DIR/notify.log" &
  NOTIFY_PID=$!
  wait_until 10 "the notify listener" test -S "$NOTIFY_SOCKET"
  export NOTIFY_SOCKET
}

# --- /proc -------------------------------------------------------------------------------

# open_fds PID: how many file descriptors PID has open.
open_fds() { ls "/proc/$1/fd" | wc -l; }

# rss_kib PID: resident set size in KiB.
rss_kib() { sed -n 's/^VmRSS:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$1/status"; }

# context_switches PID: voluntary + involuntary context switches over all its threads.
context_switches() {
  cat /proc/"$1"/task/*/status 2>/dev/null \
    | awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { sum += $2 } END { print sum + 0 }'
}

# zombies_of PID: how many zombie children PID has.
zombies_of() { ps -o stat= --ppid "$1" 2>/dev/null | grep -c '^Z' || true; }
