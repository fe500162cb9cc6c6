#!/usr/bin/env python3
"""Derives the RFC 2435 quantization-table forms no sender here writes from a capture of rtpjpegpay
(which always sends Q=255, tables in band), for pictures libjpeg encoded at quality QUALITY.

usage: jpeg_tables.py CLEAN.pcap Q OUT.pcap   (CLEAN: Ethernet, classic pcap, RTP JPEG over UDP)

First checks that every picture's in-band tables are those RFC 2435's appendix A computes for Q=QUALITY
(the IJG scaling of the JPEG standard's tables K.1 and K.2, in zig-zag order, as a DQT holds them); its
own implementation here, independent of the library's. Then, for
  Q 1-99:    sets Q and removes the quantization table header: the receiver computes the tables;
  Q 128-254: sets Q, keeps the tables in the first picture only, and a header of length 0 in the others:
             the receiver uses the tables it cached for that Q.
The entropy-coded data is untouched, so the pictures are the clean capture's. UDP checksums are set to 0
(none, for IPv4); IPv4 lengths and header checksums are recomputed.
"""
import struct
import sys

# The JPEG standard's example tables (ITU T.81 annex K, tables K.1 and K.2), in natural (row) order.
LUMA = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
        14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
CHROMA = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
          47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32


def zigzag_order():
    """Natural-order indices in zig-zag order: walk the anti-diagonals, alternating direction."""
    order = []
    for s in range(15):
        cells = [(r, s - r) for r in range(8) if 0 <= s - r < 8]
        order += [r * 8 + c for r, c in (cells if s % 2 else reversed(cells))]
    return order


def rfc_tables(q):
    factor = min(max(q, 1), 99)
    scale = 5000 // factor if factor < 50 else 200 - factor * 2
    zz = zigzag_order()
    return b"".join(bytes(min(max((table[i] * scale + 50) // 100, 1), 255) for i in zz) for table in (LUMA, CHROMA))


def ip_checksum(header):
    total = sum(struct.unpack(f">{len(header) // 2}H", header))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def main():
    clean, q, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    quality = 50
    expected_tables = rfc_tables(quality)
    data = open(clean, "rb").read()
    if struct.unpack("<I", data[:4])[0] != 0xA1B2C3D4 or struct.unpack("<I", data[20:24])[0] != 1:
        raise SystemExit(f"{clean}: expected a little-endian microsecond pcap of Ethernet frames")
    result, offset, pictures = bytearray(data[:24]), 24, 0
    while offset + 16 <= len(data):
        sec, usec, length, _ = struct.unpack("<IIII", data[offset:offset + 16])
        frame = bytearray(data[offset + 16:offset + 16 + length])
        offset += 16 + length
        ip = 14
        udp = ip + (frame[ip] & 0x0F) * 4
        rtp = udp + 8
        jpeg = rtp + 12 + 4 * (frame[rtp] & 0x0F)
        fragment_offset = int.from_bytes(frame[jpeg + 1:jpeg + 4], "big")
        kind, packet_q = frame[jpeg + 4], frame[jpeg + 5]
        header_end = jpeg + 8 + (4 if 64 <= kind <= 127 else 0)
        if packet_q != 255:
            raise SystemExit(f"{clean}: expected Q=255 (tables in band), found {packet_q}")
        frame[jpeg + 5] = q
        if fragment_offset == 0:
            table_length = struct.unpack(">H", frame[header_end + 2:header_end + 4])[0]
            tables = bytes(frame[header_end + 4:header_end + 4 + table_length])
            if frame[header_end + 1] != 0 or tables != expected_tables:
                raise SystemExit(f"{clean}: picture {pictures}: the in-band tables are not RFC 2435's Q={quality}")
            if q < 128:
                del frame[header_end:header_end + 4 + table_length]
            elif pictures > 0:
                del frame[header_end + 2:header_end + 4 + table_length]
                frame[header_end + 2:header_end + 2] = b"\x00\x00"
            pictures += 1
        struct.pack_into(">H", frame, ip + 2, len(frame) - ip)
        struct.pack_into(">H", frame, ip + 10, 0)
        struct.pack_into(">H", frame, ip + 10, ip_checksum(bytes(frame[ip:udp])))
        struct.pack_into(">HH", frame, udp + 4, len(frame) - udp, 0)
        result += struct.pack("<IIII", sec, usec, len(frame), len(frame)) + frame
    open(out, "wb").write(result)
    print(f"{out}: {pictures} pictures, Q={q}")


if __name__ == "__main__":
    main()
