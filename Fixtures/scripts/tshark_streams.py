#!/usr/bin/env python3
"""Records what tshark says about the RTP streams of every capture, as the tests' expected values.

usage: tshark_streams.py CAPTURES_DIR EXPECTED_DIR [EXTRA_CAPTURE...]

For each capture, runs `tshark -r FILE -q -d udp.port==P,rtp ... -z rtp,streams` with P every port our
senders used, and writes EXPECTED_DIR/<file>.streams.json: a list of objects with the keys
ssrc, payloadType, sourceAddress, sourcePort, destinationAddress, destinationPort, packets, lost,
in tshark's order. The raw tshark report is kept beside it as <file>.tshark.txt.
For captures holding RTCP sender reports (FFmpeg sends them to the RTP port + 1), also writes
<file>.rtcp-sr.tsv: sender SSRC, NTP seconds, NTP fraction, RTP timestamp, packet count, octet count.
"""
import json
import os
import re
import subprocess
import sys

RTP_PORTS = [5000, 5002, 5004, 5006, 53134]
RTCP_PORTS = [5005, 5007]
SR_FIELDS = ["rtcp.senderssrc", "rtcp.timestamp.ntp.msw", "rtcp.timestamp.ntp.lsw", "rtcp.timestamp.rtp",
             "rtcp.sender.packetcount", "rtcp.sender.octetcount"]


def sender_reports(path):
    args = ["tshark", "-r", path, "-Y", "rtcp.pt == 200", "-T", "fields"]
    for port in RTCP_PORTS:
        args += ["-d", f"udp.port=={port},rtcp"]
    for field in SR_FIELDS:
        args += ["-e", field]
    run = subprocess.run(args, capture_output=True, text=True)
    return run.stdout
ROW = re.compile(
    r"^\s*(?P<start>[\d.]+)\s+(?P<end>[\d.]+)\s+(?P<src>\S+)\s+(?P<sport>\d+)\s+(?P<dst>\S+)\s+(?P<dport>\d+)"
    r"\s+(?P<ssrc>0x[0-9A-Fa-f]+)\s+(?P<payload>\S+)\s+(?P<packets>\d+)\s+(?P<lost>-?\d+)")


def streams(path):
    # RTP interleaved in RTSP's TCP connection is found by tshark's RTSP dissector; let its TCP
    # reassembly put out-of-order segments back in order, as ours does.
    args = ["tshark", "-r", path, "-q", "-o", "tcp.reassemble_out_of_order:TRUE", "-z", "rtp,streams"]
    for port in RTP_PORTS:
        args[1:1] = ["-d", f"udp.port=={port},rtp"]
    # tshark exits 2 on a capture cut short but still reports what it read; keep its warning.
    run = subprocess.run(args, capture_output=True, text=True)
    if run.returncode not in (0, 2) or "RTP Streams" not in run.stdout:
        raise SystemExit(f"tshark failed on {path}: {run.stderr}")
    report = run.stdout + "".join(f"# tshark: {line}\n" for line in run.stderr.splitlines())
    rows = []
    for line in report.splitlines():
        m = ROW.match(line)
        if not m:
            continue
        payload = m["payload"]
        # Dynamic types print as "RTPType-96" (tshark 4.0) or "DynamicRTP-Type-96" (older).
        digits = re.search(r"(\d+)$", payload)
        pt = int(digits[1]) if digits else payload
        rows.append({
            "ssrc": int(m["ssrc"], 16), "payloadType": pt,
            "sourceAddress": m["src"], "sourcePort": int(m["sport"]),
            "destinationAddress": m["dst"], "destinationPort": int(m["dport"]),
            "packets": int(m["packets"]), "lost": int(m["lost"]),
        })
    return report, rows


def main():
    captures, expected = sys.argv[1], sys.argv[2]
    files = [os.path.join(captures, f) for f in sorted(os.listdir(captures))
             if f.endswith((".pcap", ".pcapng")) and not f.startswith("garbage")]
    for path in files + sys.argv[3:]:
        report, rows = streams(path)
        name = os.path.basename(path)
        with open(os.path.join(expected, name + ".tshark.txt"), "w") as f:
            f.write(report)
        with open(os.path.join(expected, name + ".streams.json"), "w") as f:
            json.dump(rows, f, indent=2)
            f.write("\n")
        reports = sender_reports(path)
        if reports.strip():
            with open(os.path.join(expected, name + ".rtcp-sr.tsv"), "w") as f:
                f.write(reports)
        print(f"{name}: " + ", ".join(f"0x{r['ssrc']:08X} {r['packets']} pkts {r['lost']} lost" for r in rows))


if __name__ == "__main__":
    main()
