# Issue 13: TouchGestures' live source. The example app (examples/kiosk-gestures) starts
# with no touchscreen and `.firstTouchscreen()`; a panel plugged in later plays the app's
# demo script (a double tap in the corner, a two-finger swipe left, a pinch out, a long
# press), and each gesture reaches its closure once, in order, then the app sees the panel go;
# the source says when it waits for a touchscreen, before the panel and after it went.
source "$VM_TESTS/lib.sh"

[ -f "$PREPARED_DIR/done" ] || fail "building the example app failed on the host (see vm-results/prepared/)"
"$PREPARED_DIR/KioskGestures" > "$SCENARIO_DIR/app.log" 2>&1 &
APP_PID=$!
sleep 1
kill -0 "$APP_PID" 2>/dev/null || fail "the app exited at once: $(cat "$SCENARIO_DIR/app.log")"

touch_start demo play "$VM_TESTS/../../examples/kiosk-gestures/demo.touch" --wait-for-signal
wait_until 30 "the app to take $TOUCH_DEVNODE" grep -qs "^reading 'Example Panel'" "$SCENARIO_DIR/app.log"
mark="$(count_lines "$SCENARIO_DIR/app.log")"
kill -USR1 "$TOUCH_PID"
touch_wait demo "$TOUCH_PID"
wait_until 30 "the app to see $TOUCH_DEVNODE go" grep -qs "^$TOUCH_DEVNODE went away" "$SCENARIO_DIR/app.log"
wait_until 30 "the app to wait for a touchscreen again" \
  logged_since "$SCENARIO_DIR/app.log" "$mark" '^waiting for a touchscreen'
kill -0 "$APP_PID" 2>/dev/null || fail "the app died"

# Scales depend on when the kernel's frames fall; the gestures, their order and places do not.
grep -v '^zoom step ' "$SCENARIO_DIR/app.log" > "$SCENARIO_DIR/gestures.txt"
expect_lines "$SCENARIO_DIR/gestures.txt" "$(printf '%s\n' \
  "waiting for a touchscreen" \
  "reading 'Example Panel'" \
  "double tap in corner at 0.95, 0.05" \
  "2-finger swipe left: next page" \
  "zoom done after 4 steps" \
  "long press at 0.20, 0.80: menu" \
  "$TOUCH_DEVNODE went away" \
  "waiting for a touchscreen")" "the closures' lines"
grep -q '^zoom step 1: ' "$SCENARIO_DIR/app.log" || fail "no zoom step reached the pinch's closure"

stop_process "$APP_PID" 10
