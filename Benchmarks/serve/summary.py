#!/usr/bin/env python3
"""One line for a server measured under many viewers: its CPU over the window (share of a core, per viewer), its
resident memory at the window's start and end, and what the viewers' `rtpdump streams --json` files say they got
(OUT/TAG-*.json). Anything after the figures is printed at the end of the line.

usage: summary.py OUT TAG VIEWERS SECONDS CPU_TICKS TICKS_PER_SECOND RSS0_KIB RSS1_KIB [TEXT...]
"""
import glob
import json
import sys

out, tag, viewers, seconds, cpu, ticks, rss0, rss1 = sys.argv[1:9]
extra = " ".join(sys.argv[9:])
packets, lost, empty = [], 0, 0
for path in glob.glob(f"{out}/{tag}-*.json"):
    try:
        rows = json.load(open(path))
    except Exception:
        rows = []
    if not rows:
        empty += 1
        continue
    packets.append(sum(r.get("packets", 0) for r in rows))
    lost += sum(max(0, r.get("lost", 0)) for r in rows)
cpu_s = int(cpu) / int(ticks)
share = 100 * cpu_s / int(seconds)
print(f"{tag:18} cpu {cpu_s:6.2f} s ({share:5.1f}% core, {share / int(viewers):.3f}% per viewer)"
      f"  rss {int(rss0) // 1024} -> {int(rss1) // 1024} MiB"
      f"  viewers {len(packets)}/{viewers} (none: {empty})  packets min {min(packets, default=0)}"
      f" max {max(packets, default=0)}  lost {lost}" + (f"  {extra}" if extra else ""))
