#!/usr/bin/env python3
"""Answers the SDP offer on standard input as aiortc (a second WebRTC stack) answers a publisher: every section it
takes received (recvonly), its host candidates gathered. Prints the answer. What a WHIP endpoint built on aiortc
would return; Tests/WebRTCTests/Offers/ holds one, with the offer it answered.

    aiortc-answer.py < OFFER.sdp > ANSWER.sdp      (run with .build/webrtc-venv/bin/python)
"""
import asyncio
import sys

from aiortc import RTCPeerConnection, RTCSessionDescription


async def main():
    offer = sys.stdin.read()
    connection = RTCPeerConnection()
    await connection.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
    for transceiver in connection.getTransceivers():
        transceiver.direction = "recvonly"
    await connection.setLocalDescription(await connection.createAnswer())
    sys.stdout.write(connection.localDescription.sdp)
    await connection.close()


asyncio.run(main())
