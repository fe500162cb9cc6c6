#!/usr/bin/python3
"""A real RTSP server (GStreamer's gst-rtsp-server) on loopback, for fixtures and integration tests.

usage: rtsp-server.py PORT [--codec h264|h265] [--frames N]
Serves rtsp://127.0.0.1:PORT/test: a 320x240, 30 fps test pattern encoded live. Run it with Debian's
/usr/bin/python3 (python3-gi and gir1.2-gst-rtsp-server-1.0). It exits after --lifetime seconds.
"""
import argparse

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--codec", choices=["h264", "h265"], default="h264")
    parser.add_argument("--frames", type=int, default=90)
    parser.add_argument("--lifetime", type=int, default=60)
    args = parser.parse_args()
    Gst.init(None)
    encoder = {
        "h264": "x264enc tune=zerolatency key-int-max=30 ! rtph264pay name=pay0 pt=96 mtu=1200 config-interval=-1",
        "h265": "x265enc tune=zerolatency key-int-max=30 ! rtph265pay name=pay0 pt=96 mtu=1200 config-interval=-1",
    }[args.codec]
    launch = (f"( videotestsrc is-live=true num-buffers={args.frames} horizontal-speed=4 ! "
              f"video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! {encoder} )")
    server = GstRtspServer.RTSPServer()
    server.set_address("127.0.0.1")
    server.set_service(str(args.port))
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch)
    factory.set_shared(False)
    server.get_mount_points().add_factory("/test", factory)
    server.attach(None)
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(args.lifetime, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
