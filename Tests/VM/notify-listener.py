#!/usr/bin/python3
"""A stand-in for systemd's notify socket: binds a datagram socket at argv[1] and appends
each message it receives to argv[2] as one line (newlines in a message become spaces),
flushed at once, until it is killed. Used by Tests/VM/lib.sh (notify_listen)."""
import os
import socket
import sys

path, log_path = sys.argv[1], sys.argv[2]
if os.path.exists(path):
    os.unlink(path)
listener = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
listener.bind(path)
with open(log_path, "a", encoding="utf-8", errors="replace") as log:
    while True:
        message = listener.recv(65536).decode("utf-8", errors="replace")
        log.write(message.strip("\n").replace("\n", " ") + "\n")
        log.flush()
