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

# poll_until SECONDS COMMAND...: polls COMMAND every 0.1 s until it succeeds (status 0) or
# SECONDS pass (status 1). COMMAND's arguments are expanded once, by the caller: to poll a
# changing value, poll a function (lines_at_least, ready_at_least), never "$(...)".
poll_until() {
  local limit="$1"
  shift
  local deadline=$((SECONDS + limit))
  until "$@"; do
    if [ "$SECONDS" -ge "$deadline" ]; then return 1; fi
    sleep 0.1
  done
}

# wait_until SECONDS DESCRIPTION COMMAND...: poll_until, failing the scenario with
# DESCRIPTION when SECONDS pass first.
wait_until() {
  local limit="$1" what="$2"
  shift 2
  poll_until "$limit" "$@" || fail "timed out after ${limit} s waiting for $what"
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

# record_start DEVNODE FILE [LAST]: evemu-record DEVNODE into FILE in the background (it
# ends by itself when the device goes away). Sets RECORD_PID; waits until the description
# is out (a line matching LAST, default '^A: ', the absolute axes; a device without any,
# a keyboard, ends its description with '^B: 15 '), so no event is missed.
record_start() {
  evemu-record "$1" > "$2" 2> "$2.log" &
  RECORD_PID=$!
  wait_until 20 "evemu-record to describe $1" grep -qs "${3:-^A: }" "$2"
  # The description is written before the first read; give it a moment to reach read().
  sleep 0.2
}

# contact_counts FILE: how many contacts an evemu recording of a multitouch (protocol B)
# node has down, one line "SECONDS COUNT" per frame in which that number changed (from 0
# when the recording began). Reads ABS_MT_SLOT and ABS_MT_TRACKING_ID (-1: released).
contact_counts() {
  awk '
    BEGIN { slot = 0 }
    $1 != "E:" { next }
    $3 == "0003" && $4 == "002f" { slot = $5 + 0; next }
    $3 == "0003" && $4 == "0039" { if ($5 + 0 < 0) delete down[slot]; else down[slot] = $5 + 0; next }
    $3 == "0000" && $4 == "0000" {
      n = 0
      for (s in down) n++
      if (n != last) { print $2, n; last = n }
    }
  ' "$1"
}

# contacts_left_down FILE: how many contacts the recording has down at its end.
contacts_left_down() {
  local last
  last="$(contact_counts "$1" | tail -n 1)"
  echo "${last##* }" | sed 's/^$/0/'
}

# tracking_ids FILE: the tracking ids that started in an evemu recording, one a line, in
# order (each contact once).
tracking_ids() {
  awk '$1 == "E:" && $3 == "0003" && $4 == "0039" && $5 + 0 >= 0 { print $5 + 0 }' "$1"
}

# forward_play NAME SCRIPT [PLAY-OPTIONS...]: with the daemon running a forwarding config,
# plugs a panel for SCRIPT, records its clone into NAME.clone.evemu while the script plays,
# and waits until that recording ended (the clone goes with its panel). Sets CLONE. With
# PLAY_AFTER=SECONDS the script starts that long after the daemon took the panel (a
# script plays from its first event, whatever its time).
forward_play() {
  local name="$1" script="$2" mark recorder
  shift 2
  mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
  plug_panel "$name" "$script" "$@"
  wait_until 10 "the daemon to make the clone of $TOUCH_DEVNODE" \
    logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$TOUCH_DEVNODE: forwarding .* clone /dev/input/event"
  CLONE="$(clone_of "$TOUCH_DEVNODE")"
  wait_until 10 "udev to know the clone $CLONE" udev_ready "$CLONE"
  record_start "$CLONE" "$SCENARIO_DIR/$name.clone.evemu"
  recorder=$RECORD_PID
  if [ -n "${PLAY_AFTER:-}" ]; then sleep "$PLAY_AFTER"; fi
  kill -USR1 "$TOUCH_PID"
  touch_wait "$name" "$TOUCH_PID"
  wait_until 20 "evemu-record of the clone to end" bash -c "! kill -0 $recorder 2>/dev/null"
}

# clone_of PANEL: the devnode of the clone the daemon (daemon.log) last made for PANEL.
clone_of() {
  sed -n "s|^$1: forwarding .* clone \(/dev/input/event[0-9]*\).*|\1|p" "$SCENARIO_DIR/daemon.log" | tail -n 1
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
  # The first python3 start in the guest reads it cold through 9p: 2.8 s on a quiet
  # machine, over 10 s seen with both cores loaded. Only a failure waits this long.
  wait_until 60 "the notify listener" test -S "$NOTIFY_SOCKET"
  export NOTIFY_SOCKET
}

# write_config FILE: writes stdin to FILE with @DIR@ replaced by $SCENARIO_DIR and
# @VM_TESTS@ by $VM_TESTS, so a scenario's config (a quoted heredoc, no shell expansion)
# can name the files its actions write and the helpers they run (record-firing).
write_config() {
  sed -e "s|@DIR@|$SCENARIO_DIR|g" -e "s|@VM_TESTS@|$VM_TESTS|g" > "$1"
}

# count_lines FILE: how many lines FILE has; 0 when it does not exist.
count_lines() {
  if [ -f "$1" ]; then wc -l < "$1" | tr -d ' '; else echo 0; fi
}

# lines_at_least FILE N: FILE has at least N lines (for wait_until).
lines_at_least() { [ "$(count_lines "$1")" -ge "$2" ]; }

# logged_since FILE MARK PATTERN: a line after the first MARK lines of FILE matches the
# extended regular expression PATTERN. With MARK="$(count_lines FILE)" taken before an
# action, this waits for what the action caused, not for an older line (devnodes are reused).
logged_since() {
  tail -n +"$(($2 + 1))" "$1" 2>/dev/null | grep -qE -- "$3"
}

# plug_panel NAME SCRIPT [PLAY-OPTIONS...]: plugs in a virtual panel for SCRIPT
# (`gestured-touch play SCRIPT --wait-for-signal ...`) and waits until the daemon (its
# daemon.log) has taken it. Sets TOUCH_PID and TOUCH_DEVNODE; `kill -USR1 $TOUCH_PID` plays.
plug_panel() {
  local name="$1" script="$2" mark
  shift 2
  mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
  touch_start "$name" play "$script" --wait-for-signal "$@"
  wait_until 30 "the daemon to take $TOUCH_DEVNODE ($name)" \
    logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$TOUCH_DEVNODE '.*': profile"
}

# play_panel NAME SCRIPT [PLAY-OPTIONS...]: plug_panel, play the script, and wait until the
# daemon has seen the panel go (gestured-touch destroys it when the script ends).
play_panel() {
  local mark
  plug_panel "$@"
  mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
  kill -USR1 "$TOUCH_PID"
  touch_wait "$1" "$TOUCH_PID"
  wait_until 30 "the daemon to let $TOUCH_DEVNODE ($1) go" \
    logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$TOUCH_DEVNODE '.*': removed"
}

# create_panel NAME SCRIPT: a panel that stays (`gestured-touch create`) until
# `kill $TOUCH_PID`; waits until the daemon has taken it. Sets TOUCH_PID and TOUCH_DEVNODE.
create_panel() {
  local mark
  mark="$(count_lines "$SCENARIO_DIR/daemon.log")"
  touch_start "$1" create "$2"
  wait_until 30 "the daemon to take $TOUCH_DEVNODE ($1)" \
    logged_since "$SCENARIO_DIR/daemon.log" "$mark" "^$TOUCH_DEVNODE '.*': profile"
}

# record_tap NAME X Y: NAME.evemu in the scenario's directory, the 80 ms tap of
# scripts/daemon/tap.touch moved to (X, Y) (fractions of the panel), for inject.
record_tap() {
  sed "s/^tap at=100ms x=0.5 y=0.5 /tap at=100ms x=$2 y=$3 /" "$VM_TESTS/scripts/daemon/tap.touch" > "$SCENARIO_DIR/$1.touch"
  "$GESTURED_TOUCH" record "$SCENARIO_DIR/$1.touch" -o "$SCENARIO_DIR/$1.evemu" \
    || fail "gestured-touch record $1 failed"
}

# write_drag FILE ID X: an evemu recording of a 70 ms one-finger drag of tracking id ID
# (hexadecimal digits) to the right from (X, 1100) in panel units, for inject.
write_drag() {
  {
    echo "E: 0.000000 0003 002f 0000"
    echo "E: 0.000000 0003 0039 $2"
    echo "E: 0.000000 0003 0035 $3"
    echo "E: 0.000000 0003 0036 1100"
    echo "E: 0.000000 0001 014a 0001"
    echo "E: 0.000000 0000 0000 0000"
    for step in 1 2 3 4 5; do
      echo "E: 0.0${step}0000 0003 0035 $(($3 + step * 60))"
      echo "E: 0.0${step}0000 0000 0000 0000"
    done
    echo "E: 0.070000 0003 0039 -001"
    echo "E: 0.070000 0001 014a 0000"
    echo "E: 0.070000 0000 0000 0000"
  } > "$1"
}

# inject DEVNODE EVEMU-FILE: plays the recording's events into an existing node, with their
# timing (evemu-play writes them to the node; the kernel passes them to every reader as if
# the device had sent them). The way to touch a panel made with create_panel.
inject() {
  evemu-play "$1" < "$2" || fail "evemu-play $2 into $1 exited with status $?"
}

# daemon_ready_count: how many READY=1 the notify listener has received.
daemon_ready_count() { grep -c 'READY=1' "$SCENARIO_DIR/notify.log" 2>/dev/null || true; }

# ready_at_least N: the notify listener has received READY=1 at least N times.
ready_at_least() { [ "$(daemon_ready_count)" -ge "$1" ]; }

# expect_lines FILE EXPECTED WHAT: fails unless FILE holds exactly the lines EXPECTED
# (a missing file counts as empty); WHAT says what the file is, for the message.
expect_lines() {
  local actual=""
  if [ -f "$1" ]; then actual="$(cat "$1")"; fi
  if [ "$actual" != "$2" ]; then
    fail "$(printf '%s: wrong content of %s\n--- expected\n%s\n--- actual\n%s' \
      "$3" "$(basename "$1")" "${2:-(nothing)}" "${actual:-(nothing)}")"
  fi
}

# --- Time ---------------------------------------------------------------------------------

# now_us: the wall clock in microseconds, without starting a process (the VM is slow to
# start one: a scenario that times its steps must not spend its margins on date or awk).
now_us() { echo "${EPOCHREALTIME/./}"; }

# sleep_until START_US OFFSET_MS: sleeps until OFFSET_MS milliseconds after START_US (a
# now_us value); returns at once when that time has passed.
sleep_until() {
  local left=$(($1 + $2 * 1000 - ${EPOCHREALTIME/./}))
  if [ "$left" -gt 0 ]; then sleep "$(printf '%d.%06d' $((left / 1000000)) $((left % 1000000)))"; fi
}

# ms_since START_US: whole milliseconds since START_US.
ms_since() { echo $(((${EPOCHREALTIME/./} - $1) / 1000)); }

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

# thread_switches PID: one line per thread: "TID COMM VOLUNTARY+INVOLUNTARY".
thread_switches() {
  local task comm count
  for task in /proc/"$1"/task/*; do
    comm="$(cat "$task/comm" 2>/dev/null)" || continue
    count="$(awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ { sum += $2 } END { print sum + 0 }' \
      "$task/status" 2>/dev/null)" || continue
    echo "${task##*/} ${comm// /_} $count"
  done
}

# reader_of PID: the process that reads the panels for the daemon PID: its recognizer
# (`gestured __recognizer`) when the daemon runs as two processes (started as root), else
# PID itself.
reader_of() {
  local daemon="$1" child
  for child in $(children_of "$daemon" | cut -d' ' -f1); do
    if tr '\0' ' ' < "/proc/$child/cmdline" 2>/dev/null | grep -q -- ' __recognizer'; then
      echo "$child"
      return
    fi
  done
  echo "$daemon"
}

# expect_recognizer_as USER: the daemon ($DAEMON_PID) runs as two processes: a root
# launcher and its recognizer as USER, in the group input only, without capabilities and
# with no new privileges, under the system-call filter, in a read-only file system without
# homes (docs/systemd.md, "Two processes"). Its /proc status lines are kept in
# recognizer-status.txt.
expect_recognizer_as() {
  local user="$1" recognizer status="$SCENARIO_DIR/recognizer-status.txt"
  recognizer="$(reader_of "$DAEMON_PID")"
  [ "$recognizer" != "$DAEMON_PID" ] || fail "no recognizer under the launcher: $(ps -ef | grep '[g]estured')"
  grep -E '^(Uid|Gid|Groups|CapEff|CapPrm|NoNewPrivs|Seccomp):' "/proc/$recognizer/status" > "$status"
  note "recognizer $recognizer: $(tr '\n\t' '  ' < "$status")"
  grep -q "^Uid:[[:space:]]*$(id -u "$user")[[:space:]]" "$status" \
    && grep -qE "^Groups:[[:space:]]*$(getent group input | cut -d: -f3)[[:space:]]*$" "$status" \
    && grep -q '^CapEff:[[:space:]]*0000000000000000$' "$status" \
    && grep -q '^CapPrm:[[:space:]]*0000000000000000$' "$status" \
    && grep -q '^NoNewPrivs:[[:space:]]*1$' "$status" \
    && grep -q '^Seccomp:[[:space:]]*2$' "$status" \
    || fail "the recognizer's credentials: $(cat "$status")"
  awk '$5 == "/" { print $6 }' "/proc/$recognizer/mountinfo" | grep -q '^ro' \
    || fail "the recognizer's root is not read-only: $(awk '$5 == "/"' "/proc/$recognizer/mountinfo")"
  [ -z "$(ls -A "/proc/$recognizer/root/home" 2>/dev/null)" ] \
    || fail "the recognizer sees /home: $(ls -A "/proc/$recognizer/root/home")"
  [ "$(stat -c %U "/proc/$DAEMON_PID")" = root ] || fail "the launcher is not root's"
}

# actions_of PID: children_of PID, its recognizer left out: the actions it started.
actions_of() {
  local reader
  reader="$(reader_of "$1")"
  children_of "$1" | grep -v "^$reader " || true
}

# children_of PID: one line per child process of PID: "CHILD STATE COMM", from
# /proc/*/stat (STATE Z is a zombie: exited, not yet reaped).
children_of() {
  local parent="$1" stat line fields
  for stat in /proc/[0-9]*/stat; do
    { read -r line < "$stat"; } 2>/dev/null || continue
    # "pid (comm) state ppid ...": comm may hold blanks and parentheses; the last ")" ends it.
    read -r -a fields <<< "${line##*) }"
    if [ "${fields[1]:-}" = "$parent" ]; then
      local comm="${line#*(}"
      echo "${line%% *} ${fields[0]} ${comm%)*}"
    fi
  done
}
