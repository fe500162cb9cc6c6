#!/usr/bin/env python3
"""Writes the SDP offer headless Chromium makes for a receive-only viewer of one video and one audio track (what
a WHEP player posts), to the file named as the first argument; with --talk, a viewer that also sends audio (the
player page opened with ?talk). Tests/WebRTCTests/Offers/ holds the results.

    capture-offer.py OUT.sdp [--talk]"""
import sys
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu"]:
    options.add_argument(flag)
talks = "--talk" in sys.argv[2:]
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    offer = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const pc = new RTCPeerConnection();
        pc.addTransceiver('video', {direction: 'recvonly'});
        pc.addTransceiver('audio', {direction: arguments[0] ? 'sendrecv' : 'recvonly'});
        pc.createOffer().then(offer => pc.setLocalDescription(offer)).then(() => {
            // Host candidates gathered: the offer as a WHEP player posts it.
            const wait = () => pc.iceGatheringState === 'complete' ? done(pc.localDescription.sdp) : setTimeout(wait, 50);
            wait();
        });
    """, talks)
    version = driver.capabilities.get("browserVersion", "?")
finally:
    driver.quit()
with open(sys.argv[1], "w") as out:
    out.write(offer)
print(f"Chromium {version}: {len(offer)} bytes", file=sys.stderr)
