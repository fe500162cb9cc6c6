#!/usr/bin/env python3
"""GStreamer's rtpmp4adepay hands the first packet of a stream on whole: its frame keeps the LATM
PayloadLengthInfo in front of it (ff 1c for a 283-byte frame, where every later frame comes without).
Takes that prefix off GStreamer's first buffer, so that the reference is the frame the packet carries.

usage: strip_latm_length.py FIRST_BUFFER.bin   (rewritten in place; left alone when it has no such prefix)
"""
import sys

path = sys.argv[1]
data = open(path, "rb").read()
length, skip = 0, 0
while skip < len(data):
    length += data[skip]
    skip += 1
    if data[skip - 1] != 255:
        break
if skip + length == len(data):
    open(path, "wb").write(data[skip:])
    print(f"{path}: took off GStreamer's {skip}-byte PayloadLengthInfo", file=sys.stderr)
