# Issue 11: the Debian package on a machine without Swift. In its own mount namespace the
# toolchain directory (/opt/swift) is hidden under an empty tmpfs (the debug binaries then
# cannot start: the check that the hiding works); `dpkg -i` installs the package made by
# `make deb` on the host (Tests/VM/prepare) into the guest's /usr, /etc and /var, which
# virtme-ng 1.42 mounts as writable overlays (writes stay in the guest's memory). The
# installed binary runs (--version, check on the installed config), its postinst has
# enabled the unit (systemd is not PID 1 here, so nothing is started), and the daemon,
# started with the installed unit's ExecStart= and a notify listener, reaches READY=1 with
# a virtual panel counted, and stops on SIGTERM. The postinst starts nothing for a config
# that does not check, nor for one its group could change, which the daemon refuses too
# (78). The daemon runs as two processes: the recognizer as the package's user gestured
# (groups gestured and input, no capabilities, under its system-call filter in a read-only
# file system); on a config of the scenario a tap runs a root command and a `user: nobody`
# command each as its user, the forwarded panel forwards a drag, and SIGHUP with a good
# config moves both processes, with a bad one keeps both on the old. Then remove keeps the conffile, purge
# takes it, the enablement and the user; the package is purged whatever happens, so later scenarios
# see the guest as before.
#
# vm-time-limit: 600 (each dpkg run reads dpkg's database of the host's ~120 000 files
# over 9p under TCG)
source "$VM_TESTS/lib.sh"

if [ -z "${GESTURED_DEB_NAMESPACE:-}" ]; then
  # The tmpfs over /opt/swift is this scenario's alone: the others need the toolchain.
  exec env GESTURED_DEB_NAMESPACE=1 unshare --mount --propagation private bash "$0"
fi

[ -f "$PREPARED_DIR/done" ] || fail "make deb failed on the host (see vm-results/prepared/)"
deb="$(ls "$PREPARED_DIR"/gestured_*_*.deb | head -n 1)"
[ -f "$deb" ] || fail "no .deb in $PREPARED_DIR"
note "package: $(basename "$deb")"

# The notify listener starts now and gets dpkg's minute to come up (python3 alone takes
# seconds under TCG, more under load); it is /usr/bin/python3, not the toolchain's.
NOTIFY_SOCKET="$SCENARIO_DIR/notify.sock"
/usr/bin/python3 "$VM_TESTS/notify-listener.py" "$NOTIFY_SOCKET" "$SCENARIO_DIR/notify.log" &
# Started before the toolchain is hidden: a running program keeps the libraries it mapped.
touch_start panel create "$VM_TESTS/scripts/double-tap.touch"
wait_until 20 "udev to process $TOUCH_DEVNODE" udev_ready "$TOUCH_DEVNODE"

# The touches for the installed daemon, recorded while gestured-touch can still run: a tap
# in each half, and a drag in the left half (not a tap: the clone gets it).
record_tap left 0.25 0.5
record_tap right 0.75 0.5
write_drag "$SCENARIO_DIR/drag.evemu" 0401 0600

mount -t tmpfs -o size=1m,mode=0755 none /opt/swift || fail "cannot mount a tmpfs over /opt/swift"
[ -z "$(ls -A /opt/swift)" ] || fail "/opt/swift is not empty after the tmpfs"
if "$GESTURED" --version > /dev/null 2>&1; then
  fail "the debug build still starts with /opt/swift hidden: the hiding proves nothing"
fi

for dir in /usr /etc /var; do
  [ -w "$dir" ] && touch "$dir/.gestured-writable" && rm "$dir/.gestured-writable" \
    || fail "$dir is not writable in the guest (virtme-ng's overlay)"
done

# postinst creates the user gestured; useradd replaces /etc/passwd, /etc/shadow, … by
# rename, which fails on a file the VM has mounted over. In this scenario's own mount
# namespace such a mount is taken away, showing the overlay's file below it.
for file in /etc/passwd /etc/shadow /etc/group /etc/gshadow; do
  if mountpoint -q "$file"; then
    note "$file is a mount point ($(findmnt -n -o SOURCE,FSTYPE "$file" | tr '\n' ' ')): unmounted here"
    umount "$file" || fail "cannot unmount $file"
  fi
