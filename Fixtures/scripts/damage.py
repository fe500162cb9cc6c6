#!/usr/bin/env python3
"""Derives damaged variants from a clean classic-pcap capture, with a fixed seed.

usage: damage.py [--tcp | --network] CLEAN.pcap OUTDIR MANIFEST.json

With --tcp (for a capture of one TCP connection), writes only -reordered-dup.pcap: about 5% of
segments delayed by 1-5 positions and about 3% sent twice, as TCP reordering and retransmission.
With --network, only what a network does to UDP: -reordered-dup.pcap and -dropped.pcap.

Writes, next to each other in OUTDIR (names start with the clean file's stem):
  -reordered-dup.pcap  about 5% of packets delayed by 1-5 positions and about 3% sent twice (the copy
                       lands 0-3 positions later). Record times stay non-decreasing: a delayed packet
                       takes the time of the packet it now follows, as on a real network.
  -dropped.pcap        a fixed number of packets removed (never among the first or last five).
  -truncated.pcap      the file cut in the middle of a record, as when a capture is killed.
  -snaplen.pcap        a few records cut to 60 captured bytes (orig_len kept), as with a small snaplen.
  garbage-records.pcap a valid header followed by records of random bytes, then one record whose length
                       field is absurd.
  garbage.bin          random bytes, not a capture at all.
MANIFEST.json records what was done (counts and record indices), for the tests; entries for other
captures already in it are kept.
"""
import json
import os
import random
import struct
import sys

SEED = 20261122


def read_pcap(path):
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic not in (0xA1B2C3D4, 0xA1B23C4D):
        raise SystemExit(f"{path}: expected a little-endian classic pcap")
    header, records, off = data[:24], [], 24
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack("<IIII", data[off:off + 16])
        records.append([sec, frac, incl, orig, data[off + 16:off + 16 + incl]])
        off += 16 + incl
    return header, records, magic == 0xA1B23C4D


def write_pcap(path, header, records):
    with open(path, "wb") as f:
        f.write(header)
        for sec, frac, incl, orig, body in records:
            f.write(struct.pack("<IIII", sec, frac, incl, orig) + body)


def monotonic_times(records, nano):
    """Gives each record the later of its own time and its predecessor's."""
    scale = 1_000_000_000 if nano else 1_000_000
    last = 0
    for r in records:
        t = max(r[0] * scale + r[1], last)
        r[0], r[1] = divmod(t, scale)
        last = t
    return records


def reorder_and_duplicate(records, nano, rng):
    """Returns the records with some delayed and some sent twice, and the two counts."""
    order = list(range(len(records)))
    delayed = 0
    for i in range(len(order) - 6, 5, -1):
        if rng.random() < 0.05:
            shift = rng.randint(1, 5)
            order.insert(i + shift, order.pop(i))
            delayed += 1
    duplicated = 0
    out = []
    pending = []  # (position, record index) of copies still to place
    for pos, idx in enumerate(order):
        out.append(idx)
        if 5 <= pos < len(order) - 6 and rng.random() < 0.03:
            pending.append((pos + rng.randint(0, 3), idx))
            duplicated += 1
        for due in [p for p in pending if p[0] <= pos]:
            out.append(due[1])
            pending.remove(due)
    out.extend(idx for _, idx in pending)
    return monotonic_times([list(records[i]) for i in out], nano), delayed, duplicated


def main():
    tcp = sys.argv[1] == "--tcp"
    network = sys.argv[1] == "--network"
    args = sys.argv[2:] if tcp or network else sys.argv[1:]
    clean, outdir, manifest_path = args[0], args[1], args[2]
    stem = os.path.splitext(os.path.basename(clean))[0]
    header, records, nano = read_pcap(clean)
    rng = random.Random(SEED)
    manifest = json.load(open(manifest_path)) if os.path.exists(manifest_path) else {}

    variant, delayed, duplicated = reorder_and_duplicate(records, nano, rng)
    write_pcap(os.path.join(outdir, f"{stem}-reordered-dup.pcap"), header, variant)
    manifest[f"{stem}-reordered-dup.pcap"] = {
        "source": os.path.basename(clean), "delayed": delayed, "duplicated": duplicated}
    if tcp:
        write_manifest(manifest_path, manifest)
        return

    # Dropped.
    candidates = list(range(5, len(records) - 5))
    dropped = sorted(rng.sample(candidates, 7))
    kept = [r for i, r in enumerate(records) if i not in set(dropped)]
    write_pcap(os.path.join(outdir, f"{stem}-dropped.pcap"), header, kept)
    manifest[f"{stem}-dropped.pcap"] = {
        "source": os.path.basename(clean), "dropped": len(dropped), "droppedRecords": dropped}
    if network:
        write_manifest(manifest_path, manifest)
        return

    # Truncated mid-record.
    whole = open(clean, "rb").read()
    keep_records = len(records) // 2
    off = 24 + sum(16 + r[2] for r in records[:keep_records])
    cut = off + 16 + records[keep_records][2] // 2
    open(os.path.join(outdir, f"{stem}-truncated.pcap"), "wb").write(whole[:cut])
    manifest[f"{stem}-truncated.pcap"] = {
        "source": os.path.basename(clean), "completeRecords": keep_records, "cutAtOffset": cut}

    # Snaplen-truncated records.
    cut_records = sorted(rng.sample([i for i in range(5, len(records) - 5) if records[i][2] > 80], 5))
    snapped = []
    for i, r in enumerate(records):
        r = list(r)
        if i in cut_records:
            r[2], r[4] = 60, r[4][:60]
        snapped.append(r)
    write_pcap(os.path.join(outdir, f"{stem}-snaplen.pcap"), header, snapped)
    manifest[f"{stem}-snaplen.pcap"] = {
        "source": os.path.basename(clean), "snappedRecords": cut_records}

    # Garbage.
    junk = [[1, i, 0, 0, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))] for i in range(50)]
    for r in junk:
        r[2] = r[3] = len(r[4])
    write_pcap(os.path.join(outdir, "garbage-records.pcap"), header, junk)
    with open(os.path.join(outdir, "garbage-records.pcap"), "ab") as f:
        f.write(struct.pack("<IIII", 2, 0, 0x7FFFFFF0, 0x7FFFFFF0) + b"\x00" * 32)
    manifest["garbage-records.pcap"] = {"randomRecords": len(junk), "absurdRecordIndex": len(junk)}
    open(os.path.join(outdir, "garbage.bin"), "wb").write(bytes(rng.getrandbits(8) for _ in range(4096)))

    write_manifest(manifest_path, manifest)


def write_manifest(path, manifest):
    with open(path, "w") as f:
        json.dump(manifest, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
