#!/usr/bin/env python3
"""The other stack for Benchmarks/webrtc-viewers.sh: aiortc serving an H.264 file to WHEP viewers as the camera
sent it (MediaPlayer with decode=False, one player shared through a MediaRelay: packetized per viewer, never
re-encoded), as `rtpdump serve FILE --http-port` does. Prints its WHEP URL on the first line.

    aiortc-server.py FILE.ts PORT   (an MPEG-TS of the same stream: looping needs a container that knows its
                                     duration, and aiortc passes on Annex B, not MP4's length-prefixed NAL units)
"""
import asyncio
import sys

from aiortc import RTCPeerConnection, RTCRtpSender, RTCSessionDescription
from aiortc.contrib.media import MediaPlayer, MediaRelay


async def main(path, port):
    player = MediaPlayer(path, loop=True, decode=False)
    relay = MediaRelay()
    peers = set()

    async def answer(offer):
        pc = RTCPeerConnection()
        peers.add(pc)
        # The packets are H.264 as the file has them: the answer must not pick VP8 (aiortc's first choice), so
        # the transceiver the offer's video meets prefers H.264 before the offer is read.
        transceiver = pc.addTransceiver(relay.subscribe(player.video, buffered=False), direction="sendonly")
        transceiver.setCodecPreferences(
            [c for c in RTCRtpSender.getCapabilities("video").codecs if c.mimeType == "video/H264"])
        await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
        await pc.setLocalDescription(await pc.createAnswer())
        return pc.localDescription.sdp

    async def handle(reader, writer):
        try:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode().split("\r\n")
            method = lines[0].split(" ")[0]
            length = next((int(line.split(":", 1)[1]) for line in lines[1:]
                           if line.lower().startswith("content-length:")), 0)
            body = await reader.readexactly(length)
            if method == "POST":
                sdp = (await answer(body.decode())).encode()
                writer.write(b"HTTP/1.1 201 Created\r\nContent-Type: application/sdp\r\nLocation: /whep/1\r\n"
                             + f"Content-Length: {len(sdp)}\r\nConnection: close\r\n\r\n".encode() + sdp)
            else:
                writer.write(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port)
    print(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/whep", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main(sys.argv[1], int(sys.argv[2])))
