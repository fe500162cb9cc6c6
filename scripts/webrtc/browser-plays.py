#!/usr/bin/env python3
"""Opens a WebRTC player page (rtpdump serve --http-port's http://HOST:H/PATH/) in headless Chromium, lets it play for
the seconds given, and prints what the browser's own statistics say it decoded, as one JSON object: for each inbound
track its kind, codec, frames decoded, frame size, packets lost, NACKs and PLIs sent, freezes and audio energy; the
milliseconds from the answer to the first picture painted; and any WHEP error. With a WAV file as well, the
browser's microphone plays it (Chromium's fake capture device, looping), for a page opened with ?talk.

    browser-plays.py URL [SECONDS [MICROPHONE.wav]]
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

url = sys.argv[1]
seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 5
microphone = sys.argv[3] if len(sys.argv) > 3 else None
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(flag)
if microphone:
    for flag in ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                 f"--use-file-for-fake-audio-capture={microphone}"]:
        options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.set_script_timeout(30)
    driver.get(url)
    # The page mutes its video element (browsers autoplay only muted media); the browser renders, and so
    # measures, received audio only for an element that plays it.
    driver.execute_script("const v = document.getElementById('video'); v.muted = false; v.play().catch(() => {});")
    time.sleep(seconds)
    result = driver.execute_async_script("""
        const done = arguments[arguments.length - 1];
        if (!window.pc) { done({error: window.whepError || 'no peer connection'}); return; }
        window.pc.getStats().then(stats => {
            const codecs = {};
            stats.forEach(s => { if (s.type === 'codec') codecs[s.id] = s.mimeType; });
            const tracks = [];
            stats.forEach(s => {
                if (s.type !== 'inbound-rtp') return;
                tracks.push({kind: s.kind, codec: codecs[s.codecId] || null, framesDecoded: s.framesDecoded || 0,
                    frameWidth: s.frameWidth || 0, frameHeight: s.frameHeight || 0, packetsLost: s.packetsLost || 0,
                    packetsReceived: s.packetsReceived || 0, freezeCount: s.freezeCount || 0,
                    totalAudioEnergy: s.totalAudioEnergy || 0, keyFramesDecoded: s.keyFramesDecoded || 0,
                    nackCount: s.nackCount || 0, pliCount: s.pliCount || 0});
            });
            const firstFrameMs = window.firstFrameAt && window.answeredAt ? window.firstFrameAt - window.answeredAt : null;
            done({error: window.whepError || null, state: window.pc.connectionState, tracks: tracks, firstFrameMs: firstFrameMs});
        });
    """)
finally:
    driver.quit()
print(json.dumps(result))
