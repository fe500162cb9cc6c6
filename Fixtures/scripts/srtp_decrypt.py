#!/usr/bin/env python3
"""Decrypts an SRTP/SRTCP capture with pylibsrtp (an independent libsrtp user, from PyPI), so that the
reference decoder can read the plain RTP.

usage: srtp_decrypt.py IN.pcap KEY_HEX OUT.pcap   (AES_CM_128_HMAC_SHA1_80; RTP on 5030, RTCP on 5031)
A packet that fails authentication is left out, as a receiver must.
"""
import sys

from pylibsrtp import Error, Policy, Session

import srtp_pcap


def main():
    source, key_hex, target = sys.argv[1], sys.argv[2], sys.argv[3]
    policy = Policy(key=bytes.fromhex(key_hex), ssrc_type=Policy.SSRC_ANY_INBOUND,
                    srtp_profile=Policy.SRTP_PROFILE_AES128_CM_SHA1_80)
    session = Session(policy=policy)
    header, records = srtp_pcap.read(source)
    kept, failed = [], 0
    for sec, frac, frame in records:
        found = srtp_pcap.udp(frame)
        if not found:
            continue
        port, offset = found
        try:
            plain = session.unprotect(frame[offset:]) if port == 5030 else session.unprotect_rtcp(frame[offset:])
        except Error:
            failed += 1
            continue
        kept.append([sec, frac, srtp_pcap.with_payload(frame, plain)])
    srtp_pcap.write(target, header, kept)
    print(f"{len(kept)} packets decrypted, {failed} failed authentication", file=sys.stderr)


if __name__ == "__main__":
    main()
