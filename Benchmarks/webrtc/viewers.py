#!/usr/bin/env python3
"""N WebRTC viewers of one WHEP endpoint in one process (aiortc), each taking every packet of its video (the
frames aiortc decodes are dropped at once), for SECONDS; prints the frames each received.

    viewers.py WHEP_URL N SECONDS
"""
import asyncio
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../scripts/webrtc"))
import whep  # noqa: E402  (scripts/webrtc/whep.py)

from aiortc import RTCPeerConnection
from aiortc.mediastreams import MediaStreamError


async def viewer(url, seconds, counts, index):
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")

    @pc.on("track")
    def on_track(track):
        async def read():
            try:
                while True:
                    await track.recv()
                    counts[index] += 1
            except MediaStreamError:
                pass  # the connection closed

        asyncio.ensure_future(read())

    await whep.connect(pc, url)
    await asyncio.sleep(seconds)
    await pc.close()


async def main(url, count, seconds):
    counts = [0] * count
    await asyncio.gather(*(viewer(url, seconds, counts, index) for index in range(count)))
    print(" ".join(str(c) for c in counts))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