done

# man-db's trigger would rebuild the index of every manual page on the machine: minutes
# under TCG. Without this file (the guest's overlay copy) the trigger does nothing.
rm -f /var/lib/man-db/auto-update

purge() { dpkg --purge gestured > "$SCENARIO_DIR/dpkg-purge-at-exit.log" 2>&1 || true; }
trap purge EXIT
started=$SECONDS
dpkg -i "$deb" > "$SCENARIO_DIR/dpkg-install.log" 2>&1 \
  || fail "dpkg -i exited with status $?: $(cat "$SCENARIO_DIR/dpkg-install.log")"
note "dpkg -i took $((SECONDS - started)) s"
[ "$(dpkg-query -W -f='${Status}' gestured)" = "install ok installed" ] \
  || fail "dpkg says: $(dpkg-query -W -f='${Status}' gestured 2>&1)"

[ "$(command -v gestured)" = /usr/bin/gestured ] || fail "gestured is not /usr/bin/gestured: $(command -v gestured)"
if ldd /usr/bin/gestured | grep -E 'not found|swift'; then fail "the installed binary misses libraries"; fi
version="$(gestured --version)" || fail "gestured --version exited with status $?"
[[ "$version" =~ ^gestured\ [0-9] ]] || fail "gestured --version printed: $version"
note "$version, $(stat -c %s /usr/bin/gestured) bytes, needs: $(readelf -d /usr/bin/gestured | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
gestured check --config /etc/gestured/gestured.yaml > "$SCENARIO_DIR/check.out" 2> "$SCENARIO_DIR/check.log" \
  || fail "gestured check of the installed config exited with status $?: $(cat "$SCENARIO_DIR/check.log")"

# What the package put where, as dpkg knows it.
for file in /lib/systemd/system/gestured.service /etc/gestured/gestured.yaml \
  /usr/share/man/man8/gestured.8.gz /usr/share/man/man5/gestured.yaml.5.gz \
  /usr/share/bash-completion/completions/gestured /usr/share/doc/gestured/copyright \
  /usr/share/doc/gestured/examples/admin-corner.yaml; do
  dpkg-query -S "$file" > /dev/null 2>&1 || fail "$file is not the package's"
done
[ "$(cat /var/lib/dpkg/info/gestured.conffiles)" = /etc/gestured/gestured.yaml ] || fail "the config is not the one conffile"
# postinst enabled the unit as deb-systemd-helper does: the WantedBy= link.
[ -L /etc/systemd/system/multi-user.target.wants/gestured.service ] \
  || fail "postinst did not enable the unit: $(ls -l /etc/systemd/system/multi-user.target.wants/ 2>&1)"
# deb-systemd-helper's record of it, which purge must remove again.
state=/var/lib/systemd/deb-systemd-helper-enabled/gestured.service.dsh-also
[ -f "$state" ] || fail "deb-systemd-helper has no record of the unit ($state)"

# The installed daemon on a config of this scenario (the package's is put back after): it
# forwards, a tap in the left half runs a root command, one in the right half a `user:
# nobody` command.
cp /etc/gestured/gestured.yaml "$SCENARIO_DIR/installed.yaml"
: > "$SCENARIO_DIR/user.out"
chmod 666 "$SCENARIO_DIR/user.out"
# install_config ROOT-OUT: the config, its root command writing into ROOT-OUT.
install_config() {
  write_config "$SCENARIO_DIR/config.yaml" <<'YAML'
devices:
  - name: kiosk
    forward: true
    regions:
      - { name: left, area: { x: 0, y: 0, width: 0.5, height: 1 } }
      - { name: right, area: { x: 0.5, y: 0, width: 0.5, height: 1 } }
    bindings:
      - { gesture: tap, region: left, run: "id -un >> @DIR@/ROOT_OUT" }
      - { gesture: tap, region: right, user: nobody, run: "id -un > @DIR@/user.out" }
YAML
  sed -i "s/ROOT_OUT/$1/" "$SCENARIO_DIR/config.yaml"
  install -m 644 -o root -g root "$SCENARIO_DIR/config.yaml" /etc/gestured/gestured.yaml.new
  mv /etc/gestured/gestured.yaml.new /etc/gestured/gestured.yaml
}
install_config root.out

