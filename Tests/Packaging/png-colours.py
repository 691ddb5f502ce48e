#!/usr/bin/env python3
"""Reads an 8-bit RGB or RGBA PNG (what rsvg-convert writes) with nothing but the standard
library and prints what the trace-picture test checks:

    size W H
    box #rrggbb X0 Y0 X1 Y1     bounding box of the pixels of that colour (or "none")
    count #rrggbb N             pixels of that colour
    inside #rrggbb N            of them, those strictly inside the first colour's box

for every colour given after the file (the first: the panel's outline); a pixel matches a colour within 10 per channel (the
picture is anti-aliased, but strokes 3 px wide keep their colour at their middle)."""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(path + ": not a PNG")
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                sys.exit(path + ": only 8-bit RGB or RGBA, not interlaced")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    channels = 4 if colour == 6 else 3
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else corner)
                line[i] = (line[i] + predictor) & 255
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    path, colours = sys.argv[1], sys.argv[2:]
    width, height, channels, rows = decode(path)
    print("size", width, height)
    wanted = [(c, tuple(int(c[i:i + 2], 16) for i in (1, 3, 5))) for c in colours]
    boxes = {c: None for c in colours}
    counts = {c: 0 for c in colours}
    for y, line in enumerate(rows):
        for x in range(width):
            pixel = line[x * channels:x * channels + 3]
            for name, rgb in wanted:
                if all(abs(pixel[i] - rgb[i]) <= 10 for i in range(3)):
                    counts[name] += 1
                    box = boxes[name]
                    boxes[name] = (x, y, x, y) if box is None else (
                        min(box[0], x), min(box[1], y), max(box[2], x), max(box[3], y))
    frame = boxes[colours[0]] if colours else None
    inside = {c: 0 for c in colours}
    if frame is not None:
        for y in range(frame[1] + 1, frame[3]):
            line = rows[y]
            for x in range(frame[0] + 1, frame[2]):
                pixel = line[x * channels:x * channels + 3]
                for name, rgb in wanted[1:]:
                    if all(abs(pixel[i] - rgb[i]) <= 10 for i in range(3)):
                        inside[name] += 1
    for name in colours:
        box = boxes[name]
        print("box", name, "none" if box is None else " ".join(map(str, box)))
        print("count", name, counts[name])
        print("inside", name, inside[name])


main()
