#!/usr/bin/env python3
"""Prints, for the first media section of an SDP file, its port, the application/x-rtp caps GStreamer's
pcapparse needs for it (media, clock-rate, encoding-name, payload, encoding-params, and the fmtp's
parameters), and its encoding name upper-cased: "PORT CAPS ENCODING".

usage: sdp_to_caps.py FILE.sdp
"""
import sys


def main():
    media = port = pt = None
    rtpmap = fmtp = ""
    for line in open(sys.argv[1]).read().splitlines():
        if line.startswith("m=") and media is None:
            fields = line[2:].split()
            media, port, pt = fields[0], fields[1], fields[3]
        elif line.startswith(f"a=rtpmap:{pt} "):
            rtpmap = line.split(" ", 1)[1]
        elif line.startswith(f"a=fmtp:{pt} "):
            fmtp = line.split(" ", 1)[1]
    parts = rtpmap.split("/")
    caps = [f"media={media}", f"clock-rate={parts[1]}", f"encoding-name={parts[0].upper()}", f"payload={pt}"]
    if len(parts) > 2:
        caps.append(f"encoding-params=(string){parts[2]}")
    for pair in filter(None, (p.strip() for p in fmtp.split(";"))):
        name, _, value = pair.partition("=")
        caps.append(f"{name.strip().lower()}=(string){value.strip()}")
    print(port, "application/x-rtp," + ",".join(caps), parts[0].upper())


if __name__ == "__main__":
    main()
