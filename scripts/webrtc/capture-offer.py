#!/usr/bin/env python3
"""Writes the SDP offer headless Chromium makes for a receive-only viewer of one video and one audio track (what
a WHEP player posts), to the file named as the first argument. Tests/WebRTCTests/Offers/ holds the result."""
import sys
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    offer = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const pc = new RTCPeerConnection();
        pc.addTransceiver('video', {direction: 'recvonly'});
        pc.addTransceiver('audio', {direction: 'recvonly'});
        pc.createOffer().then(offer => pc.setLocalDescription(offer)).then(() => {
            // Host candidates gathered: the offer as a WHEP player posts it.
            const wait = () => pc.iceGatheringState === 'complete' ? done(pc.localDescription.sdp) : setTimeout(wait, 50);
            wait();
        });
    """)
    version = driver.capabilities.get("browserVersion", "?")
finally:
    driver.quit()
with open(sys.argv[1], "w") as out:
    out.write(offer)
print(f"Chromium {version}: {len(offer)} bytes", file=sys.stderr)
