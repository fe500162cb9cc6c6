#!/usr/bin/env python3
"""Prints a JSON digest of an Annex B stream's NAL units, parameter sets and AUDs left out: their count
and the MD5 of the NAL units concatenated, each preceded by its length as 4 big-endian bytes. For
references on captures that may not be copied into the project (../shared/fixtures/real).

usage: nal_digest.py STREAM h264|h265
"""
import hashlib
import json
import struct
import sys

from annexb import split_annexb


def main():
    data, codec = open(sys.argv[1], "rb").read(), sys.argv[2]
    skip = (7, 8, 9) if codec == "h264" else (32, 33, 34, 35)
    kind = (lambda n: n[0] & 0x1F) if codec == "h264" else (lambda n: (n[0] >> 1) & 0x3F)
    nals = [n for n in split_annexb(data) if kind(n) not in skip]
    digest = hashlib.md5(b"".join(struct.pack(">I", len(n)) + n for n in nals)).hexdigest()
    print(json.dumps({"nalUnits": len(nals), "md5": digest}))


if __name__ == "__main__":
    main()
