#!/usr/bin/env python3
"""Runs rtpdump's every subcommand on mutated copies of the fixture captures, and reports crashes, hangs
and peak memory: the damaged input a user's disk or network hands rtpdump, not only what a fuzzer finds.

usage: Fuzz/mutated_captures.py [--mutants N] [--seed S] [--timeout SECONDS] [--rtpdump PATH] [--keep DIR]

Each mutant is one fixture capture with a few seeded changes: bytes flipped or set to 0x00/0xFF, a
record's length fields set to small or huge values, a run of bytes deleted or duplicated, or the file cut
short. Every subcommand (streams, packets, nals, extract, decode) runs on it. A run killed by a signal is
a crash, one that outlives --timeout (default 20 s) a hang; both are kept in --keep (default
Fuzz/artifacts/mutants) with the command that failed. Exit status 0 only with no crash and no hang.
"""
import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CAPTURES = ["h264-gst.pcap", "h265-gst-sll.pcap", "h264-ffmpeg.pcap", "h265-ffmpeg-ipv6.pcapng",
            "rtsp-h264-tcp.pcap", "rtsp-h264-udp.pcap", "h264-interleaved-mode2.pcap", "h265-donl.pcap",
            "h264-srtp.pcap"]
COMMANDS = [["streams"], ["packets"], ["nals"], ["extract", "-o", "{out}.h264"], ["decode", "--md5"]]


def mutate(data, rng):
    data = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        kind = rng.randrange(6)
        at = rng.randrange(24, max(25, len(data)))
        if kind == 0:  # flip bits
            data[at] ^= 1 << rng.randrange(8)
        elif kind == 1:  # a byte set to an edge value
            data[at] = rng.choice([0x00, 0xFF, 0x7F, 0x80])
        elif kind == 2:  # a 32-bit length-like field set to a small or huge value
            value = rng.choice([0, 1, 7, 8, 11, 12, 39, 40, 65535, 0x7FFFFFFF, 0xFFFFFFFF])
            data[at:at + 4] = value.to_bytes(4, rng.choice(["little", "big"]))
        elif kind == 3:  # a run deleted
            del data[at:at + rng.randint(1, 64)]
        elif kind == 4:  # a run duplicated
            data[at:at] = data[at:at + rng.randint(1, 64)]
        else:  # cut short
            del data[at:]
    return bytes(data)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mutants", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--timeout", type=float, default=20)
    parser.add_argument("--rtpdump", default=os.path.join(ROOT, ".build/release/rtpdump"))
    parser.add_argument("--keep", default=os.path.join(HERE, "artifacts/mutants"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    originals = {name: open(os.path.join(ROOT, "Fixtures/captures", name), "rb").read() for name in CAPTURES}
    crashes, hangs, runs, statuses = [], [], 0, {}
    peak_kb = 0
    started = time.time()
    with tempfile.TemporaryDirectory() as work:
        for index in range(args.mutants):
            name = CAPTURES[index % len(CAPTURES)]
            mutant = os.path.join(work, f"mutant-{index}-{name}")
            with open(mutant, "wb") as f:
                f.write(mutate(originals[name], rng))
            for command in COMMANDS:
                argv = [args.rtpdump, command[0], mutant] + [a.format(out=mutant) for a in command[1:]]
                runs += 1
                try:
                    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                            timeout=args.timeout, env=dict(os.environ, SWIFT_BACKTRACE="enable=no"))
                    statuses[result.returncode] = statuses.get(result.returncode, 0) + 1
                    if result.returncode < 0:
                        crashes.append((argv, result.returncode, result.stderr[-500:]))
                except subprocess.TimeoutExpired:
                    hangs.append((argv, None, b""))
                peak_kb = max(peak_kb, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            failed = [c for c in crashes + hangs if c[0][2] == mutant]
            if failed:
                os.makedirs(args.keep, exist_ok=True)
                kept = os.path.join(args.keep, os.path.basename(mutant))
                with open(mutant, "rb") as src, open(kept, "wb") as dst:
                    dst.write(src.read())
            os.remove(mutant)
    for argv, code, stderr in crashes + hangs:
        what = "hang" if code is None else f"crash (signal {-code})"
        print(f"{what}: {' '.join(argv[1:])}\n  {stderr.decode(errors='replace').strip()[-300:]}")
    print(f"{args.mutants} mutants x {len(COMMANDS)} subcommands = {runs} runs in {time.time() - started:.0f} s:"
          f" {len(crashes)} crashes, {len(hangs)} hangs, peak RSS {peak_kb / 1024:.1f} MiB;"
          f" exit statuses {dict(sorted(statuses.items()))}")
    sys.exit(1 if crashes or hangs else 0)


if __name__ == "__main__":
    main()
