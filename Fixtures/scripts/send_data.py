#!/usr/bin/python3
"""Sends the data tracks of the metadata fixtures to 127.0.0.1:PORT, 10 units a second (RTP timestamps 9000
apart), and prints one line per unit sent: "<bytes> <md5>" (the reference: what the receiver must hand on).

usage: send_data.py klv PORT COUNT           KLV (MISB ST 0601-shaped local sets) through GStreamer's
                                             rtpklvpay (RFC 6597), fed by appsrc with each unit's time
       send_data.py onvif PORT COUNT [gzip]  ONVIF metadata documents (tt:MetadataStream with an event and an
                                             analytics frame), packetized here as ONVIF's streaming
                                             specification says (payload type 107, 90 kHz, marker on each
                                             document's last packet, 1000-byte payloads); with gzip, each
                                             document gzip-compressed (vnd.onvif.metadata.gzip), the line's
                                             bytes and md5 those of the inflated document. Debian's GStreamer
                                             has no ONVIF metadata payloader (rtponvifmetadatapay is in
                                             gst-plugins-rs, not packaged), so this is the sender.
"""
import gzip
import hashlib
import random
import socket
import struct
import sys
import time

SEED = 20261126


def klv_unit(index, rng):
    """A UAS local set (MISB ST 0601's key), BER-long length, tags 2 (time), 13/14 (lat/lon), 65 (version),
    and a varying-length tag 1 (checksum-like filler) so that some units span packets."""
    value = bytes([2, 8]) + struct.pack(">Q", 1_700_000_000_000_000 + index * 100_000)
    value += bytes([13, 4]) + struct.pack(">i", rng.randrange(-2**31, 2**31))
    value += bytes([14, 4]) + struct.pack(">i", rng.randrange(-2**31, 2**31))
    value += bytes([65, 1, 17])
    filler = bytes(rng.randrange(256) for _ in range(rng.choice([10, 200, 1500, 3000])))
    value += bytes([3]) + (bytes([0x82]) + struct.pack(">H", len(filler))) + filler
    key = bytes.fromhex("060E2B34020B01010E01030101000000")
    length = len(value)
    return key + bytes([0x82]) + struct.pack(">H", length) + value


def onvif_document(index, rng):
    """A tt:MetadataStream: one analytics frame with a few objects and one motion event."""
    when = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(1_764_000_000 + index // 10)) + f".{index % 10}00Z"
    objects = "".join(
        f'<tt:Object ObjectId="{n}"><tt:Appearance><tt:Shape><tt:BoundingBox left="{rng.random():.3f}" '
        f'top="{rng.random():.3f}" right="{rng.random():.3f}" bottom="{rng.random():.3f}"/></tt:Shape>'
        f'<tt:Class><tt:Type Likelihood="{rng.random():.2f}">Human</tt:Type></tt:Class></tt:Appearance></tt:Object>'
        for n in range(rng.choice([1, 3, 12, 40])))
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<tt:MetadataStream xmlns:tt="http://www.onvif.org/ver10/schema" '
        'xmlns:wsnt="http://docs.oasis-open.org/wsn/b-2" xmlns:tns1="http://www.onvif.org/ver10/topics">'
        f'<tt:VideoAnalytics><tt:Frame UtcTime="{when}">{objects}</tt:Frame></tt:VideoAnalytics>'
        '<tt:Event><wsnt:NotificationMessage><wsnt:Topic Dialect="http://www.onvif.org/ver10/tev/topicExpression/'
        'ConcreteSet">tns1:RuleEngine/CellMotionDetector/Motion</wsnt:Topic><wsnt:Message>'
        f'<tt:Message UtcTime="{when}"><tt:Source><tt:SimpleItem Name="VideoSourceConfigurationToken" '
        'Value="VideoSourceToken"/></tt:Source><tt:Data><tt:SimpleItem Name="IsMotion" '
        f'Value="{"true" if index % 2 else "false"}"/></tt:Data></tt:Message></wsnt:Message>'
        '</wsnt:NotificationMessage></tt:Event></tt:MetadataStream>').encode()


def line(data):
    print(len(data), hashlib.md5(data).hexdigest(), flush=True)


def send_klv(port, count, rng):
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    pipeline = Gst.parse_launch(
        "appsrc name=source format=time caps=meta/x-klv,parsed=true ! rtpklvpay mtu=1400 pt=98 ! "
        f"udpsink host=127.0.0.1 port={port} sync=true")
    source = pipeline.get_by_name("source")
    pipeline.set_state(Gst.State.PLAYING)
    step = Gst.SECOND // 10
    for index in range(count):
        unit = klv_unit(index, rng)
        buffer = Gst.Buffer.new_wrapped(unit)
        buffer.pts, buffer.duration = index * step, step
        source.emit("push-buffer", buffer)
        line(unit)
    source.emit("end-of-stream")
    pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)


def send_onvif(port, count, rng, compress):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sequence, base, ssrc = rng.getrandbits(16), rng.getrandbits(32), rng.getrandbits(32)
    for index in range(count):
        document = onvif_document(index, rng)
        payload = gzip.compress(document, mtime=0) if compress else document
        timestamp = (base + index * 9000) & 0xFFFFFFFF
        pieces = [payload[i:i + 1000] for i in range(0, len(payload), 1000)]
        for n, piece in enumerate(pieces):
            marker = 0x80 if n == len(pieces) - 1 else 0
            header = struct.pack(">BBHII", 0x80, marker | 107, sequence, timestamp, ssrc)
            sock.sendto(header + piece, ("127.0.0.1", port))
            sequence = (sequence + 1) & 0xFFFF
        line(document)
        time.sleep(0.1)


def main():
    kind, port, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(SEED)
    if kind == "klv":
        send_klv(port, count, rng)
    else:
        send_onvif(port, count, rng, len(sys.argv) > 4 and sys.argv[4] == "gzip")


if __name__ == "__main__":
    main()
