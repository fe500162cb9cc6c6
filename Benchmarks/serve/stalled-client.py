#!/usr/bin/env python3
"""An RTSP client that sets up and plays every track over TCP, then reads nothing more for SECONDS: a viewer
whose network or process stalled. The server's writes to it back up; a good server leaves its other clients alone.

usage: stalled-client.py URL SECONDS
"""
import re
import socket
import sys
import time

url, seconds = sys.argv[1], float(sys.argv[2])
host, port = re.match(r"rtsp://([^:/]+):(\d+)", url).groups()
conn = socket.create_connection((host, int(port)))
conn.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
cseq = 0


def ask(method, target, headers=""):
    global cseq
    cseq += 1
    conn.sendall(f"{method} {target} RTSP/1.0\r\nCSeq: {cseq}\r\n{headers}\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(4096)
    head, _, body = data.partition(b"\r\n\r\n")
    length = re.search(rb"Content-Length: *(\d+)", head, re.I)
    while length and len(body) < int(length.group(1)):
        body += conn.recv(4096)
    return head.decode(), body.decode(errors="replace")


head, sdp = ask("DESCRIBE", url, "Accept: application/sdp\r\n")
base = (re.search(r"Content-Base: *(\S+)", head, re.I) or re.search(r"(.*)", url)).group(1)
controls = re.findall(r"a=control:(\S+)", sdp.split("m=", 1)[1]) if "m=" in sdp else []
session = None
for index, control in enumerate(controls):
    target = control if control.startswith("rtsp://") else base.rstrip("/") + "/" + control
    extra = f"Session: {session}\r\n" if session else ""
    head, _ = ask("SETUP", target, f"Transport: RTP/AVP/TCP;unicast;interleaved={2 * index}-{2 * index + 1}\r\n{extra}")
    session = session or re.search(r"Session: *([^;\r\n]+)", head, re.I).group(1)
conn.sendall(f"PLAY {url} RTSP/1.0\r\nCSeq: {cseq + 1}\r\nSession: {session}\r\nRange: npt=0.000-\r\n\r\n".encode())
print("stalled", flush=True)
time.sleep(seconds)
