#!/usr/bin/env python3
"""link-order.py MAP DUMPS-DIR OUTPUT: the symbol ordering file of the release link.

MAP is lld's link map (-Map, with --no-demangle: the names as callgrind reports them) of
the profiled binary, DUMPS-DIR holds the callgrind dumps
that link-order-in-vm.sh wrote (start-up, then activity). Written: the functions the
activity ran, then those only start-up ran, each group in the order the map had them.
Only a function that has an input section of its own (.text.NAME) is listed: lld moves
whole sections, and naming a function of a section shared by many (the Swift standard
library's 1.6 MB .text, a C file compiled without -ffunction-sections) would move all of
it. What runs once at exit is left out.
"""
import os
import re
import sys

map_path, dumps_dir, output = sys.argv[1:4]

# Input sections of .text (file, section name), the symbols in each, and each symbol's
# address, from lines "VMA LMA SIZE ALIGN <9 spaces>FILE:(SECTION)" followed by
# "VMA LMA SIZE ALIGN <17 spaces>SYMBOL".
section_line = re.compile(r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+ {9}(\S.*):\((\.text[^)]*)\)$")
symbol_line = re.compile(r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+ {17}(\S+)$")
output_line = re.compile(r"^\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+\d+ (\S+)$")
address = {}
own_section = set()
# Names that are also defined in a shared section: merged functions (suffix Tm) and other
# local symbols exist in several objects under one name, and lld moves every section that
# defines a listed name.
shared = set()
in_text = False
section = None
with open(map_path) as f:
    for line in f:
        m = output_line.match(line)
        if m:
            in_text = m.group(1) == ".text"
            section = None
            continue
        if not in_text:
            continue
        m = section_line.match(line)
        if m:
            section = m.group(3)
            continue
        m = symbol_line.match(line)
        if m and section is not None:
            name = m.group(2)
            address.setdefault(name, int(m.group(1), 16))
            if section.endswith("." + name):
                own_section.add(name)
            else:
                shared.add(name)


def functions(path):
    """Every function a callgrind dump (--compress-strings=no) counted."""
    names = set()
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith(("fn=", "cfn=")):
                name = line.split("=", 1)[1].strip()
                # Recursion levels (--separate-recs) are named NAME'2 and so on.
                names.add(re.sub(r"'\d+$", "", name))
    return names


def trigger(path):
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("desc: Trigger:"):
                return line
    return ""


startup, activity = set(), set()
for entry in sorted(os.listdir(dumps_dir)):
    if not entry.startswith("callgrind.out"):
        continue
    path = os.path.join(dumps_dir, entry)
    what = trigger(path)
    if "startup" in what:
        startup |= functions(path)
    elif "activity" in what:
        activity |= functions(path)
if not startup or not activity:
    sys.exit(f"link-order: no start-up or no activity dump in {dumps_dir}")


def ordered(names):
    return sorted((n for n in names if n in own_section and n not in shared), key=lambda n: address[n])


hot = ordered(activity)
cold = ordered(startup - activity)
with open(output, "w") as f:
    for name in hot + cold:
        f.write(name + "\n")
print(f"link-order: {len(hot)} functions of the activity, {len(cold)} of start-up only"
      f" ({len(activity | startup)} counted, {len(own_section)} in sections of their own)")