# The daemon exactly as systemd would start it.
exec_start="$(sed -n 's/^ExecStart=//p' /lib/systemd/system/gestured.service)"
[ -n "$exec_start" ] || fail "the installed unit has no ExecStart="
note "ExecStart=$exec_start"
wait_until 60 "the notify listener" test -S "$NOTIFY_SOCKET"
# shellcheck disable=SC2086 # ExecStart= is a command line of plain words.
NOTIFY_SOCKET="$NOTIFY_SOCKET" $exec_start > "$SCENARIO_DIR/daemon.stdout.log" 2> "$SCENARIO_DIR/daemon.log" &
DAEMON_PID=$!
started=$SECONDS
wait_until 60 "READY=1 from the installed daemon" grep -qs 'READY=1' "$SCENARIO_DIR/notify.log"
ready="$(grep -m1 'READY=1' "$SCENARIO_DIR/notify.log")"
[[ "$ready" == *"STATUS=1 touchscreen"* ]] || fail "READY=1 without the panel counted: $ready"
note "READY=1 $((SECONDS - started)) s after ExecStart: $ready"
grep -q "^$TOUCH_DEVNODE '.*': profile" "$SCENARIO_DIR/daemon.log" \
  || fail "the daemon did not take $TOUCH_DEVNODE: $(cat "$SCENARIO_DIR/daemon.log")"
# Two processes: the root launcher and its recognizer, as the package's user gestured with
# the groups gestured and input only and no capabilities (docs/systemd.md, "Two processes").
getent passwd gestured > /dev/null || fail "postinst did not create the user gestured"
[ "$(id -nG gestured | tr ' ' '\n' | sort | tr '\n' ' ')" = "gestured input " ] \
  || fail "the user gestured is in: $(id -nG gestured)"
expect_recognizer_as gestured
grep -q "^Gid:[[:space:]]*$(id -g gestured)[[:space:]]" "$SCENARIO_DIR/recognizer-status.txt" \
  || fail "the recognizer's group is not gestured's: $(cat "$SCENARIO_DIR/recognizer-status.txt")"
# A tap runs a root command and a `user:` command, each as its user.
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/left.evemu"
wait_until 10 "the left tap's command" test -s "$SCENARIO_DIR/root.out"
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/right.evemu"
wait_until 10 "the right tap's command" test -s "$SCENARIO_DIR/user.out"
expect_lines "$SCENARIO_DIR/root.out" "root" "the left tap's command runs as root"
expect_lines "$SCENARIO_DIR/user.out" "nobody" "the right tap's user: command runs as nobody"
# The forwarded panel forwards: the drag reaches its clone, the taps do not.
clone="$(clone_of "$TOUCH_DEVNODE")"
[ -n "$clone" ] || fail "the installed daemon made no clone: $(cat "$SCENARIO_DIR/daemon.log")"
wait_until 10 "udev to know the clone $clone" udev_ready "$clone"
record_start "$clone" "$SCENARIO_DIR/clone.evemu"
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/drag.evemu"
wait_until 10 "the drag on the clone" grep -qE "^E: [0-9.]+ 0003 0039 0*401([^0-9]|\$)" "$SCENARIO_DIR/clone.evemu"
# SIGHUP with a good config: both processes move (the new command runs); with a bad one
# both keep it.
install_config root-2.out
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the reload" ready_at_least 2
grep -q "config reloaded" "$SCENARIO_DIR/daemon.log" || fail "the launcher did not reload: $(tail -5 "$SCENARIO_DIR/daemon.log")"
sleep 0.4 # past the tap's cooldown
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/left.evemu"
wait_until 10 "the new command after the reload" test -s "$SCENARIO_DIR/root-2.out"
printf 'devices:\n  - name: kiosk\n    bindings:\n      - { gesture: tapp, run: "true" }\n' > "$SCENARIO_DIR/bad.yaml"
install -m 644 -o root -g root "$SCENARIO_DIR/bad.yaml" /etc/gestured/gestured.yaml
kill -HUP "$DAEMON_PID"
wait_until 20 "READY=1 after the failed reload" ready_at_least 3
grep -q "keeping the previous one" "$SCENARIO_DIR/daemon.log" \
  || fail "the launcher did not keep the previous config: $(tail -5 "$SCENARIO_DIR/daemon.log")"
