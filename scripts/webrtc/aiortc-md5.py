#!/usr/bin/env python3
"""A second WebRTC stack as the viewer: aiortc posts its offer to a WHEP endpoint, receives the video, decodes it
(PyAV: FFmpeg's libavcodec) and prints the MD5 of each of the first COUNT frames as packed I420, one per line:
`<index> <width>x<height> <md5>`, what `rtpdump decode --md5` and FFmpeg's framemd5 print of the same pictures.

    aiortc-md5.py WHEP_URL COUNT
"""
import asyncio
import sys

from aiortc import RTCPeerConnection

import whep  # scripts/webrtc/whep.py, beside this one


async def main(url, count):
    pc = RTCPeerConnection()
    pc.addTransceiver("video", direction="recvonly")
    frames = []
    done = asyncio.Event()

    @pc.on("track")
    def on_track(track):
        asyncio.ensure_future(whep.read_digests(track, count, frames, done))

    await whep.connect(pc, url)
    try:
        await asyncio.wait_for(done.wait(), 60)
    finally:
        await pc.close()
    for index, (width, height, digest) in enumerate(frames):
        print(f"{index} {width}x{height} {digest}")


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
