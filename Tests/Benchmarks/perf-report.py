#!/usr/bin/env python3
"""make bench-vm-perf: where one process's CPU went, from perf samples with call chains.

Usage: perf-report.py PERF_DATA PID LABEL [TOP]

Prints the process's samples, how many were in the kernel, and its user-space functions by
inclusive samples (a function counts once per sample whose call chain holds it), each with
how many of those samples were in the kernel beneath it (the system calls it made).
"""
import collections
import re
import subprocess
import sys


def chains(data, pid):
    script = subprocess.run(
        ["perf", "script", "-i", data, "--pid", pid, "-F", "ip,sym,dso"],
        capture_output=True, text=True, check=True).stdout
    chain = []
    for line in script.split("\n"):
        if not line.strip():
            if chain:
                yield chain
            chain = []
            continue
        fields = line.strip().split(None, 1)
        if len(fields) == 2:
            chain.append(re.sub(r"\+0x[0-9a-f]+", "", fields[1]))
    if chain:
        yield chain


def in_kernel(frame):
    return "[kernel.kallsyms]" in frame or "([" in frame


def main():
    data, pid, label = sys.argv[1], sys.argv[2], sys.argv[3]
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    inclusive = collections.Counter()
    beneath = collections.Counter()
    samples = kernel = 0
    for chain in chains(data, pid):
        samples += 1
        kernel_sample = in_kernel(chain[0])
        kernel += kernel_sample
        seen = set()
        for frame in chain:
            if in_kernel(frame) or frame.startswith("[unknown]"):
                continue
            name = frame.split(" (")[0]
            if name in seen:
                continue
            seen.add(name)
            inclusive[name] += 1
            beneath[name] += kernel_sample
    print(f"{label}: {samples} samples, {kernel} in the kernel")
    for name, count in inclusive.most_common(top):
        print(f"{count:6d} {100 * count / max(samples, 1):5.1f}%  kernel {beneath[name]:5d}  {name[:160]}")


main()
