#!/usr/bin/env python3
"""Seek latency of an RTSP playback server: DESCRIBE, SETUP of the first track over TCP, then PLAY with
`Range: npt=START-`; the time from sending PLAY to the first RTP packet, printed in milliseconds. TEARDOWN after.

usage: seek-latency.py URL START_SECONDS
"""
import re
import socket
import sys
import time

url, start = sys.argv[1], float(sys.argv[2])
host, port = re.match(r"rtsp://([^:/]+):(\d+)", url).groups()
conn = socket.create_connection((host, int(port)))
cseq = 0
pending = b""


def ask(method, target, headers=""):
    global cseq, pending
    cseq += 1
    conn.sendall(f"{method} {target} RTSP/1.0\r\nCSeq: {cseq}\r\n{headers}\r\n".encode())
    while b"\r\n\r\n" not in pending:
        pending += conn.recv(65536)
    head, _, pending = pending.partition(b"\r\n\r\n")
    length = re.search(rb"Content-Length: *(\d+)", head, re.I)
    size = int(length.group(1)) if length else 0
    while len(pending) < size:
        pending += conn.recv(65536)
    body, pending = pending[:size], pending[size:]
    return head.decode(), body.decode(errors="replace")


_, sdp = ask("DESCRIBE", url, "Accept: application/sdp\r\n")
media = sdp[sdp.find("m="):]  # the first track's control, after its m= line
control = re.search(r"a=control:(\S+)", media)
track = control.group(1) if control else url
target = track if track.startswith("rtsp://") else url.rstrip("/") + "/" + track
head, _ = ask("SETUP", target, "Transport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n")
session = re.search(r"Session: *([^;\r\n]+)", head).group(1)
sent = time.monotonic()
ask("PLAY", url, f"Session: {session}\r\nRange: npt={start}-\r\n")
while not pending.startswith(b"$"):  # the first interleaved frame after the answer
    pending += conn.recv(65536)
print(f"{(time.monotonic() - sent) * 1000:.1f}")
conn.sendall(f"TEARDOWN {url} RTSP/1.0\r\nCSeq: {cseq + 1}\r\nSession: {session}\r\n\r\n".encode())
conn.close()
