#!/usr/bin/env python3
"""Small real senders for the custom transports' tests: they send the RTP of a capture (its UDP payloads
to RTP_PORT, in order) the way the seed player's deployments did.

usage: rtp-senders.py udp PORT CAPTURE RTP_PORT
    Waits on UDP PORT for b"HELLO", then sends the packets to whoever said it, paced at 1 ms, with a
    2-second stall after the first third. It keeps sending only while it hears b"BEAT" at least every
    1.5 s (during the stall too: a receiver whose heartbeat follows the packets falls silent then, and
    the sender gives up). Prints "ready" when listening and "heartbeats N sent M" when done.
usage: rtp-senders.py http PORT CAPTURE RTP_PORT
    Serves GET /stream: 200, chunked, each packet after a 4-byte big-endian length, a few per chunk;
    /zero: the same, then a length of 0; /huge: a length of 2^31-1 after 10 packets; /cut: ends in the
    middle of a packet; anything else: 404. Prints "ready".
"""
import http.server
import socket
import struct
import sys
import time

import srtp_pcap


def payloads(capture, rtp_port):
    _, records = srtp_pcap.read(capture)
    found = [(srtp_pcap.udp(frame), frame) for _, _, frame in records]
    return [frame[where[1]:] for where, frame in found if where and where[0] == rtp_port]


def udp_sender(port, packets):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", port))
    print("ready", flush=True)
    data, peer = sock.recvfrom(2048)
    assert data == b"HELLO", data
    sock.setblocking(False)
    beats, last_beat, sent = 0, time.monotonic(), 0

    def listen():
        nonlocal beats, last_beat
        while True:
            try:
                data, _ = sock.recvfrom(2048)
            except BlockingIOError:
                return
            if data == b"BEAT":
                beats += 1
                last_beat = time.monotonic()

    for index, packet in enumerate(packets):
        if index == len(packets) // 3:
            stall_end = time.monotonic() + 2.0
            while time.monotonic() < stall_end:
                time.sleep(0.05)
                listen()
                if time.monotonic() - last_beat > 1.5:
                    print(f"no heartbeat for 1.5 s: giving up; heartbeats {beats} sent {sent}", flush=True)
                    return
        listen()
        if time.monotonic() - last_beat > 1.5:
            print(f"no heartbeat for 1.5 s: giving up; heartbeats {beats} sent {sent}", flush=True)
            return
        sock.sendto(packet, peer)
        sent += 1
        time.sleep(0.001)
    print(f"heartbeats {beats} sent {sent}", flush=True)


def http_sender(port, packets):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def chunk(self, data):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

        def do_GET(self):
            if self.path not in ("/stream", "/zero", "/huge", "/cut"):
                self.send_response(404)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            framed = [struct.pack(">I", len(p)) + p for p in packets]
            if self.path == "/huge":
                framed = framed[:10] + [struct.pack(">I", 0x7FFFFFFF) + b"x" * 100]
            if self.path == "/cut":
                framed = framed[:10] + [framed[10][: len(framed[10]) // 2]]
            if self.path == "/zero":
                framed = framed + [struct.pack(">I", 0)]
            for i in range(0, len(framed), 7):  # chunks that do not follow packet boundaries
                data = b"".join(framed[i:i + 7])
                self.chunk(data[:len(data) // 2])
                self.chunk(data[len(data) // 2:])
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print("ready", flush=True)
    server.serve_forever()


def main():
    mode, port, capture, rtp_port = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
    packets = payloads(capture, rtp_port)
    (udp_sender if mode == "udp" else http_sender)(port, packets)


if __name__ == "__main__":
    main()
