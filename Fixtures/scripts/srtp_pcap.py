"""Reads and writes the little-endian classic pcap (Ethernet, IPv4, UDP) that tshark writes on lo, for
the SRTP fixture scripts. UDP checksums are zeroed when a payload changes (zero means "not computed")."""
import struct


def read(path):
    data = open(path, "rb").read()
    if struct.unpack("<I", data[:4])[0] not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit(f"{path}: expected a little-endian classic pcap")
    header, records, off = data[:24], [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        records.append([sec, frac, data[off + 16:off + 16 + incl]])
        off += 16 + incl
    return header, records


def udp(frame):
    """(destination port, payload offset) of an Ethernet/IPv4/UDP frame, or None."""
    if frame[12:14] != b"\x08\x00" or frame[23] != 17:
        return None
    ihl = (frame[14] & 0x0F) * 4
    start = 14 + ihl
    return struct.unpack(">H", frame[start + 2:start + 4])[0], start + 8


def with_payload(frame, payload):
    """The frame with its UDP payload replaced (IPv4 and UDP lengths and checksums fixed)."""
    ihl = (frame[14] & 0x0F) * 4
    start = 14 + ihl
    ip = bytearray(frame[14:start])
    struct.pack_into(">H", ip, 2, ihl + 8 + len(payload))
    struct.pack_into(">H", ip, 10, 0)
    total = sum(struct.unpack(f">{ihl // 2}H", bytes(ip)))
    while total > 0xFFFF:
        total = (total & 0xFFFF) + (total >> 16)
    struct.pack_into(">H", ip, 10, ~total & 0xFFFF)
    header = bytearray(frame[start:start + 8])
    struct.pack_into(">HH", header, 4, 8 + len(payload), 0)
    return frame[:14] + bytes(ip) + bytes(header) + payload


def write(path, header, records):
    with open(path, "wb") as out:
        out.write(header)
        for sec, frac, frame in records:
            out.write(struct.pack("<IIII", sec, frac, len(frame), len(frame)))
            out.write(frame)
