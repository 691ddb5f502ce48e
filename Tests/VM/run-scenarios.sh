#!/usr/bin/env bash
# The real-kernel tests: builds gestured and gestured-touch, boots one VM
# (Tests/VM/run-in-vm.sh) and runs the scenarios in Tests/VM/scenarios inside it.
#
#   Tests/VM/run-scenarios.sh [NAME...]
#
# With NAMEs, only the scenarios whose file name contains one of them run. Ends with
# "N passed, N failed" alone on the last line; exits 0 only when every scenario passed.
# Each scenario's files (logs, recordings, JSON lines) are kept in $SCRATCH/vm-results.
#
# Environment: SWIFT (swift), SCRATCH (.build), SWIFT_FLAGS (extra flags for swift build;
# give the ones `swift test` had in the same SCRATCH, or everything is compiled again),
# GESTURED_VM_CONFIGURATION (debug or release; debug), GESTURED_BIN_DIR (use these
# binaries instead of building), plus
# run-in-vm.sh's GESTURED_VM_* settings. Run Tests/VM/setup.sh once before (preflight.sh,
# run first, says what is missing).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

swift="${SWIFT:-swift}"
scratch="${SCRATCH:-.build}"
configuration="${GESTURED_VM_CONFIGURATION:-debug}"
started=$SECONDS

# Nothing is built or prepared when the VM cannot boot: the missing pieces are named with
# the commands that install them, instead of every scenario failing after the boot.
if ! "$here/preflight.sh"; then
  echo "vm: the VM cannot boot on this machine (above: what is missing); no scenario ran" >&2
  exit 2
fi

if [ -z "${GESTURED_BIN_DIR:-}" ]; then
  echo "vm: building gestured and gestured-touch ($configuration)"
  # SWIFT_FLAGS is a list of words on purpose.
  # shellcheck disable=SC2086
  build=("$swift" build --scratch-path "$scratch" -c "$configuration" ${SWIFT_FLAGS:-})
  "${build[@]}" --product gestured
  "${build[@]}" --product gestured-touch
  GESTURED_BIN_DIR="$("${build[@]}" --show-bin-path)"
fi
GESTURED_BIN_DIR="$(cd "$GESTURED_BIN_DIR" && pwd)"
for binary in gestured gestured-touch; do
  [ -x "$GESTURED_BIN_DIR/$binary" ] || { echo "vm: no $GESTURED_BIN_DIR/$binary" >&2; exit 1; }
done
built=$SECONDS

scenarios=()
for file in "$here"/scenarios/*.sh; do
  name="$(basename "$file" .sh)"
  if [ $# -eq 0 ]; then
    scenarios+=("$file")
  else
    for wanted in "$@"; do
      if [[ "$name" == *"$wanted"* ]]; then scenarios+=("$file"); break; fi
    done
  fi
done
if [ "${#scenarios[@]}" -eq 0 ]; then
  echo "vm: no scenario matches: $*" >&2
  exit 64
fi

results="$(mkdir -p "$scratch" && cd "$scratch" && pwd)/vm-results"
rm -rf "$results"
mkdir -p "$results"

# Work a scenario needs that involves no kernel and is too slow under TCG is done here, on
# the host, by Tests/VM/prepare/NAME.sh into $results/prepared/NAME (the scenario's
# PREPARED_DIR in the VM, which sees the host's files).
for file in "${scenarios[@]}"; do
  name="$(basename "$file" .sh)"
  prepare="$here/prepare/$name.sh"
  [ -f "$prepare" ] || continue
  mkdir -p "$results/prepared/$name"
  prepare_started=$SECONDS
  if GESTURED="$GESTURED_BIN_DIR/gestured" GESTURED_TOUCH="$GESTURED_BIN_DIR/gestured-touch" \
    VM_TESTS="$here" SCENARIO_DIR="$results/prepared/$name" bash "$prepare" \
    > "$results/prepared/$name.log" 2>&1; then
    touch "$results/prepared/$name/done"
    echo "vm: prepared $name on the host in $((SECONDS - prepare_started)) s"
  else
    echo "vm: preparing $name failed (the scenario will fail):"
    sed 's/^/  | /' "$results/prepared/$name.log"
  fi
done
prepared=$SECONDS

set +e
"$here/run-in-vm.sh" --rwdir "$results" -- env \
  GESTURED="$GESTURED_BIN_DIR/gestured" GESTURED_TOUCH="$GESTURED_BIN_DIR/gestured-touch" \
  "$here/scenario-runner.sh" "$results" "${scenarios[@]}"
status=$?
set -e

finished=$SECONDS
echo "vm: build $((built - started)) s, host preparation $((prepared - built)) s," \
  "VM $((finished - prepared)) s (guest booted in" \
  "$(cat "$results/boot-seconds" 2>/dev/null || echo '?') s), total $((finished - started)) s;" \
  "files in $results"
if [ ! -f "$results/summary" ]; then
  echo "vm: the scenarios did not run to the end (status $status)"
  echo "0 passed, ${#scenarios[@]} failed"
  exit 1
fi
cat "$results/summary"
[ "$status" -eq 0 ]
