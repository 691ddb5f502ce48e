#!/usr/bin/env bash
# Runs .ci/run the way CI would on a fresh Debian 12 machine: in a clean debootstrap root
# (minbase: only Debian's required packages) with nothing else but the Swift toolchain
# copied in, a clean clone of this repository's HEAD and a copy of ../shared beside it.
# Whatever the tests need and the project does not install makes this run fail, even when
# this machine has it installed by hand.
#
#   sudo Tests/VM/fresh-machine-check.sh [ROOT]
#
# ROOT (default /var/tmp/gestured-fresh-root) is made with debootstrap the first time and
# reused after: the base system is left as debootstrap made it, and everything a run adds
# is thrown away by starting from a fresh copy (ROOT.run) each time. Needs root, debootstrap
# and the network to Debian's mirror. The output of .ci/run goes to standard output; the
# exit status is .ci/run's.
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
base="${1:-/var/tmp/gestured-fresh-root}"
run="$base.run"
toolchain="${SWIFT_TOOLCHAIN:-/opt/swift}"
shared="$repo/../shared"

if [ "$(id -u)" -ne 0 ]; then
  echo "fresh-machine-check: run as root (chroot, mounts)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || apt-get install -y --no-install-recommends debootstrap

if [ ! -x "$base/bin/bash" ]; then
  echo "fresh-machine-check: debootstrap --variant=minbase bookworm $base"
  debootstrap --variant=minbase bookworm "$base" http://deb.debian.org/debian
fi

unmount_all() {
  for mount in dev/pts dev proc sys; do
    mountpoint -q "$run/$mount" && umount -l "$run/$mount"
  done
  return 0
}
trap unmount_all EXIT

unmount_all
rm -rf "$run"
cp -a "$base" "$run"
# The same package sources and name resolution as this machine, so apt-get installs the
# same versions CI's machine would.
cp /etc/resolv.conf "$run/etc/resolv.conf"
if [ -d /etc/apt/sources.list.d ]; then
  cp -a /etc/apt/sources.list.d/. "$run/etc/apt/sources.list.d/"
  [ -n "$(ls /etc/apt/sources.list.d)" ] && : > "$run/etc/apt/sources.list"
fi
# The machine's own network settings, which CI's run has too (it gets the machine's
# environment): CA certificates of its own (an egress proxy may sign with one; .ci/run's
# ca-certificates picks them up from /usr/local/share/ca-certificates), pip's config.
if [ -d /usr/local/share/ca-certificates ]; then
  mkdir -p "$run/usr/local/share/ca-certificates"
  cp -a /usr/local/share/ca-certificates/. "$run/usr/local/share/ca-certificates/"
fi
[ -f /etc/pip.conf ] && cp /etc/pip.conf "$run/etc/pip.conf"
machine_environment=()
for name in PIP_CERT PIP_DEFAULT_TIMEOUT PIP_DISABLE_PIP_VERSION_CHECK PIP_INDEX_URL PIP_FIND_LINKS \
  SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE CURL_CA_BUNDLE http_proxy https_proxy no_proxy; do
  [ -n "${!name:-}" ] && machine_environment+=("$name=${!name}")
done
mkdir -p "$run/opt"
cp -a "$toolchain" "$run/opt/"
git clone --quiet --no-local "$repo" "$run/work/main"
[ -d "$shared" ] && cp -a "$shared" "$run/work/shared"

mount -t proc proc "$run/proc"
mount --rbind /sys "$run/sys"
mount --rbind /dev "$run/dev"

echo "fresh-machine-check: bash .ci/run in $run (HEAD $(git -C "$repo" rev-parse --short HEAD))"
started=$SECONDS
set +e
chroot "$run" /usr/bin/env -i HOME=/root CI=true TERM=dumb "${machine_environment[@]}" \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  bash -c 'cd /work/main && bash .ci/run' < /dev/null
status=$?
set -e
echo "fresh-machine-check: .ci/run exited $status after $((SECONDS - started)) s"
exit "$status"
