# Issue 4, scenario 6: an action that hangs is killed at its timeout (SIGTERM to its process
# group; one that ignores SIGTERM gets SIGKILL 2 s later); a burst of 50 taps on a binding
# whose command takes 1 s never has two instances running at once (the command holds a
# mkdir lock and records any overlap), every tap is accepted (cooldown 0): it starts, or
# waits behind the running one, or coalesces into the one waiting run, and the runs'
# GESTURED_STEPS add up to the 50 taps (nothing lost); each waiting run starts after its
# predecessor's exit; a tap after the burst's last run starts it again; afterwards the
# daemon has no child left, zombie or not (/proc/*/stat).
#
# Timing under TCG: a loaded host can stall the guest for seconds (a `sleep 1` once took
# 3.3 s here), so a process may die seconds after the signal that kills it. What is exact
# whatever the load: which signal ended it (the kernel decides that when the signal is
# sent; the daemon logs the wait status) and that it was not killed before its time.
source "$VM_TESTS/lib.sh"

write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
regions:
  - { name: hang, area: { x: 0, y: 0, width: 0.3, height: 1 } }
  - { name: stubborn, area: { x: 0.3, y: 0, width: 0.3, height: 1 } }
  - { name: burst, area: { x: 0.6, y: 0, width: 0.4, height: 1 } }
bindings:
  - { gesture: tap, region: hang, name: hang, timeout: 2s,
      run: 'echo "$$ $(cut -d " " -f 22 /proc/$$/stat)" > @DIR@/hang.pid; exec sleep 600' }
  - { gesture: tap, region: stubborn, name: stubborn, timeout: 2s,
      run: "trap '' TERM; echo \"$$ $(cut -d ' ' -f 22 /proc/$$/stat)\" > @DIR@/stubborn.pid; while :; do sleep 0.2; done" }
  - { gesture: tap, region: burst, name: burst, cooldown: 0ms,
      run: 'if mkdir @DIR@/burst.lock 2>/dev/null; then echo "${GESTURED_STEPS:-1}" >> @DIR@/burst.runs; sleep 1; rmdir @DIR@/burst.lock; else echo overlap >> @DIR@/burst.overlaps; fi' }
YAML
"$GESTURED" check --config "$SCENARIO_DIR/config.yaml" > /dev/null || fail "the scenario's config does not pass gestured check"

daemon_start "$SCENARIO_DIR/config.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
# The panel stays after the script (until killed) for one more tap, written into its node.
plug_panel actions "$VM_TESTS/scripts/daemon/actions.touch" --hold-open 120000
player=$TOUCH_PID node=$TOUCH_DEVNODE
{ grep '^panel ' "$VM_TESTS/scripts/daemon/actions.touch"; echo "tap at=100ms x=0.8 y=0.5 duration=60ms"; } \
  > "$SCENARIO_DIR/burst-tap.touch"
"$GESTURED_TOUCH" record "$SCENARIO_DIR/burst-tap.touch" -o "$SCENARIO_DIR/burst-tap.evemu" \
  || fail "gestured-touch record burst-tap failed"
kill -USR1 "$player"

# running PID: the process exists and is not a zombie.
running() {
  local line fields
  { read -r line < "/proc/$1/stat"; } 2>/dev/null || return 1
  read -r -a fields <<< "${line##*) }"
  [ "${fields[0]}" != Z ]
}
uptime_now() { local up _; read -r up _ < /proc/uptime; echo "$up"; }

wait_until 10 "the hanging action to start" test -s "$SCENARIO_DIR/hang.pid"
wait_until 10 "the action ignoring SIGTERM to start" test -s "$SCENARIO_DIR/stubborn.pid"
# Each action wrote its pid and the kernel's start time of its process (field 22 of
# /proc/PID/stat: clock ticks since boot, the clock of /proc/uptime), which is when the
# daemon spawned it, before its timeout started: a time the shell read itself would come
# a shell start later (up to a few hundred ms under TCG) and make it look killed early.
# Under load this script may look only after the process is gone.
hz="$(getconf CLK_TCK)"
since_boot() { awk -v t="$1" -v hz="$hz" 'BEGIN { printf "%.2f", t / hz }'; }
read -r hang_pid hang_ticks < "$SCENARIO_DIR/hang.pid"
read -r stubborn_pid stubborn_ticks < "$SCENARIO_DIR/stubborn.pid"
hang_start="$(since_boot "$hang_ticks")" stubborn_start="$(since_boot "$stubborn_ticks")"
hang_end="" stubborn_end=""
deadline=$((SECONDS + 20))
while [ -z "$hang_end" ] || [ -z "$stubborn_end" ]; do
  [ "$SECONDS" -lt "$deadline" ] || fail "the hanging actions still run 20 s after they started (timeout: 2 s)"
  if [ -z "$hang_end" ] && ! running "$hang_pid"; then hang_end="$(uptime_now)"; fi
  if [ -z "$stubborn_end" ] && ! running "$stubborn_pid"; then stubborn_end="$(uptime_now)"; fi
  sleep 0.05
done
hang_lived="$(awk -v a="$hang_start" -v b="$hang_end" 'BEGIN { printf "%.2f", b - a }')"
stubborn_lived="$(awk -v a="$stubborn_start" -v b="$stubborn_end" 'BEGIN { printf "%.2f", b - a }')"
note "the hanging action lived $hang_lived s, the one ignoring SIGTERM $stubborn_lived s (timeout 2 s, SIGKILL 2 s after SIGTERM)"
awk -v t="$hang_lived" 'BEGIN { exit !(t >= 1.9 && t <= 15) }' \
  || fail "the hanging action lived $hang_lived s; its timeout is 2 s"
