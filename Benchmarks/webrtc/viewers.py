#!/usr/bin/env python3
"""N WebRTC viewers of one WHEP endpoint in one process (aiortc), each taking every packet of its video (the
frames aiortc decodes are dropped at once), for SECONDS; prints the frames each received.

    viewers.py WHEP_URL N SECONDS
"""
import asyncio
import sys
import urllib.request

from aiortc import RTCPeerConnection, RTCSessionDescription
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

    await pc.setLocalDescription(await pc.createOffer())
    request = urllib.request.Request(
        url, data=pc.localDescription.sdp.encode(), headers={"Content-Type": "application/sdp"}, method="POST")
    answer = await asyncio.get_running_loop().run_in_executor(None, lambda: urllib.request.urlopen(request, timeout=10).read())
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer.decode(), type="answer"))
    await asyncio.sleep(seconds)
    await pc.close()


async def main(url, count, seconds):
    counts = [0] * count
    await asyncio.gather(*(viewer(url, seconds, counts, index) for index in range(count)))
    print(" ".join(str(c) for c in counts))


asyncio.run(main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3])))
