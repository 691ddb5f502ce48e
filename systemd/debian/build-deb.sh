#!/usr/bin/env bash
# Turns a `make install DESTDIR=STAGE PREFIX=/usr` tree into gestured_VERSION_ARCH.deb:
#
#   systemd/debian/build-deb.sh STAGE OUTDIR [MAINTAINER]
#
# Adds what Debian wants beside the installed files: manual pages gzipped, the copyright
# file and a changelog.gz in /usr/share/doc/gestured, and DEBIAN/ with control (Depends
# computed by dpkg-shlibdeps from the binary's NEEDED libraries and the shlibs files of
# the installed -dev packages' libraries), conffiles (the config), md5sums and the
# maintainer scripts of this directory. The version is the one `gestured --version`
# prints (Sources/GesturedRuntime/Usage.swift). `make deb` runs it; needs dpkg-dev.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
stage="${1:?usage: build-deb.sh STAGE OUTDIR [MAINTAINER]}"
outdir="${2:?usage: build-deb.sh STAGE OUTDIR [MAINTAINER]}"
maintainer="${3:-gestured maintainers <maintainers@users.noreply.a-seed-38643ceb.example>}"
stage="$(cd "$stage" && pwd)"
mkdir -p "$outdir"
outdir="$(cd "$outdir" && pwd)"

binary="$stage/usr/bin/gestured"
[ -x "$binary" ] || { echo "build-deb: no $binary (run make install DESTDIR=$stage PREFIX=/usr)" >&2; exit 1; }
version_line="$("$binary" --version)"
version="${version_line#gestured }"
if ! [[ "$version" =~ ^[0-9][A-Za-z0-9.+~]*$ ]]; then
  echo "build-deb: '$version_line' does not end in a Debian version" >&2
  exit 1
fi
arch="$(dpkg --print-architecture)"
docdir="$stage/usr/share/doc/gestured"

# Debian's layout: manual pages and the changelog compressed (gzip -n: no name or time, so
# the package is reproducible).
find "$stage/usr/share/man" -type f ! -name '*.gz' -exec gzip -9nf {} +
install -m 0644 "$here/copyright" "$docdir/copyright"
# A native package's changelog. Its date is the last commit's (or SOURCE_DATE_EPOCH), not
# the build's, so that the same tree makes the same package.
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}"
{
  echo "gestured ($version) unstable; urgency=medium"
  echo
  echo "  * Built from the gestured source tree: what changed is in"
  echo "    /usr/share/doc/gestured/CHANGELOG.md."
  echo
  echo " -- $maintainer  $(LC_ALL=C date -u -R -d "@$epoch")"
} | gzip -9n > "$docdir/changelog.gz"

# Ownership is set by dpkg-deb (--root-owner-group); modes here, whatever the umask was.
find "$stage" -type d -exec chmod 0755 {} +
find "$stage" -type f -exec chmod 0644 {} +
chmod 0755 "$binary"

rm -rf "$stage/DEBIAN"
mkdir -p "$stage/DEBIAN"
for script in postinst prerm postrm; do
  install -m 0755 "$here/$script" "$stage/DEBIAN/$script"
done
# Every file under /etc is the administrator's: dpkg keeps their changes on upgrade.
(cd "$stage" && find etc -type f -printf '/%p\n' | sort) > "$stage/DEBIAN/conffiles"
chmod 0644 "$stage/DEBIAN/conffiles"
(cd "$stage" && find usr lib -type f -printf '%p\0' | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums"

# dpkg-shlibdeps wants to run in a source tree: a debian/control naming the package is
# enough. It maps each NEEDED library to its package and the minimal version for the
# symbols the binary uses.
shlibs="$(mktemp -d)"
trap 'rm -rf "$shlibs"' EXIT
mkdir -p "$shlibs/debian"
printf 'Source: gestured\n\nPackage: gestured\nArchitecture: any\n' > "$shlibs/debian/control"
depends="$(cd "$shlibs" && dpkg-shlibdeps -O -e"$binary" 2> "$shlibs/warnings")" || {
  cat "$shlibs/warnings" >&2
  exit 1
}
sed 's/^/build-deb: dpkg-shlibdeps: /' "$shlibs/warnings" >&2
depends="${depends#shlibs:Depends=}"
# Packed relative relocations (DT_RELR, see the Makefile's RELEASE_FLAGS) need glibc 2.36;
# dpkg-shlibdeps sees only symbols, not the GLIBC_ABI_DT_RELR version the binary asks for.
if readelf -V "$binary" | grep -q 'Name: GLIBC_ABI_DT_RELR'; then
  libc_version="$(sed -n 's/.*libc6 (>= \([^)]*\)).*/\1/p' <<< "$depends")"
  if [ -z "$libc_version" ] || dpkg --compare-versions "$libc_version" lt 2.36; then
    depends="$(sed -E 's/libc6( \(>= [^)]*\))?/libc6 (>= 2.36)/' <<< "$depends")"
  fi
fi

# postinst creates the recognizer's system user with adduser.
depends="$depends, adduser"
size="$(du -sk --exclude=DEBIAN "$stage" | cut -f1)"
sed -e "s|@VERSION@|$version|" -e "s|@ARCH@|$arch|" -e "s|@MAINTAINER@|$maintainer|" \
  -e "s|@SIZE@|$size|" -e "s|@DEPENDS@|$depends|" "$here/control.in" > "$stage/DEBIAN/control"
chmod 0644 "$stage/DEBIAN/control"

deb="$outdir/gestured_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" > /dev/null
echo "build-deb: $deb ($(stat -c %s "$deb") bytes)"
echo "build-deb: Depends: $depends"
