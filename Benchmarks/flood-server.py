#!/usr/bin/python3
"""A hostile RTSP server that floods: what a client holds while it is flooded, measured from outside.

usage: Benchmarks/flood-server.py [--seconds S] [--mode requests|media] [--rtpdump PATH]

Serves one H.264 track on loopback (OPTIONS, DESCRIBE, SETUP over TCP, PLAY answered), then
  requests: sends GET_PARAMETER after GET_PARAMETER and never reads again (each asks an answer of the
            client, which cannot be written);
  media:    sends interleaved RTP as fast as the socket takes it (the client reads, and drops what its
            consumer, a slow stdout, does not take).
Runs `rtpdump packets URL --duration S` against it (in media mode its stdout a pipe read 4 KiB every 10 ms) and
prints rtpdump's exit status, the end of its stderr, and its peak resident memory (VmHWM) sampled from
/proc. Loopback only; the flood stops with rtpdump or after S + 10 seconds.
"""
import argparse
import os
import socket
import subprocess
import sys
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SDP = (b"v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=flood\r\nt=0 0\r\nm=video 0 RTP/AVP 96\r\n"
       b"a=rtpmap:96 H264/90000\r\na=fmtp:96 packetization-mode=1\r\na=control:track1\r\n")


def answer(conn, request):
    lines = request.split(b"\r\n")
    method = lines[0].split(b" ")[0]
    cseq = next((l.split(b":", 1)[1].strip() for l in lines if l.lower().startswith(b"cseq")), b"0")
    headers = b"RTSP/1.0 200 OK\r\nCSeq: " + cseq + b"\r\n"
    body = b""
    if method == b"DESCRIBE":
        headers += b"Content-Type: application/sdp\r\nContent-Length: %d\r\n" % len(SDP)
        body = SDP
    elif method == b"SETUP":
        headers += b"Session: 1;timeout=60\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n"
    elif method in (b"PLAY", b"TEARDOWN", b"GET_PARAMETER"):
        headers += b"Session: 1\r\n"
    conn.sendall(headers + b"\r\n" + body)
    return method


def serve(listener, mode, seconds, stats):
    conn, _ = listener.accept()
    buffer = b""
    while True:
        data = conn.recv(65536)
        if not data:
            return
        buffer += data
        while b"\r\n\r\n" in buffer:
            request, buffer = buffer.split(b"\r\n\r\n", 1)
            if answer(conn, request) == b"PLAY":
                return flood(conn, mode, seconds, stats)


def flood(conn, mode, seconds, stats):
    end = time.time() + seconds + 10
    if mode == "requests":
        burst = b"GET_PARAMETER rtsp://127.0.0.1/stream RTSP/1.0\r\nCSeq: 1\r\n\r\n" * 1000
    else:
        payload = bytes([0x80, 96, 0, 0, 0, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]) + bytes([0x41]) + bytes(1386)
        burst = (b"$\x00" + len(payload).to_bytes(2, "big") + payload) * 64
    conn.settimeout(1)
    try:
        while time.time() < end:
            try:
                conn.sendall(burst)
                stats["bytes"] += len(burst)
            except socket.timeout:
                continue
    except OSError:
        pass
    conn.close()


def peak_rss(pid):
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--mode", choices=["requests", "media"], default="requests")
    parser.add_argument("--rtpdump", default=os.path.join(ROOT, ".build/release/rtpdump"))
    args = parser.parse_args()
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    stats = {"bytes": 0}
    threading.Thread(target=serve, args=(listener, args.mode, args.seconds, stats), daemon=True).start()
    url = f"rtsp://127.0.0.1:{listener.getsockname()[1]}/stream"
    started = time.time()
    # In media mode stdout is a pipe read slowly: the consumer falls behind while the server streams.
    process = subprocess.Popen(
        [args.rtpdump, "packets", url, "--duration", str(args.seconds)],
        stdout=subprocess.PIPE if args.mode == "media" else subprocess.DEVNULL, stderr=subprocess.PIPE)
    if args.mode == "media":
        def slow_reader():
            while process.stdout.read(4096):
                time.sleep(0.01)
        threading.Thread(target=slow_reader, daemon=True).start()
    peak = 0
    while process.poll() is None and time.time() - started < args.seconds + 20:
        peak = max(peak, peak_rss(process.pid) or 0)
        time.sleep(0.2)
    if process.poll() is None:
        process.kill()
    stderr = process.stderr.read().decode(errors="replace").strip().splitlines()
    print(f"mode {args.mode}: rtpdump exit {process.wait()} after {time.time() - started:.1f} s; "
          f"server sent {stats['bytes'] / 1e6:.1f} MB; rtpdump peak RSS {peak / 1024:.1f} MiB")
    for line in stderr[-3:]:
        print(f"  stderr: {line}")


if __name__ == "__main__":
    sys.exit(main())
