#!/usr/bin/env python3
"""pagemap-sections.py PID BINARY [PAGES-OUT]: the binary's resident pages (KiB) by ELF
section, from /proc/PID/maps and /proc/PID/pagemap (bit 63 present, bit 61 file page:
a present page without it is a private copy, e.g. relocated data); with PAGES-OUT, the
file offsets of its resident pages, one a line ("OFFSET file|anon")."""
import os, struct, sys

pid, binary = sys.argv[1], sys.argv[2]
out = sys.argv[3] if len(sys.argv) > 3 else None
PAGE = os.sysconf("SC_PAGE_SIZE")

def sections(path):
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx]
    def name(o):
        start = strtab[4] + o
        return data[start:data.index(b"\0", start)].decode()
    # (name, file offset, size) of sections that occupy the file and are loaded (SHF_ALLOC).
    return [(name(h[0]), h[4], h[5]) for h in heads if h[2] & 2 and h[1] != 8 and h[5] > 0]

secs = sections(binary)
def section_of(offset):
    for n, o, s in secs:
        if o <= offset < o + s:
            return n
    return "(between sections)"

real = os.path.realpath(binary)
maps = []
with open(f"/proc/{pid}/maps") as f:
    for line in f:
        parts = line.split()
        if len(parts) >= 6 and os.path.realpath(parts[5]) == real:
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            maps.append((lo, hi, int(parts[2], 16), parts[1]))

total = {}
lines = []
with open(f"/proc/{pid}/pagemap", "rb") as pm:
    for lo, hi, off, perms in maps:
        pm.seek(lo // PAGE * 8)
        entries = pm.read((hi - lo) // PAGE * 8)
        for i in range((hi - lo) // PAGE):
            e, = struct.unpack_from("<Q", entries, i * 8)
            if not e >> 63 & 1:
                continue
            fo = off + i * PAGE
            kind = "file" if e >> 61 & 1 else "anon"
            # A page can hold the end of one section and the start of the next: it counts
            # for the section at its first byte that belongs to one.
            name = section_of(fo)
            if name == "(between sections)":
                for n, o, s in secs:
                    if fo <= o < fo + PAGE:
                        name = n
                        break
            t = total.setdefault(name, [0, 0])
            t[0] += PAGE // 1024
            if kind == "anon":
                t[1] += PAGE // 1024
            lines.append(f"{fo:x} {kind} {name}")
for name, (kib, anon) in sorted(total.items(), key=lambda x: -x[1][0]):
    print(f"{kib:6d} KiB {name}" + (f" ({anon} anonymous)" if anon else ""))
print(f"{sum(t[0] for t in total.values()):6d} KiB all")
if out:
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
