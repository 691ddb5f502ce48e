#!/usr/bin/env bash
# Runs inside the VM (Tests/VM/run-scenarios.sh starts it): each scenario in turn, each in
# its own session and its own directory, with a time limit; prints one result line per
# scenario, and for a failure the scenario's output and its *.log files (the daemon's log).
# Writes "N passed, N failed[, N skipped]" to RESULTS/summary.
#
# TCG makes a loaded host's guest stall for hundreds of milliseconds at a time (a touch
# script's events arrive late, a deadline fires late), so a scenario that fails is run once
# more (GESTURED_VM_RETRIES, default 1): its first failure is printed in full as RETRY, and
# the scenarios that passed only on a retry are named before the summary. A scenario that
# fails every time fails.
#
#   scenario-runner.sh RESULTS SCENARIO.sh...
#
# Needs GESTURED and GESTURED_TOUCH in the environment.
set -uo pipefail

results="$1"
shift
export VM_TESTS
VM_TESTS="$(cd "$(dirname "$0")" && pwd)"
: "${GESTURED:?}" "${GESTURED_TOUCH:?}"
export GESTURED GESTURED_TOUCH
# Per scenario; a hung scenario must not hold up the rest. A scenario that needs longer says
# so in a line "# vm-time-limit: SECONDS".
default_limit="${GESTURED_VM_SCENARIO_TIMEOUT:-300}"
work_root=/run/gestured-scenarios

echo "vm: kernel $(uname -r), booted in $(cut -d' ' -f1 /proc/uptime) s; $# scenario(s)"
echo "$(cut -d' ' -f1 /proc/uptime)" > "$results/boot-seconds"

retries="${GESTURED_VM_RETRIES:-1}"
passed=0
failed=0
skipped=0
retried=()

# show_failure NAME DIR: the scenario's output and every log it left.
show_failure() {
  echo "  --- output of $1"
  sed 's/^/  | /' "$2/output.txt"
  for log in "$2"/*.log; do
    [ -f "$log" ] || continue
    echo "  --- $(basename "$log") (last 200 lines)"
    tail -n 200 "$log" | sed 's/^/  | /'
  done
}

# run_scenario SCENARIO NAME DIR: one run; sets status and elapsed.
run_scenario() {
  local scenario="$1" name="$2" dir="$3" started limit leader timed_out
  rm -rf "$dir"
  mkdir -p "$dir"
  started=$SECONDS
  limit="$(sed -n 's/^# vm-time-limit: *\([0-9][0-9]*\).*/\1/p' "$scenario" | head -n 1)"
  limit="${limit:-$default_limit}"

  # Its own session: whatever it leaves running (devices, daemons, actions in their own
  # process groups) is found by session id afterwards and ended.
  SCENARIO_DIR="$dir" PREPARED_DIR="$results/prepared/$name" \
    setsid bash "$scenario" > "$dir/output.txt" 2>&1 < /dev/null &
  leader=$!
  timed_out=no
  while kill -0 "$leader" 2>/dev/null; do
    if [ $((SECONDS - started)) -ge "$limit" ]; then
      timed_out=yes
      kill -TERM "$leader" 2>/dev/null
      sleep 2
      break
    fi
    sleep 0.2
  done
  wait "$leader" 2>/dev/null
  status=$?
  for pid in $(ps -o pid= -s "$leader" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
  # Removed devices must be gone from udev before the next scenario enumerates.
  udevadm settle --timeout=30 2>/dev/null

  elapsed=$((SECONDS - started))
  if [ "$timed_out" = yes ]; then
    echo "FAIL: timed out after $limit s" >> "$dir/output.txt"
    status=124
  fi
}

for scenario in "$@"; do
  name="$(basename "$scenario" .sh)"
  dir="$work_root/$name"
  attempt=0
  while true; do
    run_scenario "$scenario" "$name" "$dir"
    case "$status" in 0 | 77) break ;; esac
    [ "$attempt" -lt "$retries" ] || break
    attempt=$((attempt + 1))
    reason="$(sed -n 's/^FAIL: //p' "$dir/output.txt" | head -n 1)"
    echo "RETRY $name (${elapsed} s): ${reason:-exit status $status}"
    show_failure "$name" "$dir"
    mkdir -p "$results/$name.failed-$attempt"
    (cd "$dir" && find . -type f -print0 | xargs -0 -r cp --parents -t "$results/$name.failed-$attempt")
  done
  if [ "$status" -eq 0 ] && [ "$attempt" -gt 0 ]; then retried+=("$name"); fi
  case "$status" in
    0)
      passed=$((passed + 1))
      echo "PASS $name (${elapsed} s)"
      ;;
    77)
      skipped=$((skipped + 1))
      echo "SKIP $name: $(sed -n 's/^SKIP: //p' "$dir/output.txt" | head -n 1)"
      ;;
    *)
      failed=$((failed + 1))
      reason="$(sed -n 's/^FAIL: //p' "$dir/output.txt" | head -n 1)"
      echo "FAIL $name (${elapsed} s): ${reason:-exit status $status}"
      show_failure "$name" "$dir"
      ;;
  esac
  # Keep the scenario's files for the host (sockets and FIFOs are left out).
  mkdir -p "$results/$name"
  (cd "$dir" && find . -type f -print0 | xargs -0 -r cp --parents -t "$results/$name")
done

if [ "${#retried[@]}" -gt 0 ]; then
  echo "vm: passed only on a retry (${#retried[@]}): ${retried[*]}" | tee "$results/retried"
fi
summary="$passed passed, $failed failed"
if [ "$skipped" -gt 0 ]; then summary+=", $skipped skipped"; fi
echo "$summary" > "$results/summary"
[ "$failed" -eq 0 ]
