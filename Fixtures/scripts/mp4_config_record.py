#!/usr/bin/env python3
"""Prints, in hex, the decoder configuration record (the payload of the avcC or hvcC box) of the first
video track of an MP4 file, as the muxer that wrote the file made it.

usage: mp4_config_record.py FILE.mp4
"""
import sys

# Boxes to descend into, with the bytes that come before their children.
CONTAINERS = {b"moov": 8, b"trak": 8, b"mdia": 8, b"minf": 8, b"stbl": 8, b"stsd": 16,
              b"avc1": 86, b"avc3": 86, b"hvc1": 86, b"hev1": 86}


def find(data, start, end):
    position = start
    while position + 8 <= end:
        size = int.from_bytes(data[position:position + 4], "big")
        kind = data[position + 4:position + 8]
        if size < 8 or position + size > end:
            return None
        if kind in (b"avcC", b"hvcC"):
            return data[position + 8:position + size]
        if kind in CONTAINERS:
            found = find(data, position + CONTAINERS[kind], position + size)
            if found is not None:
                return found
        position += size
    return None


data = open(sys.argv[1], "rb").read()
record = find(data, 0, len(data))
if record is None:
    sys.exit(f"{sys.argv[1]}: no avcC or hvcC box")
print(record.hex())
