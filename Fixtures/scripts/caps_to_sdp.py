#!/usr/bin/env python3
"""Writes the SDP a receiver needs for a GStreamer RTP sender, from the caps `gst-launch-1.0 -v` printed.

usage: caps_to_sdp.py GST_VERBOSE_OUTPUT PORT OUT.sdp

Reads the last `application/x-rtp` caps in the output (the payloader's), and writes one media section:
`m=MEDIA PORT RTP/AVP PT`, `a=rtpmap:PT NAME/RATE[/CHANNELS]`, `a=fmtp:PT` with the caps' format
parameters and `a=x-dimensions:W,H` for the size a JPEG payloader announces (rtpjpegpay, above 2040
pixels), as GStreamer's own RTSP server would describe them.
"""
import re
import sys

# Caps fields that are RTP's, not the format's.
NOT_FMTP = {"media", "clock-rate", "encoding-name", "encoding-params", "payload", "ssrc", "timestamp-offset",
            "seqnum-offset", "a-framerate", "sprop-stereo", "sprop-maxcapturerate", "x-dimensions"}


def main():
    text = open(sys.argv[1]).read()
    caps = re.findall(r"caps = application/x-rtp, ([^\n]*)", text)[-1]
    fields = dict(re.findall(r"([\w-]+)=\(\w+\)(\"[^\"]*\"|[^,]*)", caps))
    fields = {k: v.strip('"') for k, v in fields.items()}
    pt, rate, name = fields["payload"], fields["clock-rate"], fields["encoding-name"]
    channels = fields.get("encoding-params")
    fmtp = ";".join(f"{k}={v}" for k, v in fields.items() if k not in NOT_FMTP)
    lines = ["v=0", "o=- 0 0 IN IP4 127.0.0.1", "s=GStreamer sender", "c=IN IP4 127.0.0.1", "t=0 0",
             f"m={fields.get('media', 'audio')} {sys.argv[2]} RTP/AVP {pt}",
             f"a=rtpmap:{pt} {name}/{rate}" + (f"/{channels}" if channels else "")]
    if fmtp:
        lines.append(f"a=fmtp:{pt} {fmtp}")
    if "x-dimensions" in fields:
        lines.append(f"a=x-dimensions:{fields['x-dimensions'].replace(chr(92), '')}")
    open(sys.argv[3], "w").write("\r\n".join(lines) + "\r\n")


if __name__ == "__main__":
    main()
