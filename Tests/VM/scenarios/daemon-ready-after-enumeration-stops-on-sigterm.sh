# Issue 4, scenario 7: with a touchscreen present at start, the daemon's READY=1 comes after
# enumeration (its STATUS counts the panel); SIGTERM gives STOPPING=1 and exit status 0.
source "$VM_TESTS/lib.sh"

touch_start panel create "$VM_TESTS/scripts/double-tap.touch"
wait_until 20 "udev to process $TOUCH_DEVNODE" udev_ready "$TOUCH_DEVNODE"

daemon_start "$VM_TESTS/configs/gestures.yaml"
wait_until 30 "READY=1 on the notify socket" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
ready="$(grep -m1 'READY=1' "$SCENARIO_DIR/notify.log")"
[[ "$ready" == *"STATUS=1 touchscreen"* ]] \
  || fail "READY=1 should come with the enumerated panel counted (STATUS=1 touchscreen); got: $ready"
kill -0 "$DAEMON_PID" 2>/dev/null || fail "the daemon exited after READY=1"

stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the daemon exited with status $STOP_STATUS on SIGTERM, not 0"
wait_until 5 "STOPPING=1 on the notify socket" grep -qs 'STOPPING=1' "$SCENARIO_DIR/notify.log"
