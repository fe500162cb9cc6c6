#!/usr/bin/env python3
"""A second WebRTC stack as a WHIP endpoint (RFC 9725): aiortc answers the offer POSTed to
http://127.0.0.1:PORT/whip (201, the answer, a Location), receives the publisher's video, decodes it (PyAV:
FFmpeg's libavcodec) and prints the MD5 of each of the first COUNT frames as packed I420, one per line:
`<index> <width>x<height> <md5>`, what `rtpdump decode --md5` prints of the same pictures, once it has them and the
publisher has deleted its session (or 15 s later); then it exits. It prints `ready PORT` first, once it listens
(PORT 0 takes a free one), and the requests it took (`POST`, `DELETE`) on standard error.

    aiortc-whip-endpoint.py PORT COUNT      (run with .build/webrtc-venv/bin/python)
"""
import asyncio
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription
from aiortc.codecs import CODECS
from aiortc.rtcrtpparameters import RTCRtcpFeedback, RTCRtpCodecParameters

import whep  # scripts/webrtc/whep.py, beside this one: packed_i420

# aiortc negotiates Constrained Baseline H.264 only; its decoder (FFmpeg's, through PyAV) takes Main and High too,
# which cameras send: those profiles are added to what it accepts, nothing else changes.
for payload_type, profile in ((121, "4d001f"), (123, "640032")):
    CODECS["video"].append(RTCRtpCodecParameters(
        mimeType="video/H264", clockRate=90000, payloadType=payload_type,
        parameters={"level-asymmetry-allowed": "1", "packetization-mode": "1", "profile-level-id": profile},
        rtcpFeedback=[RTCRtcpFeedback(type="nack"), RTCRtcpFeedback(type="nack", parameter="pli")]))

port, count = int(sys.argv[1]), int(sys.argv[2])
frames = []
done = asyncio.Event()
deleted = asyncio.Event()
connections = []



async def answer(offer):
    connection = RTCPeerConnection()
    connections.append(connection)

    @connection.on("track")
    def on_track(track):
        if track.kind != "video":
            return

        asyncio.ensure_future(whep.read_digests(track, count, frames, done))

    await connection.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    for transceiver in connection.getTransceivers():
        transceiver.direction = "recvonly"
    await connection.setLocalDescription(await connection.createAnswer())
    return connection.localDescription.sdp


async def handle(reader, writer):
    request = (await reader.readline()).decode("latin-1").split()
    headers = {}
    while True:
        line = (await reader.readline()).decode("latin-1").strip()
        if not line:
            break
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    body = await reader.readexactly(int(headers.get("content-length", "0")))
    method = request[0] if request else ""
    print(method, file=sys.stderr, flush=True)
    if method == "POST" and headers.get("content-type") == "application/sdp":
        try:
            sdp = (await answer(body.decode())).encode()
        except Exception as error:  # an offer aiortc cannot answer: said, not left hanging
            reason = f"{error}\n".encode()
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain\r\n"
                         + f"Content-Length: {len(reason)}\r\nConnection: close\r\n\r\n".encode() + reason)
            await writer.drain()
            writer.close()
            return
        writer.write(b"HTTP/1.1 201 Created\r\nContent-Type: application/sdp\r\nLocation: /whip/session\r\n"
                     + f"Content-Length: {len(sdp)}\r\nConnection: close\r\n\r\n".encode() + sdp)
    elif method == "DELETE":
        deleted.set()
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    else:
        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    await writer.drain()
    writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(f"ready {server.sockets[0].getsockname()[1]}", flush=True)
    try:
        await asyncio.wait_for(done.wait(), 60)
        try:
            await asyncio.wait_for(deleted.wait(), 15)
        except asyncio.TimeoutError:
            print("no DELETE came", file=sys.stderr, flush=True)
    finally:
        server.close()
        for connection in connections:
            await connection.close()
    for index, (width, height, digest) in enumerate(frames):
        print(f"{index} {width}x{height} {digest}")


asyncio.run(main())
