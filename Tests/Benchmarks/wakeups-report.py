#!/usr/bin/env python3
"""make bench-vm-wakeups: each traced process's time on the CPU, per swipe.

Usage: wakeups-report.py RESULTS SWIPES

RESULTS holds what wakeups-in-vm.sh wrote: pids.txt ("LABEL PID..."), trace-LABEL.txt (tracefs
text with sched_switch and raw_syscalls events of those pids) and untraced.txt ("LABEL untraced
MICROSECONDS", the same swipes' CPU time without tracing). For each label and process: time on
the CPU, wake-ups, time in user space and in each system call, per swipe. A system call that
blocks counts from its entry to the switch away and from the switch back to its exit, so a
wait's share holds the two context switches around the sleep.
"""
import collections
import os
import re
import sys

# x86-64 numbers of the system calls the two daemons make on their live path.
NAMES = {
    0: "read", 1: "write", 3: "close", 7: "poll", 9: "mmap", 11: "munmap", 13: "rt_sigaction",
    14: "rt_sigprocmask", 16: "ioctl", 23: "select", 44: "sendto", 45: "recvfrom", 56: "clone",
    57: "fork", 58: "vfork", 59: "execve", 61: "wait4", 228: "clock_gettime", 232: "epoll_wait",
    233: "epoll_ctl", 247: "waitid", 270: "pselect6", 281: "epoll_pwait", 283: "timerfd_create",
    286: "timerfd_settime", 424: "pidfd_send_signal", 434: "pidfd_open", 435: "clone3",
}
# The call a process slept in when the trace began, whose number the trace never showed.
WAIT_BEFORE_TRACE = -1
NAMES[WAIT_BEFORE_TRACE] = "a wait begun before the trace"
LINE = re.compile(r"^\s*.+?-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (\w+): (.*)$")


def timeline(path, pids):
    on_cpu = collections.Counter()
    user = collections.Counter()
    calls = collections.defaultdict(collections.Counter)
    count = collections.defaultdict(collections.Counter)
    wakeups = collections.Counter()
    since = {}  # pid -> time it was switched in, while on the CPU
    state = {}  # pid -> (time, None for user space or the system call it is in)
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            pid, time, event, rest = m.group(1), float(m.group(2)), m.group(3), m.group(4)
            if event == "sched_switch":
                prev = re.search(r"prev_pid=(\d+)", rest).group(1)
                following = re.search(r"next_pid=(\d+)", rest).group(1)
                if prev in since:
                    on_cpu[prev] += time - since.pop(prev)
                    at, call = state[prev]
                    if call is None:
                        user[prev] += time - at
                    else:
                        calls[prev][call] += time - at
                    state[prev] = (time, call)
                if following in pids:
                    since[following] = time
                    wakeups[following] += 1
                    # Back inside the call it slept in; at the trace's first switch-in,
                    # a wait begun before the trace.
                    state[following] = (time, state.get(following, (time, WAIT_BEFORE_TRACE))[1])
                continue
            if pid not in since:
                continue
            at, call = state[pid]
            number = int(re.match(r"NR (\d+)", rest).group(1))
            if event == "sys_enter":
                if call is None:
                    user[pid] += time - at
                state[pid] = (time, number)
                count[pid][number] += 1
            elif event == "sys_exit":
                if call is not None:
                    calls[pid][call] += time - at
                state[pid] = (time, None)
    return on_cpu, user, calls, count, wakeups


def main():
    results, swipes = sys.argv[1], int(sys.argv[2])
    untraced = {}
    with open(os.path.join(results, "untraced.txt")) as f:
        for line in f:
            label, _, microseconds = line.split()
            untraced[label] = int(microseconds)
    with open(os.path.join(results, "pids.txt")) as f:
        rows = [line.split() for line in f if line.strip()]
    for label, *pids in rows:
        on_cpu, user, calls, count, wakeups = timeline(os.path.join(results, f"trace-{label}.txt"), set(pids))
        total = sum(on_cpu[pid] for pid in pids)
        print(f"{label}: {total / swipes * 1e6:.0f} µs on the CPU a swipe traced,"
              f" {untraced[label] / swipes:.0f} µs untraced (schedstat)")
        names = ["launcher", "recognizer"] if len(pids) == 2 else [label]
        for name, pid in zip(names, pids):
            parts = [f"user space {user[pid] / swipes * 1e6:.0f}"]
            for call, seconds in calls[pid].most_common():
                name_of_call = NAMES.get(call, f"syscall {call}")
                parts.append(f"{name_of_call} {seconds / swipes * 1e6:.0f} ({count[pid][call] / swipes:g})")
            print(f"  {name} (pid {pid}): {on_cpu[pid] / swipes * 1e6:.0f} µs in"
                  f" {wakeups[pid] / swipes:g} wake-ups a swipe: " + ", ".join(parts))


main()
