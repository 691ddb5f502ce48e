#!/usr/bin/env bash
# The quickest end-to-end check of the real input stack, without the daemon: in the VM,
# gestured-touch plays a double tap through uinput while evemu-record records the node the
# kernel created, and `gestured replay` of that recording must report the double tap.
# (Tests/VM/scenarios/played-double-tap-replays-as-double-tap.sh.)
exec "$(dirname "$0")/run-scenarios.sh" played-double-tap-replays-as-double-tap "$@"
