#!/usr/bin/env bash
# Installs what the real-kernel tests need, idempotently: a Debian kernel with uinput,
# QEMU, the host's udev and kmod (the guest runs the host's userspace), evemu-tools, and
# virtme-ng from PyPI in a venv. Run as root (or with sudo available). Safe to re-run:
# it installs only what is missing.
set -euo pipefail

VENV="${GESTURED_VM_VENV:-/opt/gestured-vm-venv}"
# virtme-ng's version is pinned so a new release cannot change how the guest boots.
VIRTME_NG_VERSION="${VIRTME_NG_VERSION:-1.42}"

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
apt_get() { $sudo env DEBIAN_FRONTEND=noninteractive apt-get "$@"; }

# qemu-system-x86 boots the guest; linux-image-amd64 is the kernel (uinput is a module
# there); busybox-static is the one binary virtme-ng puts in its initramfs (it must be
# statically linked; it replaces Debian's dynamic busybox where that is installed); udev
# and kmod run inside the guest, from the host's filesystem; evemu-tools records and
# replays; python3-venv holds virtme-ng, which runs `file` on busybox (it refuses one that
# is not statically linked) and on the kernel (its version); python3 (the notify listener),
# jq (JSON lines), procps (ps, pgrep) and binutils (readelf for preflight.sh, strings for
# virtme-ng) serve the scenarios.
APT_PACKAGES=(qemu-system-x86 linux-image-amd64 busybox-static file udev kmod evemu-tools
  python3 python3-venv jq procps binutils)
# Issue 11, packaging: the .deb scenario's host-side preparation runs `make deb`, which
# needs scdoc (the manual pages) and dpkg-dev (dpkg-shlibdeps).
APT_PACKAGES+=(scdoc dpkg-dev)
# Issue 26, key and wheel actions: `libinput list-devices` shows how libinput classifies
# gestured's virtual keyboard and pointer.
APT_PACKAGES+=(libinput-tools)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  if [ "$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null)" != "install ok installed" ]; then
    missing+=("$package")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  apt_get update
  apt_get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

if [ ! -x "$VENV/bin/vng" ] || ! "$VENV/bin/pip" show virtme-ng 2>/dev/null | grep -x "Version: $VIRTME_NG_VERSION" >/dev/null; then
  echo "setup: installing virtme-ng $VIRTME_NG_VERSION into $VENV"
  $sudo python3 -m venv "$VENV"
  $sudo "$VENV/bin/pip" install --quiet "virtme-ng==$VIRTME_NG_VERSION"
else
  echo "setup: virtme-ng $VIRTME_NG_VERSION present in $VENV"
fi

# The kernel image must be readable by the (possibly unprivileged) user who boots it.
for kernel in /boot/vmlinuz-*; do
  [ -r "$kernel" ] || $sudo chmod a+r "$kernel"
done
"$(dirname "$0")/preflight.sh"
echo "setup: done ($(ls /boot/vmlinuz-* | tr '\n' ' '))"
