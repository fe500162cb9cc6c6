#!/usr/bin/env python3
"""Writes captures/srtp-wrap.pcap: 200 SRTP packets (AES_CM_128_HMAC_SHA1_80, the key of h264-srtp.json)
whose sequence numbers run from 65436 across the 16-bit wrap to 99, protected by pylibsrtp, as UDP
datagrams to port 5030. After the wrap the sender's rollover counter is 1: a receiver that does not
count it computes the wrong packet index and every later packet fails authentication.

usage: srtp_wrap.py KEY_HEX OUT.pcap
"""
import struct
import sys

from pylibsrtp import Policy, Session

import srtp_pcap


def frame(payload):
    ethernet = b"\x00" * 12 + b"\x08\x00"
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + len(payload), 0, 0, 64, 17, 0,
                     bytes([127, 0, 0, 1]), bytes([127, 0, 0, 1]))
    udp = struct.pack(">HHHH", 5031, 5030, 8 + len(payload), 0)
    return srtp_pcap.with_payload(ethernet + ip + udp, payload)


def main():
    key_hex, target = sys.argv[1], sys.argv[2]
    session = Session(policy=Policy(key=bytes.fromhex(key_hex), ssrc_type=Policy.SSRC_ANY_OUTBOUND,
                                    srtp_profile=Policy.SRTP_PROFILE_AES128_CM_SHA1_80))
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    records = []
    for i in range(200):
        sequence = (65436 + i) & 0xFFFF
        rtp = struct.pack(">BBHII", 0x80, 96, sequence, 3000 * i, 0x12345678) + bytes([i & 0xFF]) * 50
        records.append([1_800_000_000 + i // 100, (i % 100) * 10_000, frame(session.protect(rtp))])
    srtp_pcap.write(target, header, records)


if __name__ == "__main__":
    main()
