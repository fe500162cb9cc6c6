"""WHEP (RFC 9725) from aiortc's side: a peer connection's offer posted to an endpoint, its answer applied; and a
track's decoded frames as the MD5s of packed I420 that `rtpdump decode --md5` and FFmpeg's framemd5 print."""
import asyncio
import hashlib
import urllib.request

from aiortc import RTCSessionDescription


async def connect(pc, url):
    """Makes `pc`'s offer, POSTs it to `url` and applies the answer (an HTTP error raises)."""
    await pc.setLocalDescription(await pc.createOffer())
    request = urllib.request.Request(
        url, data=pc.localDescription.sdp.encode(), headers={"Content-Type": "application/sdp"}, method="POST")
    answer = await asyncio.get_running_loop().run_in_executor(
        None, lambda: urllib.request.urlopen(request, timeout=10).read())
    await pc.setRemoteDescription(RTCSessionDescription(sdp=answer.decode(), type="answer"))


def packed_i420(frame):
    """The frame's Y, U and V planes, each row without the decoder's padding."""
    frame = frame.reformat(format="yuv420p")
    data = bytearray()
    for index, plane in enumerate(frame.planes):
        width = frame.width if index == 0 else frame.width // 2
        height = frame.height if index == 0 else frame.height // 2
        buffer = bytes(plane)
        for row in range(height):
            data += buffer[row * plane.line_size:row * plane.line_size + width]
    return bytes(data)


async def read_digests(track, count, frames, done):
    """Appends (width, height, MD5) of each of `track`'s frames to `frames` until it holds `count`; sets `done`."""
    try:
        while len(frames) < count:
            frame = await track.recv()
            frames.append((frame.width, frame.height, hashlib.md5(packed_i420(frame)).hexdigest()))
    finally:
        done.set()
