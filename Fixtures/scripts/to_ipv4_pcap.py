#!/usr/bin/env python3
"""Rewrites the UDP-over-IPv6 packets of an Ethernet pcapng as UDP over IPv4 (127.0.0.1 both ways) in a
classic pcap, keeping timestamps and UDP payloads byte for byte: GStreamer's pcapparse reads neither
pcapng nor IPv6, and the references must come from the same RTP packets.

usage: to_ipv4_pcap.py IN.pcapng OUT.pcap
"""
import struct
import sys


def blocks(data):
    off, order = 0, "<"
    while off + 12 <= len(data):
        btype, length = struct.unpack(order + "II", data[off:off + 8])
        if btype == 0x0A0D0D0A:
            order = "<" if data[off + 8:off + 12] == b"\x4d\x3c\x2b\x1a" else ">"
            btype, length = struct.unpack(order + "II", data[off:off + 8])
        yield btype, data[off + 8:off + length - 4], order
        off += length


def main():
    data = open(sys.argv[1], "rb").read()
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    resolution = 1_000_000
    for btype, body, order in blocks(data):
        if btype == 1:
            resolution = 1_000_000
            off = 8
            while off + 4 <= len(body):  # options: look for if_tsresol (9)
                code, length = struct.unpack(order + "HH", body[off:off + 4])
                if code == 0:
                    break
                if code == 9:
                    value = body[off + 4]
                    resolution = 2 ** (value & 0x7F) if value & 0x80 else 10 ** value
                off += 4 + (length + 3) // 4 * 4
        if btype != 6:
            continue
        _, high, low, caplen, _ = struct.unpack(order + "IIIII", body[:20])
        frame = body[20:20 + caplen]
        if struct.unpack(">H", frame[12:14])[0] != 0x86DD or frame[14 + 6] != 17:
            continue
        udp = frame[14 + 40:]
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                         bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]))
        new = frame[:12] + b"\x08\x00" + ip + udp
        units = (high << 32) | low
        sec, frac = divmod(units, resolution)
        out.append(struct.pack("<IIII", sec, frac * 1_000_000 // resolution, len(new), len(new)) + new)
    open(sys.argv[2], "wb").write(b"".join(out))


if __name__ == "__main__":
    main()
