#!/usr/bin/env bash
# Checks that a built gestured runs where no Swift toolchain is installed:
#
#   systemd/debian/check-binary.sh BINARY
#
# - no Swift runtime library (libswift*, libdispatch, libFoundation, libBlocksRuntime) among
#   its NEEDED entries: the Swift standard library is linked in (--static-swift-stdlib);
# - no RUNPATH or RPATH: nothing is looked up next to the binary or in the build
#   machine's toolchain;
# - stripped: no symbol table, no debug sections;
# - every library the dynamic loader resolves (ldd) is found and belongs to an installed
#   Debian package (dpkg -S), none lies under the toolchain.
# Prints what it found and exits 1 at the first broken rule. Needs readelf (binutils), ldd
# and dpkg-query; no Swift.
set -euo pipefail

binary="${1:?usage: check-binary.sh BINARY}"
[ -x "$binary" ] || { echo "check-binary: $binary is not an executable file" >&2; exit 1; }

failed=0
problem() {
  echo "check-binary: $binary: $*" >&2
  failed=1
}

dynamic="$(readelf -d "$binary")"
needed="$(sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' <<< "$dynamic")"
swift_libraries="$(grep -E '^lib(swift|dispatch|Foundation|BlocksRuntime)' <<< "$needed" || true)"
if [ -n "$swift_libraries" ]; then
  problem "needs Swift runtime libraries: $(tr '\n' ' ' <<< "$swift_libraries")(build with --static-swift-stdlib)"
fi
if grep -qE '\((RUNPATH|RPATH)\)' <<< "$dynamic"; then
  problem "has $(grep -E '\((RUNPATH|RPATH)\)' <<< "$dynamic" | sed 's/^ *0x[0-9a-f]* *//')"
fi

sections="$(readelf -S -W "$binary")"
if grep -qE ' \.(symtab|debug_[a-z_]+) ' <<< "$sections"; then
  problem "is not stripped: has $(grep -oE ' \.(symtab|debug_[a-z_]+) ' <<< "$sections" | tr -d ' ' | tr '\n' ' ')"
fi

echo "$binary: $(stat -c %s "$binary") bytes; the libraries it loads:"
while read -r line; do
  case "$line" in
    *"not found"*) problem "a library is missing: $line"; continue ;;
    *"=>"*) library="$(awk '{ print $3 }' <<< "$line")" ;;
    /*) library="$(awk '{ print $1 }' <<< "$line")" ;;
    *) continue ;; # linux-vdso.so.1: the kernel's, no file
  esac
  real="$(readlink -f "$library")"
  case "$real" in
    /opt/*|*/swift*) problem "$library resolves into the toolchain: $real"; continue ;;
  esac
  # On merged-/usr systems dpkg knows a library by its /lib or its /usr/lib path.
  owner=""
  for candidate in "$library" "$real" "${real#/usr}" "/usr$real"; do
    owner="$(dpkg-query -S "$candidate" 2>/dev/null | head -n 1 | cut -d: -f1)" && [ -n "$owner" ] && break
  done
  if [ -z "$owner" ]; then
    problem "$library ($real) belongs to no Debian package"
  else
    echo "  $(basename "$library")  ($owner)"
  fi
done < <(ldd "$binary")

if [ "$failed" -eq 0 ]; then
  echo "$binary: OK: no Swift library, no RUNPATH, stripped, only Debian libraries"
fi
exit "$failed"