sleep 0.4
inject "$TOUCH_DEVNODE" "$SCENARIO_DIR/left.evemu"
wait_until 10 "the kept command after the failed reload" lines_at_least "$SCENARIO_DIR/root-2.out" 2
expect_lines "$SCENARIO_DIR/root.out" "root" "the first config's command ran once"
stop_process "$DAEMON_PID" 20
[ "$STOP_STATUS" -eq 0 ] || fail "the installed daemon exited with status $STOP_STATUS on SIGTERM"
wait_until 5 "STOPPING=1" grep -qs 'STOPPING=1' "$SCENARIO_DIR/notify.log"
kill "$RECORD_PID" 2>/dev/null || true
install -m 644 -o root -g root "$SCENARIO_DIR/installed.yaml" /etc/gestured/gestured.yaml

# postinst's start rule, under a stand-in service manager: with /run/systemd/system
# present (systemd's own test for "running"), deb-systemd-invoke and systemctl log their
# arguments instead of acting. The real deb-systemd-helper runs, told it is called by dpkg.
stubs="$SCENARIO_DIR/stubs"
mkdir -p "$stubs"
for tool in deb-systemd-invoke systemctl; do
  printf '#!/bin/sh
echo "%s $*" >> "%s"
' "$tool" "$SCENARIO_DIR/service-manager.log" > "$stubs/$tool"
  chmod +x "$stubs/$tool"
done
made_run_dir=no
if [ ! -d /run/systemd/system ]; then mkdir -p /run/systemd/system && made_run_dir=yes; fi
maintainer_script() {
  local script="$1"
  shift
  env PATH="$stubs:$PATH" DPKG_MAINTSCRIPT_PACKAGE=gestured DPKG_MAINTSCRIPT_NAME="$script" \
    "/var/lib/dpkg/info/gestured.$script" "$@"
}
# expect_service_actions EXPECTED WHAT: what the stand-ins were asked to do so far, except
# daemon-reload.
expect_service_actions() {
  grep -v 'daemon-reload' "$SCENARIO_DIR/service-manager.log" > "$SCENARIO_DIR/service-actions.log" || true
  expect_lines "$SCENARIO_DIR/service-actions.log" "$1" "$2"
}
maintainer_script postinst configure 2> "$SCENARIO_DIR/postinst-install.log" \
  || fail "postinst configure exited with status $?"
expect_service_actions "deb-systemd-invoke start gestured.service" "postinst on installation"
maintainer_script postinst configure 0.1.0 2> "$SCENARIO_DIR/postinst-upgrade.log" \
  || fail "postinst configure 0.1.0 exited with status $?"
expect_service_actions "$(printf 'deb-systemd-invoke start gestured.service\ndeb-systemd-invoke restart gestured.service')" \
  "postinst on upgrade"
cp /etc/gestured/gestured.yaml "$SCENARIO_DIR/good.yaml"
printf 'bindings:\n  - { gesture: tapp, run: "true" }\n' > /etc/gestured/gestured.yaml
maintainer_script postinst configure 0.1.0 2> "$SCENARIO_DIR/postinst-bad-config.log" \
  || fail "postinst with a bad config exited with status $? (it must not fail the installation)"
