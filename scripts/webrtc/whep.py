"""WHEP (RFC 9725) from aiortc's side: a peer connection's offer posted to an endpoint, its answer applied."""
import asyncio
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