awk -v t="$stubborn_lived" 'BEGIN { exit !(t >= 3.9 && t <= 15) }' \
  || fail "the action ignoring SIGTERM lived $stubborn_lived s; SIGKILL is due 2 s after the SIGTERM at its 2 s timeout"
grep -q "^\[default/hang\] timed out after 2 s: SIGTERM to process group $hang_pid\$" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon did not log SIGTERM to the hanging action at its timeout"
grep -q "^\[default/hang\] pid $hang_pid failed: killed by signal 15 (SIGTERM)" "$SCENARIO_DIR/daemon.log" \
  || fail "the hanging action was not ended by the SIGTERM of its timeout: $(grep "pid $hang_pid " "$SCENARIO_DIR/daemon.log")"
grep -q "^\[default/stubborn\] 2 s after SIGTERM: SIGKILL to process group $stubborn_pid\$" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon did not log SIGKILL for the action ignoring SIGTERM"
grep -q "^\[default/stubborn\] pid $stubborn_pid failed: killed by signal 9 (SIGKILL)" "$SCENARIO_DIR/daemon.log" \
  || fail "the action ignoring SIGTERM was not ended by SIGKILL: $(grep "pid $stubborn_pid " "$SCENARIO_DIR/daemon.log")"

wait_until 30 "gestured-touch to play the taps" grep -qs 'played' "$SCENARIO_DIR/actions.touch.log"
# A firing's decision: started at once (no "after waiting"), queued, or coalesced.
burst_count() { grep -cE "$1" "$SCENARIO_DIR/daemon.log" || true; }
started_at_once() { burst_count '^\[default/burst\] started pid [0-9]+: '; }
queued() { burst_count '^\[default/burst\] firing queued: its previous run \(pid [0-9]+\) is still running$'; }
coalesced() { burst_count '^\[default/burst\] firing coalesced into its waiting run \(now [0-9]+ firings\)$'; }
burst_decisions() { echo $(($(started_at_once) + $(queued) + $(coalesced))); }
all_decided() { [ "$(burst_decisions)" -ge 50 ]; }
poll_until 20 all_decided \
  || fail "the daemon decided on $(burst_decisions) of the burst's 50 taps (started, queued or coalesced) within 20 s"
burst_started() { burst_count '^\[default/burst\] started pid'; }
burst_ended() { burst_count '^\[default/burst\] pid [0-9]+ (exited|failed)'; }
# Nothing waits any more and every run that started has ended.
all_ended() { [ "$(burst_ended)" -ge "$(burst_started)" ] \
  && [ "$(burst_count '^\[default/burst\] started pid [0-9]+ after waiting ')" -eq "$(queued)" ]; }
wait_until 30 "the burst's last run to end" all_ended

started="$(burst_started)" at_once="$(started_at_once)" waited="$(queued)" merged="$(coalesced)"
runs="$(count_lines "$SCENARIO_DIR/burst.runs")"
steps="$(awk '{ sum += $1 } END { print sum + 0 }' "$SCENARIO_DIR/burst.runs")"
note "burst of 50 taps: $at_once started at once, $waited queued behind the running one, $merged coalesced into a waiting run; $runs runs stood for $steps taps"
[ ! -e "$SCENARIO_DIR/burst.overlaps" ] \
  || fail "two instances of the slow command ran at once $(count_lines "$SCENARIO_DIR/burst.overlaps") time(s)"
[ "$((at_once + waited + merged))" -eq 50 ] \
  || fail "of the burst's 50 taps, $at_once started, $waited queued and $merged coalesced: $((at_once + waited + merged)), not 50"
[ "$waited" -ge 1 ] || fail "no tap of the burst waited: the burst did not test the queue"
[ "$runs" -eq "$started" ] || fail "$started runs started but $runs ran the command"
[ "$steps" -eq 50 ] || fail "the runs' GESTURED_STEPS add up to $steps, not the burst's 50 taps: $(tr '\n' ' ' < "$SCENARIO_DIR/burst.runs")"
# Each waiting run started only after the run before it ended (the log is in order).
awk '/^\[default\/burst\] started pid/ { if (running) bad = 1; running = 1 }
     /^\[default\/burst\] pid [0-9]+ (exited|failed)/ { running = 0 }
     END { exit bad }' "$SCENARIO_DIR/daemon.log" \
  || fail "a burst run started before the previous one ended (per the daemon's log)"

# One more tap, after the last run ended: it must start the command again.
before="$started"
inject "$node" "$SCENARIO_DIR/burst-tap.evemu"
started_again() { [ "$(burst_started)" -gt "$before" ]; }
wait_until 10 "a tap after the burst's last run to start the command again" started_again
kill -TERM "$player" 2>/dev/null || true
no_children() { [ -z "$(actions_of "$DAEMON_PID")" ]; }
poll_until 15 no_children \
  || fail "the daemon's children did not all end and get reaped (pid state name): $(actions_of "$DAEMON_PID" | tr '\n' ';')"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon died"
[ "$(count_lines "$SCENARIO_DIR/burst.runs")" -eq $((runs + 1)) ] \
  || fail "the tap after the burst started the command but it did not run"
[ ! -e "$SCENARIO_DIR/burst.overlaps" ] || fail "two instances of the slow command ran at once"
