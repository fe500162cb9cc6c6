#!/usr/bin/env python3
"""Writes the SDP offer headless Firefox makes for a receive-only viewer of one video and one audio track (what a
WHEP player posts), to the file named as the first argument; with --talk, a viewer that also sends audio. Firefox is
driven through its own WebDriver BiDi endpoint (no geckodriver): Debian's firefox-esr and python3-websocket.
Tests/WebRTCTests/Offers/ holds the results.

    capture-offer-firefox.py OUT.sdp [--talk]
"""
import json
import socket
import subprocess
import sys
import tempfile
import time

import websocket


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


talks = "--talk" in sys.argv[2:]
port = free_port()
firefox = subprocess.Popen(
    ["firefox-esr", "--headless", "--remote-debugging-port", str(port), "--profile", tempfile.mkdtemp(),
     "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    connection = None
    for _ in range(150):
        try:
            # No Origin header: Firefox refuses a BiDi connection from a web origin it was not told to allow.
            connection = websocket.create_connection(
                f"ws://127.0.0.1:{port}/session", timeout=30, suppress_origin=True)
            break
        except OSError:
            time.sleep(0.2)
    if connection is None:
        sys.exit("Firefox's WebDriver BiDi endpoint did not open")
    sequence = 0

    def command(method, params):
        global sequence
        sequence += 1
        connection.send(json.dumps({"id": sequence, "method": method, "params": params}))
        while True:
            message = json.loads(connection.recv())
            if message.get("id") == sequence:
                if message.get("type") == "error":
                    sys.exit(f"{method}: {message.get('message')}")
                return message["result"]

    session = command("session.new", {"capabilities": {}})
    version = session.get("capabilities", {}).get("browserVersion", "?")
    context = command("browsingContext.getTree", {})["contexts"][0]["context"]
    direction = "sendrecv" if talks else "recvonly"
    result = command("script.evaluate", {
        "expression": f"""(async () => {{
            const pc = new RTCPeerConnection();
            pc.addTransceiver('video', {{direction: 'recvonly'}});
            pc.addTransceiver('audio', {{direction: '{direction}'}});
            await pc.setLocalDescription(await pc.createOffer());
            // Host candidates gathered: the offer as a WHEP player posts it.
            await new Promise(done => {{
                if (pc.iceGatheringState === 'complete') return done();
                pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && done();
                setTimeout(done, 5000);
            }});
            return pc.localDescription.sdp;
        }})()""",
        "target": {"context": context}, "awaitPromise": True})
    offer = result["result"]["value"]
finally:
    firefox.kill()
with open(sys.argv[1], "w") as out:
    out.write(offer)
print(f"Firefox {version}: {len(offer)} bytes", file=sys.stderr)
