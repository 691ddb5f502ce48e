#!/usr/bin/env bash
# Checks, before anything is built or booted, that this machine has what a VM boot needs:
# virtme-ng in its venv, QEMU, a readable kernel, `file`, and a statically linked busybox where
# virtme-ng looks for one (it copies that binary alone into its initramfs, so a dynamically
# linked busybox would not run there). Prints each missing piece with the command that
# installs it and exits 1; prints nothing and exits 0 when all is there.
#
#   Tests/VM/preflight.sh          (run-in-vm.sh and run-scenarios.sh call it first)
#
# Environment: GESTURED_VM_VENV, GESTURED_VM_KERNEL, as run-in-vm.sh.
set -uo pipefail

venv="${GESTURED_VM_VENV:-/opt/gestured-vm-venv}"
kernel="${GESTURED_VM_KERNEL:-$(ls -1v /boot/vmlinuz-* 2>/dev/null | tail -n 1)}"
setup="Tests/VM/setup.sh (as root; make test runs it)"
missing=0

report() {
  echo "vm preflight: $1" >&2
  echo "  install with: $2" >&2
  missing=1
}

# The same search as virtme-ng 1.42 (virtme/mkinitramfs.py find_busybox, util.find_binary):
# each name on PATH, then in /usr/local, /usr and / under bin and sbin; the first found wins.
find_busybox() {
  local name dir
  for name in busybox-static busybox.static busybox; do
    if command -v "$name" >/dev/null 2>&1; then
      command -v "$name"
      return 0
    fi
    for dir in /usr/local/bin /usr/local/sbin /usr/bin /usr/sbin /bin /sbin; do
      if [ -f "$dir/$name" ]; then
        echo "$dir/$name"
        return 0
      fi
    done
  done
  return 1
}

# A dynamically linked ELF names its loader in a PT_INTERP program header.
is_dynamic() {
  LC_ALL=C readelf --program-headers "$1" 2>/dev/null | grep -q 'INTERP'
}

if [ ! -x "$venv/bin/vng" ]; then
  report "virtme-ng is not installed in $venv (no $venv/bin/vng)" "$setup"
fi
if ! command -v qemu-system-x86_64 >/dev/null 2>&1; then
  report "QEMU is missing (no qemu-system-x86_64 on PATH)" \
    "apt-get install qemu-system-x86, or $setup"
fi
if [ -z "$kernel" ]; then
  report "no kernel to boot (no /boot/vmlinuz-*; GESTURED_VM_KERNEL is unset)" \
    "apt-get install linux-image-amd64, or $setup"
elif [ ! -f "$kernel" ]; then
  report "the kernel $kernel does not exist" "apt-get install linux-image-amd64, or unset GESTURED_VM_KERNEL"
elif [ ! -r "$kernel" ]; then
  report "the kernel $kernel is not readable by $(id -un)" "chmod a+r $kernel, or $setup"
fi
# virtme-ng runs `file` on busybox (it refuses one that is not static) and on the kernel.
if ! command -v file >/dev/null 2>&1; then
  report "file is missing: virtme-ng runs it on busybox and on the kernel" "apt-get install file, or $setup"
fi
if ! busybox="$(find_busybox)"; then
  report "no busybox: virtme-ng builds its initramfs around a statically linked busybox" \
    "apt-get install busybox-static, or $setup"
elif ! command -v readelf >/dev/null 2>&1; then
  report "readelf is missing, so the busybox at $busybox cannot be checked" "apt-get install binutils"
elif is_dynamic "$busybox"; then
  report "$busybox is dynamically linked; virtme-ng copies it alone into its initramfs, where it cannot run" \
    "apt-get install busybox-static (it replaces Debian's busybox), or $setup"
fi

exit "$missing"
