#!/usr/bin/env python3
"""Compares what a forwarded panel's clone received (evemu-record of the clone) with what
the same script gave the panel itself without forwarding (evemu-record of the panel), for
forward-passes-what-is-not-a-gesture.sh.

    forward-compare.py PANEL.evemu CLONE.evemu EXPECTED-SEQUENCES LIVE-SEQUENCES MAX-MS

A sequence is every frame from a first contact down to the last contact up. Each frame is
compared by the contacts it leaves down (slot, tracking id, x, y): the clone may get values
it missed in a frame's first events, so events are not compared one by one. EXPECTED is the
comma-separated 1-based numbers of the panel's sequences the clone must get, in order (and
nothing else). The frames of the LIVE sequences must keep their frame-to-frame timing
within MAX-MS (the two plays' own noise included). Prints the timing differences; exits 1
on a mismatch."""
import statistics
import sys

ABS, SYN = 3, 0
SLOT, TRACKING, X, Y = 0x2F, 0x39, 0x35, 0x36


def frames(path):
    out, current = [], []
    for line in open(path):
        if not line.startswith("E: "):
            continue
        _, time, type_, code, value = line.split()[:5]
        event = (float(time), int(type_, 16), int(code, 16), int(value))
        current.append(event)
        if event[1] == SYN and event[2] == 0:
            out.append(current)
            current = []
    return out


def sequences(path):
    """[(frame times, frame states)] per sequence."""
    slot, slots, result, seq = 0, {}, [], None
    for frame in frames(path):
        for _, type_, code, value in frame:
            if type_ != ABS:
                continue
            if code == SLOT:
                slot = value
            elif code in (TRACKING, X, Y):
                slots.setdefault(slot, {TRACKING: -1, X: 0, Y: 0})[code] = value
        down = tuple(sorted((s, v[X], v[Y]) for s, v in slots.items() if v[TRACKING] != -1))
        if seq is None and down:
            seq = ([], [])
            result.append(seq)
        if seq is not None:
            seq[0].append(frame[-1][0])
            seq[1].append(down)
            if not down:
                seq = None
    return result


def main():
    panel, clone = sequences(sys.argv[1]), sequences(sys.argv[2])
    wanted = [int(n) for n in sys.argv[3].split(",")]
    live = [int(n) for n in sys.argv[4].split(",")]
    limit = float(sys.argv[5])
    print(f"panel: {len(panel)} sequences, clone: {len(clone)}")
    ok = True
    if len(clone) != len(wanted):
        print(f"FAIL: the clone got {len(clone)} sequences, expected {len(wanted)} (panel's {wanted})")
        ok = False
    for n, got in zip(wanted, clone):
        times, states = panel[n - 1]
        if got[1] != states:
            print(f"FAIL: sequence {n}: the clone's {len(got[1])} frames differ from the panel's {len(states)}")
            for a, b in zip(states, got[1]):
                if a != b:
                    print(f"  first difference: panel {a} clone {b}")
                    break
            ok = False
            continue
        gaps = [abs((b1 - a1) - (b0 - a0)) * 1000 for a0, a1, b0, b1 in zip(times, times[1:], got[0], got[0][1:])]
        if gaps:
            print(
                f"sequence {n}: {len(states)} frames equal; frame-to-frame timing differs by median "
                f"{statistics.median(gaps):.2f} ms, worst {max(gaps):.2f} ms"
            )
            if n in live and max(gaps) > limit:
                print(f"FAIL: sequence {n} lost its timing (worst {max(gaps):.2f} ms > {limit} ms)")
                ok = False
        else:
            print(f"sequence {n}: {len(states)} frame(s) equal")
    sys.exit(0 if ok else 1)


main()
