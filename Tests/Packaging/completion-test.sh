#!/usr/bin/env bash
# Loads systemd/gestured.bash-completion into a plain bash (no bash-completion package) and
# checks what Tab offers: commands, each command's options, config files after --config
# (both forms), evemu files for replay, input nodes for record, commands after help.
#
#   Tests/Packaging/completion-test.sh
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
# shellcheck source=../../systemd/gestured.bash-completion
source "$root/systemd/gestured.bash-completion"

work="$(mktemp -d)"
nodes="$(mktemp -d)"
trap 'rm -rf "$work" "$nodes"' EXIT
cd "$work"
mkdir -p configs/nested
touch kiosk.yaml map.yml notes.txt taps.evemu other.evemu picture.svg configs/lobby.yaml configs/readme
# Stand-ins for /dev/input: record offers the event nodes, not the others.
touch "$nodes/event0" "$nodes/event12" "$nodes/mouse0"
_gestured_input_nodes="$nodes/event*"

failures=0
# expect "COMMAND LINE" "EXPECTED WORDS": the line's last word (may be empty) is completed.
expect() {
  local line="$1" expected="$2"
  read -r -a COMP_WORDS <<< "$line"
  if [[ "$line" == *" " ]]; then COMP_WORDS+=(""); fi
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$line"
  COMP_POINT=${#line}
  _gestured || true
  local actual
  actual="$(printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' ' | sed 's/ $//')"
  if [[ "$actual" == "$expected" ]]; then
    echo "ok   '$line' -> $actual"
  else
    echo "FAIL '$line': expected '$expected', got '$actual'"
    failures=$((failures + 1))
  fi
}

expect "gestured " "check devices help monitor record replay trace"
expect "gestured re" "record replay"
expect "gestured -" "--config --help --verbose --version"
expect "gestured --config " "configs/ kiosk.yaml map.yml"
expect "gestured --config configs/" "configs/lobby.yaml configs/nested/"
expect "gestured --config=k" "kiosk.yaml"
expect "gestured -c m" "map.yml"
expect "gestured --config kiosk.yaml mon" "monitor"
expect "gestured check --" "--config --help"
expect "gestured check --config " "configs/ kiosk.yaml map.yml"
expect "gestured devices -" "--config --help"
expect "gestured monitor --config kiosk.yaml -" "--config --continuous --help --pretty --verbose"
expect "gestured replay -" "--config --continuous --device --help --run-actions --verbose"
expect "gestured replay --config kiosk.yaml " "configs/ other.evemu taps.evemu"
expect "gestured replay --device n" "notes.txt"
expect "gestured trace -" "--config --device --help --svg"
expect "gestured trace --config kiosk.yaml " "configs/ other.evemu taps.evemu"
expect "gestured trace --config kiosk.yaml taps.evemu --svg " "configs/ picture.svg"
expect "gestured trace --svg=p" "picture.svg"
expect "gestured record " "$nodes/event0 $nodes/event12"
expect "gestured record $nodes/event1" "$nodes/event12"
expect "gestured record $nodes/event0 " ""
expect "gestured record -" "--help"
expect "gestured help " "check devices help monitor record replay trace"
expect "gestured help check " ""
[[ "$(complete -p gestured)" == "complete -F _gestured gestured" ]] || {
  echo "FAIL: not registered: $(complete -p gestured 2>&1)"
  failures=$((failures + 1))
}

if [[ $failures -gt 0 ]]; then
  echo "completion: $failures failed"
  exit 1
fi
echo "completion: all passed"