expect_service_actions "$(printf 'deb-systemd-invoke start gestured.service\ndeb-systemd-invoke restart gestured.service')" \
  "postinst with a config that does not check: nothing (re)started"
grep -q "^/etc/gestured/gestured.yaml:2:[0-9]*: error: 'tapp' is not a gesture" "$SCENARIO_DIR/postinst-bad-config.log" \
  && grep -q "^gestured: not restarted: fix /etc/gestured/gestured.yaml" "$SCENARIO_DIR/postinst-bad-config.log" \
  || fail "postinst with a bad config said: $(cat "$SCENARIO_DIR/postinst-bad-config.log")"
cp "$SCENARIO_DIR/good.yaml" /etc/gestured/gestured.yaml
# A good config its group could change: the gate refuses it as the daemon does (78).
chmod 664 /etc/gestured/gestured.yaml
maintainer_script postinst configure 0.1.0 2> "$SCENARIO_DIR/postinst-unsafe-config.log" \
  || fail "postinst with an unsafe config exited with status $? (it must not fail the installation)"
expect_service_actions "$(printf 'deb-systemd-invoke start gestured.service\ndeb-systemd-invoke restart gestured.service')" \
  "postinst with a config others could change: nothing (re)started"
grep -q "^/etc/gestured/gestured.yaml: error: refusing a config writable by its group (mode 0664)" \
  "$SCENARIO_DIR/postinst-unsafe-config.log" \
  && grep -q "^gestured: not restarted: fix /etc/gestured/gestured.yaml" "$SCENARIO_DIR/postinst-unsafe-config.log" \
  || fail "postinst with an unsafe config said: $(cat "$SCENARIO_DIR/postinst-unsafe-config.log")"
unsafe_status=0
gestured --config /etc/gestured/gestured.yaml > /dev/null 2> "$SCENARIO_DIR/daemon-unsafe-config.log" \
  || unsafe_status=$?
[ "$unsafe_status" -eq 78 ] \
  && grep -q "refusing a config writable by its group (mode 0664)" "$SCENARIO_DIR/daemon-unsafe-config.log" \
  || fail "the daemon on the config check refused exited with status $unsafe_status: $(cat "$SCENARIO_DIR/daemon-unsafe-config.log")"
chmod 644 /etc/gestured/gestured.yaml
maintainer_script prerm upgrade 0.1.0 || fail "prerm upgrade exited with status $?"
maintainer_script prerm remove || fail "prerm remove exited with status $?"
expect_service_actions "$(printf 'deb-systemd-invoke start gestured.service\ndeb-systemd-invoke restart gestured.service\ndeb-systemd-invoke stop gestured.service')" \
  "prerm: a stop on remove only"
[ "$made_run_dir" = no ] || rmdir /run/systemd/system

started=$SECONDS
dpkg -r gestured > "$SCENARIO_DIR/dpkg-remove.log" 2>&1 || fail "dpkg -r exited with status $?"
note "dpkg -r took $((SECONDS - started)) s"
[ ! -e /usr/bin/gestured ] || fail "dpkg -r left /usr/bin/gestured"
[ -f /etc/gestured/gestured.yaml ] || fail "dpkg -r removed the conffile"
started=$SECONDS
dpkg --purge gestured > "$SCENARIO_DIR/dpkg-purge.log" 2>&1 || fail "dpkg --purge exited with status $?"
note "dpkg --purge took $((SECONDS - started)) s"
[ ! -e /etc/gestured/gestured.yaml ] || fail "dpkg --purge left the config"
[ ! -e /etc/systemd/system/multi-user.target.wants/gestured.service ] \
  || fail "dpkg --purge left the unit enabled"
[ ! -e "$state" ] || fail "dpkg --purge left deb-systemd-helper's record ($state)"
! getent passwd gestured > /dev/null || fail "dpkg --purge left the user gestured"
! getent group gestured > /dev/null || fail "dpkg --purge left the group gestured"
kill "$TOUCH_PID"
