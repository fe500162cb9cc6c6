#!/usr/bin/env python3
"""GStreamer's rtspsrc playing URL, seeking once it plays: prints the SHA-1 of each I420 picture decoded after the
seek (avdec_h264, one thread), one a line, and exits 0 at the stream's end (1 on an error or after 60 s).
A flushing seek to SECONDS (npt, as a player's seek bar gives it): rtspsrc sends PAUSE, then PLAY with a Range
from there. Run with Debian's python3 (python3-gi, GStreamer's introspection data).
usage: gst-seek.py URL SECONDS
"""
import hashlib
import sys

import gi

gi.require_version("Gst", "1.0")
from gi.repository import GLib, Gst  # noqa: E402

Gst.init(None)
url, seconds = sys.argv[1], float(sys.argv[2])
pipeline = Gst.parse_launch(
    f"rtspsrc location={url} protocols=tcp ! rtph264depay ! avdec_h264 max-threads=1 ! videoconvert "
    "! video/x-raw,format=I420 ! appsink name=sink emit-signals=true sync=false")
pictures = []
seeking = False
status = 1


def seek():
    # A flushing seek returns once what came before it is gone: what is kept after it is the seek's.
    pictures.clear()
    if not pipeline.seek_simple(Gst.Format.TIME, Gst.SeekFlags.FLUSH, int(seconds * Gst.SECOND)):
        print("the seek was refused", file=sys.stderr)
        loop.quit()
    pictures.clear()
    return False


def sample(appsink):
    global seeking
    buffer = appsink.emit("pull-sample").get_buffer()
    ok, info = buffer.map(Gst.MapFlags.READ)
    pictures.append(hashlib.sha1(info.data).hexdigest())
    buffer.unmap(info)
    if not seeking:  # it plays: seek, from the main loop
        seeking = True
        GLib.idle_add(seek)
    return Gst.FlowReturn.OK


def message(bus, msg):
    global status
    if msg.type == Gst.MessageType.EOS:
        status = 0
        loop.quit()
    elif msg.type == Gst.MessageType.ERROR:
        print("error:", msg.parse_error(), file=sys.stderr)
        loop.quit()


pipeline.get_by_name("sink").connect("new-sample", sample)
bus = pipeline.get_bus()
bus.add_signal_watch()
bus.connect("message", message)
loop = GLib.MainLoop()
pipeline.set_state(Gst.State.PLAYING)
GLib.timeout_add_seconds(60, loop.quit)
loop.run()
pipeline.set_state(Gst.State.NULL)
print("\n".join(pictures))
sys.exit(status)
