#!/usr/bin/env python3
"""link-order.py MAP NM LOG PROFILE OUTPUT: the symbol ordering file of the release link.

MAP is lld's link map (-Map, with --no-demangle) of the instrumented build that
link-order-in-vm.sh ran, NM its `nm -n --defined-only` listing, and LOG the daemon's stderr
from that run, whose lines "link-order PID PHASE OFFSET" name each function at its first
call in a phase of a process (link-order-coverage.c): phase 0 is start-up, 1 the activity,
2 the shutdown.
Written: the functions only the launcher ran, then those both processes ran, then those
only the recognizer ran, so that each process's code lies in one stretch; in each group,
the activity's functions next to the other groups' activity, and each part in the order
the map had them. Only a function that has an input section of its own (.text.NAME)
is listed: lld moves whole sections, and naming a function of a section shared by many (the
Swift standard library's 1.6 MB .text, a C file compiled without -ffunction-sections) would
move all of it. What runs only at the shutdown is left out.

PROFILE is callgrind's count of the live path (make bench-vm-profile's callgrind.gestured:
swipes that run a command, in one process), whose every function ran at each swipe. Those
go first, in the same three groups, so that what a swipe runs lies in as few pages as
it can: fewer pages mapped (BENCHMARKS.md, rows "footprint" and "RSS"), and on a CPU that
drops its page translations while another process runs, fewer to walk again at each
wake-up (row "kernel-costs": measured on the host, not outside the spread in the VM).
The profile also names what no coverage log can: the Swift runtime's and
standard library's functions that have sections of their own (swift_retain, Hasher, the
specializations it holds), which join the group both processes run.
"""
import bisect
import re
import sys

map_path, nm_path, log_path, profile_path, output = sys.argv[1:6]

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


# Each function's start address, to name the offset inside it a log line gives.
starts, names = [], []
with open(nm_path) as f:
    for line in f:
        fields = line.split()
        if len(fields) == 3 and fields[1] in "tTW":
            starts.append(int(fields[0], 16))
            names.append(fields[2])


def function_at(offset):
    index = bisect.bisect_right(starts, offset) - 1
    return names[index] if index >= 0 else None


# By process (the first to write is the launcher, which starts the recognizer) and phase.
launcher = None
ran = {}
with open(log_path, errors="replace") as f:
    for line in f:
        fields = line.split()
        if len(fields) != 4 or fields[0] != "link-order" or fields[2] not in ("0", "1"):
            continue
        name = function_at(int(fields[3], 16))
        if name is None:
            continue
        launcher = launcher or fields[1]
        process = "launcher" if fields[1] == launcher else "recognizer"
        ran.setdefault((process, fields[2]), set()).add(name)
for process in ("launcher", "recognizer"):
    for phase in ("0", "1"):
        if not ran.get((process, phase)):
            sys.exit(f"link-order: nothing from the {process} in phase {phase} in {log_path}")


def ordered(names):
    return sorted((n for n in names if n in own_section and n not in shared), key=lambda n: address[n])


# The functions the profile counted instructions of: a "fn=(ID) NAME" line starts one, and
# its cost lines follow, up to the next fn= line; a cost line after "calls=" is the call's,
# not the function's. An ID is named once, where it first appears, as a function or as a
# callee (cfn=); later lines give the ID alone. --demangle=no keeps C++ names (the
# runtime's) as the map spells them.
profiled = set()
with open(profile_path) as f:
    names_by_id, current, after_call = {}, None, False
    for line in f:
        m = re.match(r"^(c?)fn=\((\d+)\)(?: (.*))?$", line.rstrip("\n"))
        if m:
            if m.group(3):
                # NAME'2: the same function entered again while it ran (recursion).
                names_by_id[m.group(2)] = m.group(3).split("'")[0]
            if not m.group(1):
                current, after_call = names_by_id.get(m.group(2)), False
            continue
        if line.startswith("calls="):
            after_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            if not after_call and current is not None and int(line.split()[1]) > 0:
                profiled.add(current)
            after_call = False
if not profiled:
    sys.exit(f"link-order: no function with a count in {profile_path}")


# After what a swipe runs, each process's functions in one stretch, those both run between
# the two: the launcher's own, then the shared ones, then the recognizer's own, with the
# activity's of each group next to the other groups' activity.
launcher_all = ran[("launcher", "0")] | ran[("launcher", "1")]
recognizer_all = ran[("recognizer", "0")] | ran[("recognizer", "1")]
activity = ran[("launcher", "1")] | ran[("recognizer", "1")]
both = launcher_all & recognizer_all
launcher_own = launcher_all - both
recognizer_own = recognizer_all - both
# What the profile counted and no coverage log names (the runtime's, the standard
# library's) is taken for both processes'.
hot_launcher = ordered(launcher_own & profiled)
hot_both = ordered((both & profiled) | (profiled - launcher_all - recognizer_all))
hot_recognizer = ordered(recognizer_own & profiled)
hot = set(hot_launcher) | set(hot_both) | set(hot_recognizer)
launcher_own -= hot
recognizer_own -= hot
both -= hot
groups = [
    hot_launcher,
    hot_both,
    hot_recognizer,
    ordered(launcher_own - activity),
    ordered(launcher_own & activity),
    ordered(both & activity),
    ordered(both - activity),
    ordered(recognizer_own & activity),
    ordered(recognizer_own - activity),
]
with open(output, "w") as f:
    for group in groups:
        for name in group:
            f.write(name + "\n")
print(f"link-order: first what a swipe runs, the launcher's {len(hot_launcher)}, both processes'"
      f" {len(hot_both)}, the recognizer's {len(hot_recognizer)}; then the launcher's own"
      f" {len(groups[3]) + len(groups[4])} ({len(groups[4])} in the activity), both processes'"
      f" {len(groups[5]) + len(groups[6])} ({len(groups[5])}), the recognizer's own"
      f" {len(groups[7]) + len(groups[8])} ({len(groups[7])}); {len(launcher_all | recognizer_all)} ran,"
      f" {len(own_section)} in sections of their own")
