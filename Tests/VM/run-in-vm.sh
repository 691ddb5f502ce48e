#!/usr/bin/env bash
# Runs a command inside a VM on a real Linux kernel, with uinput, evdev and udev.
#
#   Tests/VM/run-in-vm.sh [--rwdir DIR]... [--] CMD [ARG...]
#
# virtme-ng boots Debian's kernel (linux-image-amd64) over the host's own filesystem, read
# only: the guest sees the same binaries and the same work tree. Directories given with
# --rwdir are writable from the guest (the place for results); the guest's /tmp is a
# private writable overlay that vanishes with the VM. Inside, as root: the uinput and
# evdev modules are loaded, the host's systemd-udevd runs and has processed every device,
# then CMD runs in the current directory with its arguments unchanged. The exit status is
# CMD's; 125 means the VM did not run it to the end (boot failure, time-out).
#
# Environment: GESTURED_VM_KERNEL (default: the newest /boot/vmlinuz-*),
# GESTURED_VM_MEMORY (1G), GESTURED_VM_CPUS (2), GESTURED_VM_TIMEOUT (seconds, 2700),
# GESTURED_VM_VENV (/opt/gestured-vm-venv, where Tests/VM/setup.sh installs virtme-ng).
# Inside, GESTURED_VM_RESULTS names a writable directory that survives the VM for the run.
set -euo pipefail

venv="${GESTURED_VM_VENV:-/opt/gestured-vm-venv}"
memory="${GESTURED_VM_MEMORY:-1G}"
cpus="${GESTURED_VM_CPUS:-2}"
time_limit="${GESTURED_VM_TIMEOUT:-2700}"
kernel="${GESTURED_VM_KERNEL:-$(ls -1v /boot/vmlinuz-* 2>/dev/null | tail -n 1)}"

rwdirs=()
while [ $# -gt 0 ]; do
  case "$1" in
    --rwdir) rwdirs+=("--rwdir=$2"); shift 2 ;;
    --rwdir=*) rwdirs+=("$1"); shift ;;
    --) shift; break ;;
    *) break ;;
  esac
done
if [ $# -eq 0 ]; then
  echo "usage: $0 [--rwdir DIR]... [--] CMD [ARG...]" >&2
  exit 64
fi

# What the boot needs (virtme-ng, QEMU, the kernel, a static busybox), each missing piece
# named with the command that installs it.
if ! GESTURED_VM_VENV="$venv" GESTURED_VM_KERNEL="$kernel" "$(dirname "$0")/preflight.sh"; then
  echo "run-in-vm: cannot boot the VM (above: what is missing)" >&2
  exit 125
fi

# The guest writes CMD's exit status here and the host reads it back after the VM is gone:
# the directory is shared writable with --rwdir (the guest's own /tmp is an overlay whose
# writes the host never sees).
control="$(mktemp -d "${TMPDIR:-/tmp}/gestured-vm.XXXXXX")"
trap 'rm -rf "$control"' EXIT
mkdir -p "$control/results"

# The command is handed over as a file of quoted words, so arguments with blanks and quotes
# arrive unchanged.
{
  printf 'command=('
  printf '%q ' "$@"
  printf ')\n'
  printf 'workdir=%q\n' "$PWD"
  printf 'path=%q\n' "$PATH"
} > "$control/command"

cat > "$control/guest.sh" <<'GUEST'
#!/bin/bash
# Runs as root inside the VM: bring up the input stack, then the command.
control="$(dirname "$0")"
source "$control/command"
export PATH="$path"
export GESTURED_VM_RESULTS="$control/results"
status=125
echo "run-in-vm: guest up after $(cut -d" " -f1 /proc/uptime) s" >&2
{
  modprobe uinput 2>/dev/null || true
  modprobe evdev 2>/dev/null || true
  if [ ! -e /dev/uinput ]; then
    echo "run-in-vm: no /dev/uinput in the guest" >&2
  else
    # virtme-ng's init starts the host's systemd-udevd and coldplugs; start it only if not.
    if ! udevadm control --ping >/dev/null 2>&1; then
      udevd="$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)"
      "$udevd" --daemon 2>/run/systemd-udevd.log
      udevadm trigger --action=add
    fi
    udevadm settle --timeout=60
    echo "run-in-vm: udev settled after $(cut -d" " -f1 /proc/uptime) s" >&2
    cd "$workdir"
    set +e
    "${command[@]}"
    status=$?
  fi
}
echo "$status" > "$control/status"
# Flush the 9p share before the VM powers off.
sync
GUEST
chmod +x "$control/guest.sh"

# udev's coldplug would load drivers for every emulated device; under TCG loading kvm alone
# takes 10 s. None of them matter here (evdev and uinput are loaded explicitly).
unused_modules=kvm,kvm_amd,kvm_intel,irqbypass,ccp,crct10dif_pclmul,crc32_pclmul,crc32c_intel
unused_modules+=,ghash_clmulni_intel,sha512_ssse3,sha256_ssse3,sha1_ssse3,aesni_intel
unused_modules+=,sr_mod,cdrom,sg,scsi_mod,ahci,libahci,libata,ata_piix,floppy,parport_pc
unused_modules+=,iTCO_wdt,intel_pmc_bxt,i6300esb,lpc_ich,i2c_i801,qemu_fw_cfg,pcspkr
unused_modules+=,psmouse,serio_raw,joydev,drm,bochs

# QEMU writes the guest's output by opening /proc/self/fd/1 and 2 anew: on a regular file
# that starts at offset 0 and overwrites what came before, so both go through pipes.
# virtme-ng's runner fails when standard input is closed (as under CI); the guest's
# commands read nothing from it, so /dev/null does.
if [ ! -e "/proc/$$/fd/0" ]; then exec </dev/null; fi
# vng runs its helpers (virtme-run) from its own venv.
export PATH="$venv/bin:$PATH"
set +e
timeout --kill-after=30 "$time_limit" "$venv/bin/vng" \
  --run "$kernel" --disable-kvm --user root --memory "$memory" --cpus "$cpus" \
  --append "module_blacklist=$unused_modules" \
  --rwdir="$control" "${rwdirs[@]}" --cwd "$PWD" \
  --exec "$control/guest.sh" \
  2> >(cat >&2) | cat
vng_status=${PIPESTATUS[0]}
set -e

if [ -f "$control/status" ]; then
  exit "$(cat "$control/status")"
fi
echo "run-in-vm: the VM did not finish the command (vng exit status $vng_status)" >&2
exit 125
