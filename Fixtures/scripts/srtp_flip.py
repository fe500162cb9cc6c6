#!/usr/bin/env python3
"""Flips one byte in a few SRTP packets of a capture (fixed choice), and says which: their RTP sequence
numbers (in the clear header) and SSRC, with the key, as JSON on stdout.

usage: srtp_flip.py IN.pcap OUT.pcap KEY_HEX
Every 37th SRTP packet from the 10th gets its last payload byte before the tag inverted; pylibsrtp then
confirms that exactly those packets fail authentication.
"""
import json
import struct
import sys

from pylibsrtp import Error, Policy, Session

import srtp_pcap


def main():
    source, target, key_hex = sys.argv[1], sys.argv[2], sys.argv[3]
    header, records = srtp_pcap.read(source)
    out, flipped, index = [], [], 0
    for sec, frac, frame in records:
        found = srtp_pcap.udp(frame)
        if found and found[0] == 5030:
            if index >= 10 and (index - 10) % 37 == 0:
                payload = bytearray(frame[found[1]:])
                payload[-11] ^= 0xFF  # the byte before the 10-byte tag
                frame = srtp_pcap.with_payload(frame, bytes(payload))
                flipped.append(struct.unpack(">H", payload[2:4])[0])
            index += 1
        out.append([sec, frac, frame])
    srtp_pcap.write(target, header, out)
    # The independent check: pylibsrtp refuses exactly the flipped packets.
    session = Session(policy=Policy(key=bytes.fromhex(key_hex), ssrc_type=Policy.SSRC_ANY_INBOUND,
                                    srtp_profile=Policy.SRTP_PROFILE_AES128_CM_SHA1_80))
    refused = []
    for _, _, frame in out:
        found = srtp_pcap.udp(frame)
        if found and found[0] == 5030:
            try:
                session.unprotect(frame[found[1]:])
            except Error:
                refused.append(struct.unpack(">H", frame[found[1] + 2:found[1] + 4])[0])
    if refused != flipped:
        raise SystemExit(f"pylibsrtp refused {refused}, expected {flipped}")
    first = next(frame for _, _, frame in out if (srtp_pcap.udp(frame) or (0,))[0] == 5030)
    ssrc = struct.unpack(">I", first[srtp_pcap.udp(first)[1] + 8:][:4])[0]
    print(json.dumps({"key": key_hex, "suite": "AES_CM_128_HMAC_SHA1_80", "srtpPackets": index,
                      "flippedSequenceNumbers": flipped, "ssrc": ssrc}, indent=1))


if __name__ == "__main__":
    main()
