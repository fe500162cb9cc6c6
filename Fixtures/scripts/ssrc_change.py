#!/usr/bin/env python3
"""Makes a capture of an RTSP session whose camera starts a new RTP source every so often, as cameras
do per GOP or after an encoder restart, from a clean capture of one (Ethernet, classic pcap, RTP over UDP).

usage: ssrc_change.py CLEAN.pcap OUT.pcap [EVERY]

The video RTP (payload types 96-127) gets a new SSRC, sequence base and timestamp base, each drawn with a
fixed seed, at the first packet of the first access unit (after a marker packet) once EVERY packets
(default 30) have gone since the last change. Payloads are left as they are, so the pictures are those of
the clean capture: its GStreamer frame MD5s are the reference. UDP checksums are set to 0 (none, for IPv4);
RTCP and the RTSP exchange are copied unchanged.
"""
import random
import struct
import sys

SEED = 20261124


def main():
    relabel = "--relabel" in sys.argv
    args = [a for a in sys.argv[1:] if a != "--relabel"]
    clean, out = args[0], args[1]
    every = int(args[2]) if len(args) > 2 else 30
    rng = random.Random(SEED)
    data = open(clean, "rb").read()
    if struct.unpack("<I", data[:4])[0] != 0xA1B2C3D4 or struct.unpack("<I", data[20:24])[0] != 1:
        raise SystemExit(f"{clean}: expected a little-endian microsecond pcap of Ethernet frames")
    result = bytearray(data[:24])
    offset = 24
    since_change, after_marker, changes = 0, True, 0
    source = None  # (ssrc, sequence offset, timestamp offset) of the current source
    while offset + 16 <= len(data):
        header = data[offset:offset + 16]
        length = struct.unpack("<I", header[8:12])[0]
        frame = bytearray(data[offset + 16:offset + 16 + length])
        offset += 16 + length
        ip = 14
        if len(frame) >= ip + 28 and frame[12:14] == b"\x08\x00" and frame[ip + 9] == 17:
            udp = ip + (frame[ip] & 0x0F) * 4
            rtp = udp + 8
            if len(frame) >= rtp + 12 and frame[rtp] >> 6 == 2 and 96 <= frame[rtp + 1] & 0x7F <= 127:
                if source is None or (since_change >= every and after_marker):
                    if source is not None:
                        changes += 1
                    source = (rng.getrandbits(32), rng.getrandbits(16), rng.getrandbits(32))
                    if relabel:
                        source = (source[0], 0, 0)
                    since_change = 0
                ssrc, sequence_offset, timestamp_offset = source
                sequence, timestamp = struct.unpack(">HI", frame[rtp + 2:rtp + 8])
                if changes:
                    struct.pack_into(
                        ">HII", frame, rtp + 2, (sequence + sequence_offset) & 0xFFFF,
                        (timestamp + timestamp_offset) & 0xFFFFFFFF, ssrc)
                struct.pack_into(">H", frame, udp + 6, 0)
                after_marker = frame[rtp + 1] & 0x80 != 0
                since_change += 1
        result += header + frame
    open(out, "wb").write(result)
    print(f"{out}: {changes} changes of SSRC")


if __name__ == "__main__":
    main()
