# Host side of the .deb scenario: `make deb` (the static-stdlib release build, man pages,
# dpkg-shlibdeps) into PREPARED_DIR, which the guest sees. Needs scdoc and dpkg-dev
# (Tests/VM/setup.sh installs them).
set -euo pipefail
make --no-print-directory deb DEB_DIR="$SCENARIO_DIR" SCRATCH="${SCRATCH:-.build}"
ls "$SCENARIO_DIR"/gestured_*_*.deb
