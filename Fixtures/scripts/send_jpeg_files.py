#!/usr/bin/python3
"""Sends JPEG files through GStreamer's RTP JPEG payloader, each picture stamped at its place in a 15 fps
stream (multifilesrc and jpegparse give pictures no time, and rtpjpegpay then stamps them all alike).

usage: send_jpeg_files.py PORT FILE.jpg...   (to 127.0.0.1:PORT, rtpjpegpay mtu=1000, paced by udpsink)
"""
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import Gst  # noqa: E402


def main():
    port, files = int(sys.argv[1]), sys.argv[2:]
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "appsrc name=source format=time caps=image/jpeg,framerate=15/1 ! jpegparse ! "
        f"rtpjpegpay mtu=1000 ! udpsink host=127.0.0.1 port={port} sync=true")
    source = pipeline.get_by_name("source")
    pipeline.set_state(Gst.State.PLAYING)
    frame = Gst.SECOND // 15
    for index, path in enumerate(files):
        buffer = Gst.Buffer.new_wrapped(open(path, "rb").read())
        buffer.pts, buffer.duration = index * frame, frame
        source.emit("push-buffer", buffer)
    source.emit("end-of-stream")
    message = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if message is None or message.type == Gst.MessageType.ERROR:
        raise SystemExit(f"the pipeline did not finish: {message.parse_error() if message else 'timeout'}")


if __name__ == "__main__":
    main()
