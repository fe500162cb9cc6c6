#!/usr/bin/env python3
"""Rewrites the RTP that an RTSP server interleaved in its TCP connection as UDP datagrams, so that
GStreamer's pcapparse (which reads UDP only) can depayload and decode the same RTP packets.

usage: interleaved_to_udp.py IN.pcap SERVER_PORT OUT.pcap
Reassembles the server-to-client direction by sequence number (segments repeated or out of order are
placed once), walks its RTSP messages and $-frames (RFC 2326 10.12), and writes each channel-0 frame as a
UDP datagram from port 6970 to port 5000, timed by the segment that completed it. Ethernet/IPv4 only.
"""
import struct
import sys


def records(data):
    off = 24
    while off + 16 <= len(data):
        sec, frac, incl, _ = struct.unpack("<IIII", data[off:off + 16])
        yield sec, frac, data[off + 16:off + 16 + incl]
        off += 16 + incl


def main():
    data = open(sys.argv[1], "rb").read()
    server_port, out_path = int(sys.argv[2]), sys.argv[3]
    segments = {}
    for sec, frac, frame in records(data):
        if frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 0x0F) * 4
        total = struct.unpack(">H", frame[16:18])[0]
        tcp = frame[14 + ihl:14 + total]
        sport, _, seq = struct.unpack(">HHI", tcp[:8])
        payload = tcp[(tcp[12] >> 4) * 4:]
        if sport == server_port and payload and seq not in segments:
            segments[seq] = (sec, frac, payload)
    first = min(segments)
    stream, times = bytearray(), []
    for seq in sorted(segments, key=lambda s: (s - first) % 2**32):
        sec, frac, payload = segments[seq]
        skip = len(stream) - ((seq - first) % 2**32)
        if skip >= len(payload):
            continue
        stream += payload[max(skip, 0):]
        times.append((len(stream), sec, frac))
    out = [struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)]
    i, t = 0, 0
    while i < len(stream):
        if stream[i] == 0x24:
            channel, length = stream[i + 1], struct.unpack(">H", stream[i + 2:i + 4])[0]
            body = bytes(stream[i + 4:i + 4 + length])
            i += 4 + length
            while times[t][0] < i:
                t += 1
            if channel == 0:
                udp = struct.pack(">HHHH", 6970, 5000, 8 + len(body), 0) + body
                ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 0, 0x4000, 64, 17, 0, b"\x7f\0\0\1", b"\x7f\0\0\1")
                frame = b"\0" * 12 + b"\x08\x00" + ip + udp
                out.append(struct.pack("<IIII", times[t][1], times[t][2], len(frame), len(frame)) + frame)
            continue
        end = stream.find(b"\r\n\r\n", i)
        head = stream[i:end].decode("latin-1")
        length = 0
        for line in head.split("\r\n"):
            if line.lower().startswith("content-length:"):
                length = int(line.split(":", 1)[1])
        i = end + 4 + length
    open(out_path, "wb").write(b"".join(out))
    print(f"{out_path}: {len(out) - 1} RTP packets")


if __name__ == "__main__":
    main()
