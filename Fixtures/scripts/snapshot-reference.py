#!/usr/bin/env python3
"""The reference for `rtpdump snapshot`: a capture's last keyframe as GStreamer depayloads it and FFmpeg decodes it,
written as full-range 4:2:0 (yuvj420p, what a JPEG holds) raw to OUT.

usage: snapshot-reference.py CAPTURE.pcap h264|h265|jpeg OUT.yuv   (prints WIDTHxHEIGHT)

GStreamer's depayloader (pcapparse ! rtph264depay / rtph265depay / rtpjpegdepay) writes each access unit it
finds to a file of its own; FFmpeg decodes the last one holding a keyframe, with the first unit's parameter
sets before it. Two faults of these tools on real streams are worked around, each where it shows:
- GStreamer's rtph264pay config-interval=-1 repeats SPS and PPS before every IDR slice of a picture, and its
  depayloader then cuts the picture at the repeat: a unit without an access unit delimiter, where the stream
  has them, is joined to the one before.
- FFmpeg's raw H.264/H.265 reader takes parameter sets between the slices of one picture for a new picture
  (the second slice decoded as a picture of its own, smeared): those after the first slice are left out.
"""
import glob
import os
import subprocess
import sys
import tempfile

capture, codec, out = sys.argv[1], sys.argv[2], sys.argv[3]
work = tempfile.mkdtemp()
if codec == "jpeg":
    caps, depay = "application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG,payload=26", "rtpjpegdepay"
else:
    name = codec.upper()
    caps = f"application/x-rtp,media=video,clock-rate=90000,encoding-name={name},payload=96"
    depay = f"rtp{codec}depay ! video/x-{codec},stream-format=byte-stream,alignment=au"
subprocess.run(
    f"gst-launch-1.0 -q filesrc location={capture} ! pcapparse ! {caps} ! {depay} "
    f"! multifilesink location={work}/unit%05d",
    shell=True, check=True)
files = sorted(glob.glob(f"{work}/unit*"))
if codec == "jpeg":
    picture = open(files[-1], "rb").read()
    form = "mjpeg"
else:
    def nal_units(data):
        starts, i = [], 0
        while (j := data.find(b"\x00\x00\x01", i)) >= 0:
            starts.append(j + 3)
            i = j + 3
        return [data[s:(starts[k + 1] - 3 if k + 1 < len(starts) else len(data))].rstrip(b"\x00")
                for k, s in enumerate(starts)]
    if codec == "h264":
        kind = lambda n: n[0] & 0x1F
        aud, sets, is_slice, is_key = 9, {7, 8}, lambda t: 1 <= t <= 5, lambda t: t == 5
    else:
        kind = lambda n: (n[0] >> 1) & 0x3F
        aud, sets, is_slice, is_key = 35, {32, 33, 34}, lambda t: t < 32, lambda t: 16 <= t <= 21
    units = [nal_units(open(f, "rb").read()) for f in files]
    delimited = any(u and kind(u[0]) == aud for u in units)
    joined = []
    for unit in units:
        if joined and delimited and not (unit and kind(unit[0]) == aud):
            joined[-1] += unit
        else:
            joined.append(unit)
    last = [u for u in joined if any(is_key(kind(n)) for n in u)][-1]
    first_slice = next(i for i, n in enumerate(last) if is_slice(kind(n)))
    last = last[:first_slice] + [n for n in last[first_slice:] if kind(n) not in sets]
    known = [n for n in joined[0] if kind(n) in sets]
    picture = b"".join(b"\x00\x00\x00\x01" + n for n in known + last)
    form = "h264" if codec == "h264" else "hevc"
source = os.path.join(work, "picture")
open(source, "wb").write(picture)
subprocess.run(
    ["ffmpeg", "-v", "error", "-y", "-f", form, "-i", source, "-pix_fmt", "yuvj420p", "-f", "rawvideo", out],
    check=True)
probe = subprocess.run(
    ["ffprobe", "-v", "error", "-f", form, "-select_streams", "v:0", "-show_entries", "stream=width,height",
     "-of", "csv=p=0:s=x", source], check=True, capture_output=True, text=True)
print(probe.stdout.strip())
