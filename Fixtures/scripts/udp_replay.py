#!/usr/bin/env python3
"""Sends the UDP payloads a capture holds for one destination port to 127.0.0.1:PORT, paced by the
capture's record times (at SPEED times real time): how FFmpeg's RTP demuxer, which reads no pcap, is fed a
capture (`ffmpeg -i FILE.sdp` listening on PORT).

usage: udp_replay.py CAPTURE.pcap DST_PORT [SPEED]   (Ethernet, classic little-endian pcap, IPv4)
"""
import socket
import struct
import sys
import time


def main():
    path, port = sys.argv[1], int(sys.argv[2])
    speed = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
    data = open(path, "rb").read()
    if struct.unpack("<I", data[:4])[0] != 0xA1B2C3D4 or struct.unpack("<I", data[20:24])[0] != 1:
        raise SystemExit(f"{path}: expected a little-endian microsecond pcap of Ethernet frames")
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    offset, first, start, sent = 24, None, time.monotonic(), 0
    while offset + 16 <= len(data):
        sec, usec, length, _ = struct.unpack("<IIII", data[offset:offset + 16])
        frame = data[offset + 16:offset + 16 + length]
        offset += 16 + length
        if frame[12:14] != b"\x08\x00" or frame[23] != 17:
            continue
        udp = 14 + (frame[14] & 0x0F) * 4
        if struct.unpack(">H", frame[udp + 2:udp + 4])[0] != port:
            continue
        at = sec + usec / 1e6
        first = at if first is None else first
        delay = (at - first) / speed - (time.monotonic() - start)
        if delay > 0:
            time.sleep(delay)
        sock.sendto(frame[udp + 8:], ("127.0.0.1", port))
        sent += 1
    print(f"{path}: {sent} datagrams to port {port}", file=sys.stderr)


if __name__ == "__main__":
    main()
