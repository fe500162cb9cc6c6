#!/usr/bin/env python3
"""Writes the hand-made seeds of the fuzz targets into Fuzz/Corpus/<target>/seed-*: the inputs a target's
fuzzing starts from before its corpus grows (Fuzz/run.sh merges what it finds back, minimized).

usage: Fuzz/make_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def write(target, name, data):
    folder = os.path.join(HERE, "Corpus", target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as f:
        f.write(data)


def answer(status_index, headers=b"", body=b""):
    """FuzzRTSPClient opcode 1: an answer to the last request."""
    return bytes([1, status_index, len(headers)]) + headers + bytes([len(body)]) + body


SDP = (b"v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=x\r\nt=0 0\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
       b"a=fmtp:96 packetization-mode=1\r\na=control:track1\r\n")


def rtsp_client():
    play = (answer(0, b"Public: OPTIONS, DESCRIBE, SETUP, PLAY, PAUSE, GET_PARAMETER")
            + answer(0, b"Content-Base: rtsp://cam.example/stream/\r\nContent-Type: application/sdp", SDP)
            + answer(0, b"Session: 1234;timeout=60\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1")
            + answer(0, b"Session: 1234\r\nRTP-Info: url=rtsp://cam.example/stream/track1;seq=1;rtptime=0"))
    # Played, a keepalive after 30 s, paused and resumed, torn down.
    write("FuzzRTSPClient", "play", play + bytes([2, 255, 2, 60]) + answer(0) + bytes([4]) + answer(0)
          + bytes([5]) + answer(0) + bytes([3]) + answer(0))
    # A Digest challenge answered, then a redirect.
    digest = b'WWW-Authenticate: Digest realm="cam", nonce="abc", qop="auth", algorithm=SHA-256'
    write("FuzzRTSPClient", "digest-redirect", answer(3, digest) + answer(0)
          + answer(4, b"Location: rtsp://other.example/x"))
    # Stepwise (first byte 9, an answer too): described, tracks chosen, set up, played; interleaved bytes and
    # a server request.
    write("FuzzRTSPClient", "stepwise", bytes([9]) + answer(0)[1:] + answer(0, b"Content-Type: application/sdp", SDP)
          + bytes([6, 0x01]) + answer(0, b"Session: 99") + bytes([7]) + answer(0, b"Session: 99")
          + bytes([0, 30]) + b"$\x00\x00\x04\x80\x60\x00\x01GET_PARAMETER rtsp://c RTSP/1.0\r\nCSeq: 5")


def rtsp_client_reconnecting():
    """FuzzRTSPClient set up as a reconnecting session's connection (first byte 0xC0 | options): through the
    HTTP tunnel (the GET's answer first), over UDP with six pairs of ports for eight tracks, and a stale
    session torn down first."""
    eight = b"v=0\r\ns=x\r\nt=0 0\r\n" + b"m=audio 0 RTP/AVP 0\r\n" * 8
    tunnel = b"HTTP/1.0 200 OK\r\nContent-Type: application/x-rtsp-tunnelled\r\n\r\n"
    write("FuzzRTSPClient", "tunnel", bytes([0xD0, 0, len(tunnel)]) + tunnel + answer(0)
          + answer(0, b"Content-Type: application/sdp", SDP)
          + answer(0, b"Session: 1\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1") + answer(4, b"Location: rtsp://x/y"))
    setups = b"".join(answer(0, b"Session: 7") for _ in range(6))
    write("FuzzRTSPClient", "udp-eight-tracks", bytes([0xC5, 6]) + answer(0) + answer(0)
          + answer(0, b"Content-Type: application/sdp", eight) + setups + answer(0, b"Session: 7"))
    write("FuzzRTSPClient", "stale-only", bytes([0xCC]) + answer(7) + bytes([2, 200]))


def rtsp_server():
    """FuzzRTSPServer: a flags byte, a chunk-size byte, then a client's requests."""
    base = b"rtsp://127.0.0.1:8554/a"
    requests = (b"OPTIONS * RTSP/1.0\r\nCSeq: 1\r\n\r\n"
                + b"DESCRIBE " + base + b" RTSP/1.0\r\nCSeq: 2\r\nAccept: application/sdp\r\n\r\n"
                + b"SETUP " + base + b"/trackID=0 RTSP/1.0\r\nCSeq: 3\r\nTransport: RTP/AVP/TCP;unicast;interleaved=0-1\r\n\r\n"
                + b"SETUP " + base + b"/trackID=1 RTSP/1.0\r\nCSeq: 4\r\nSession: 1\r\n"
                + b"Transport: RTP/AVP;unicast;client_port=5000-5001\r\n\r\n"
                + b"PLAY " + base + b" RTSP/1.0\r\nCSeq: 5\r\nSession: 1\r\n\r\n"
                + b"$\x01\x00\x08\x81\xc9\x00\x01\x00\x00\x00\x01"
                + b"GET_PARAMETER " + base + b" RTSP/1.0\r\nCSeq: 6\r\nSession: 1\r\n\r\n"
                + b"PAUSE " + base + b" RTSP/1.0\r\nCSeq: 7\r\nSession: 1\r\n\r\n"
                + b"TEARDOWN " + base + b" RTSP/1.0\r\nCSeq: 8\r\nSession: 1\r\n\r\n")
    write("FuzzRTSPServer", "session", bytes([2, 63]) + requests)
    write("FuzzRTSPServer", "authenticated", bytes([1, 255]) + requests)
    write("FuzzRTSPServer", "require", bytes([0, 255]) + b"DESCRIBE " + base
          + b" RTSP/1.0\r\nCSeq: 1\r\nRequire: www.onvif.org/ver20/backchannel\r\n\r\n")


def packetizer():
    """FuzzPacketizer: a choice byte (0 H.264, 1 H.265, 2 JPEG), a payload-size byte, then Annex B or a JPEG file."""
    for choice, name in [(0, "h264-high422-10bit.h264"), (1, "h265-hrd.h265")]:
        with open(os.path.join(ROOT, "Fixtures", "captures", name), "rb") as f:
            stream = f.read()
        write("FuzzPacketizer", name.split(".")[0], bytes([choice, 8]) + stream)
        write("FuzzPacketizer", name.split(".")[0] + "-fragmented", bytes([choice, 0]) + stream)
    slices = b"\x00\x00\x01\x65\x88" + bytes(range(256)) * 4 + b"\x00\x00\x01\x06\x05\x01\x00"
    write("FuzzPacketizer", "idr-and-sei", bytes([0, 40]) + slices)


def pipeline():
    """FuzzPipeline: the RTP payloads of a real capture (GStreamer's H.264, FFmpeg's H.265) as a script on
    streams 0 and 1, cut to 255 bytes, with a reordering, a duplicate and an SSRC change."""
    packets = []
    for name, stream in (("h264-gst.pcap", 0), ("h265-gst-sll.pcap", 1)):
        data = open(os.path.join(ROOT, "Fixtures/captures", name), "rb").read()
        offset, count, last_ts = 24, 0, None
        link = struct.unpack("<I", data[20:24])[0]
        while offset + 16 <= len(data) and count < 40:
            length = struct.unpack("<I", data[offset + 8:offset + 12])[0]
            frame = data[offset + 16:offset + 16 + length]
            offset += 16 + length
            ip = 14 if link == 1 else 16
            rtp = ip + (frame[ip] & 0x0F) * 4 + 8
            if len(frame) < rtp + 12 or frame[rtp + 1] & 0x7F != 96:
                continue
            marker = frame[rtp + 1] & 0x80
            ts = frame[rtp + 4:rtp + 8]
            payload = frame[rtp + 12:rtp + 12 + 255]
            control = marker | (0x20 if ts != last_ts else 0)
            last_ts = ts
            packets.append(bytes([stream | 8, 1, control, len(payload)]) + payload)
            count += 1
    script = b"".join(packets[:10]) + packets[11] + packets[10] + packets[12] + packets[12]
    script += bytes([packets[13][0] | 4]) + packets[13][1:] + b"".join(packets[14:])
    write("FuzzPipeline", "two-codecs", script)


def small_targets():
    write("FuzzRTPPacket", "extension", b"\x90\x60\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03\xbe\xde\x00\x01\x10\xaa\x00\x00\x65")
    write("FuzzH264Depacketizer", "stap-fu", b"\x00\x80\x05\x67\x42\xc0\x1e\xda\x80\x04\x7c\x85\xaa\xbb\x00\x00\x04\x7c\x45\xcc\xdd")
    write("FuzzHEVCDepacketizer", "ap-fu", b"\x00\x80\x04\x40\x01\x0c\x01\x80\x05\x62\x01\x93\xaa\xbb\x00\x04\x62\x01\x53\xcc")
    write("FuzzSPS", "baseline", b"\x00\x67\x42\xc0\x1e\xda\x02\x80\xbf\xe5\x84\x00\x00\x03\x00\x04")
    write("FuzzRTSPFramer", "answer-interleaved",
          b"RTSP/1.0 200 OK\r\nCSeq: 2\r\nTransport: RTP/AVP/TCP;interleaved=0-1\r\nContent-Length: 3\r\n\r\nv=0$\x00\x00\x02\x80\x60")
    write("FuzzSDP", "h264", b"v=0\r\ns=x\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\n"
          b"a=fmtp:96 packetization-mode=1;sprop-parameter-sets=Z0IA,aM4=\r\na=control:trackID=1\r\n")
    write("FuzzWWWAuthenticate", "basic-digest",
          b'Basic realm="cam", Digest realm="cam", qop="auth", algorithm=SHA-256, nonce="abc", stale=true')
    write("FuzzLengthPrefixed", "one", b"\x03\x00\x00\x00\x03\x80\x60\x00\x00\x00\x00\x01\x09")
    write("FuzzRTCP", "rr", b"\x81\xc9\x00\x07" + bytes(range(0, 28)))


def audio_depacketizer():
    """FuzzAudioDepacketizer: the first 30 RTP payloads of audio fixtures as packet scripts (format bytes:
    AAC-hbr, LATM with the fmtp's config, Opus, PCMU), each payload cut to a multiple of 4 bytes."""
    for name, (codec, fields) in {"audio-aac-gst": (0, 0x0C), "audio-aac-ffmpeg": (0, 0x0C),
                                  "audio-latm-gst": (3, 0), "audio-opus-gst": (5, 0), "audio-pcmu-gst": (6, 0)}.items():
        data = open(os.path.join(ROOT, "Fixtures", "captures", name + ".pcap"), "rb").read()
        script, offset, count = bytes([codec, fields]), 24, 0
        while offset + 16 <= len(data) and count < 30:
            length = struct.unpack("<I", data[offset + 8:offset + 12])[0]
            rtp = data[offset + 16 + 42:offset + 16 + length]  # past Ethernet, IPv4 and UDP headers
            offset += 16 + length
            payload = rtp[12:]
            words = min(len(payload) // 4, 255)
            script += bytes([0xA0 if rtp[1] & 0x80 else 0x20, words]) + payload[:words * 4]
            count += 1
        write("FuzzAudioDepacketizer", name, script)


def audio_formats():
    """FuzzAudioDepacketizer with its format from SDP text (`a=` lines, then a zero byte, then the script):
    each audio fixture's rtpmap and fmtp with its first packets, and the hostile formats that once trapped
    the depacketizer (kept as regression seeds): a LATM StreamMuxConfig in band whose other-data length
    escapes past an Int, constantduration=2^62 with two AUs in a packet, a clock of 2^32 - 1 Hz with 32-bit
    index deltas and 60 AU headers."""
    for name in ("audio-aac-gst", "audio-aac-ffmpeg", "audio-latm-gst", "audio-opus-gst", "audio-pcmu-gst",
                 "audio-l16-gst", "audio-g722-gst", "audio-g726-24-ffmpeg", "audio-g726-40-gst"):
        sdp = open(os.path.join(ROOT, "Fixtures", "captures", name + ".sdp"), "rb").read().split(b"\n")
        lines = [l.strip() for l in sdp if l.startswith(b"a=rtpmap") or l.startswith(b"a=fmtp")]
        data = open(os.path.join(ROOT, "Fixtures", "captures", name + ".pcap"), "rb").read()
        script, offset, count = b"\r\n".join(lines) + b"\r\n\x00", 24, 0
        while offset + 16 <= len(data) and count < 12:
            length = struct.unpack("<I", data[offset + 8:offset + 12])[0]
            rtp = data[offset + 16 + 42:offset + 16 + length]
            offset += 16 + length
            words = min(len(rtp[12:]) // 4, 255)
            script += bytes([0xA0 if rtp[1] & 0x80 else 0x20, words]) + rtp[12:12 + words * 4]
            count += 1
        write("FuzzAudioDepacketizer", "sdp-" + name, script)

    def bits(fields):
        value, count = 0, 0
        for field, width in fields:
            value, count = value << width | field, count + width
        value <<= (-count) % 8
        return value.to_bytes((count + 7) // 8, "big")

    # useSameStreamMux 0, then a StreamMuxConfig of AAC LC 48 kHz stereo whose otherDataLenBits is 2^63 - 1.
    mux = [(0, 1), (0, 1), (1, 1), (0, 6), (0, 4), (0, 3), (2, 5), (3, 4), (2, 4), (0, 3), (0, 3), (0xFF, 8), (1, 1)]
    mux += [(1, 1), (0x7F, 8)] + [(1, 1), (0xFF, 8)] * 6 + [(0, 1), (0xFF, 8), (0, 1), (4, 8), (0xDEADBEEF, 32)]
    element = bits(mux)
    element += bytes((-len(element)) % 4)
    write("FuzzAudioDepacketizer", "regression-latm-other-data",
          b"a=rtpmap:96 MP4A-LATM/48000/2\r\n\x00" + bytes([0xA0, len(element) // 4]) + element)
    # Two AUs of 1 byte (AU-headers-length 32: 13-bit size, 3-bit index each), the second two frames on
    # (index delta 1), under constantduration=2^62.
    two = bits([(32, 16), (1, 13), (0, 3), (1, 13), (1, 3)]) + b"\x01\x02"
    two += bytes((-len(two)) % 4)
    write("FuzzAudioDepacketizer", "regression-constant-duration",
          b"a=rtpmap:96 mpeg4-generic/48000/2\r\na=fmtp:96 config=1190;sizelength=13;indexlength=3;"
          b"indexdeltalength=3;constantduration=4611686018427387904\r\n\x00" + bytes([0xA0, len(two) // 4]) + two)
    # 60 AU headers with 32-bit index deltas at a clock of 2^32 - 1 Hz.
    headers = [(60 * 45, 16)] + [(1, 13), (0xFFFFFFFF, 32)] * 60
    many = bits(headers) + bytes(60)
    many += bytes((-len(many)) % 4)
    write("FuzzAudioDepacketizer", "regression-index-deltas",
          b"a=rtpmap:96 mpeg4-generic/4294967295/1\r\na=fmtp:96 config=1188;sizelength=13;indexlength=32;"
          b"indexdeltalength=32\r\n\x00" + bytes([0xA0, len(many) // 4]) + many)


def marker_script(name, units):
    """The packets of a fixture's first `units` marker-ended units as a script of 16-bit-length packets: per
    packet a control byte (0x80 marker, 0x20 a new timestamp), the length, the payload whole."""
    data = open(os.path.join(ROOT, "Fixtures", "captures", name + ".pcap"), "rb").read()
    script, offset, timestamp, done = b"", 24, None, 0
    while offset + 16 <= len(data) and done < units:
        length = struct.unpack("<I", data[offset + 8:offset + 12])[0]
        rtp = data[offset + 16 + 42:offset + 16 + length]  # past Ethernet, IPv4 and UDP headers
        offset += 16 + length
        stamp = struct.unpack(">I", rtp[4:8])[0]
        step = 0x20 if timestamp is not None and stamp != timestamp else 0
        timestamp = stamp
        marker = rtp[1] & 0x80
        script += bytes([(0x80 if marker else 0) | step]) + struct.pack(">H", len(rtp) - 12) + rtp[12:]
        done += 1 if marker else 0
    return script


def jpeg_depacketizer():
    """FuzzJPEGDepacketizer: the packets of the first pictures of the MJPEG fixtures as packet scripts (the
    2560-pixel capture with its size configured)."""
    for name, size, pictures in (("mjpeg-420-gst", 0, 2), ("mjpeg-422-gst", 0, 1), ("mjpeg-restart-gst", 0, 2),
                                 ("mjpeg-ffmpeg", 0, 2), ("mjpeg-q50-gst-rfc-tables", 0, 1),
                                 ("mjpeg-q50-gst-cached-tables", 0, 2), ("mjpeg-2560-gst", (2560, 64), 1)):
        width, height = size or (0, 0)
        write("FuzzJPEGDepacketizer", name, struct.pack(">HHB", width, height, 4) + marker_script(name, pictures))


def data_depacketizer():
    """FuzzDataDepacketizer: the packets of the first units of the data fixtures (KLV raw, ONVIF metadata plain
    and gzip-compressed), and a gzip bomb (a 4 MiB document of one byte, compressed to a few KiB)."""
    for name, kind, units in (("data-klv-gst", 0, 4), ("metadata-onvif", 1, 3), ("metadata-onvif-gzip", 2, 3)):
        write("FuzzDataDepacketizer", name, bytes([kind | 0x50]) + marker_script(name, units))
    import gzip as gz
    bomb = gz.compress(b"A" * (4 << 20), mtime=0)
    script = bytes([2 | 0x50])
    for start in range(0, len(bomb), 1000):
        piece = bomb[start:start + 1000]
        script += bytes([0x80 if start + 1000 >= len(bomb) else 0]) + struct.pack(">H", len(piece)) + piece
    write("FuzzDataDepacketizer", "gzip-bomb", script)


def rtp_packets(name, payload_type, count):
    """The first `count` RTP packets of `payload_type` in a fixture capture (Ethernet or Linux cooked, IPv4)."""
    data = open(os.path.join(ROOT, "Fixtures", "captures", name), "rb").read()
    link = struct.unpack("<I", data[20:24])[0]
    packets, offset = [], 24
    while offset + 16 <= len(data) and len(packets) < count:
        length = struct.unpack("<I", data[offset + 8:offset + 12])[0]
        frame = data[offset + 16:offset + 16 + length]
        offset += 16 + length
        ip = 14 if link == 1 else 16
        rtp = frame[ip + (frame[ip] & 0x0F) * 4 + 8:]
        if len(rtp) >= 12 and rtp[0] >> 6 == 2 and rtp[1] & 0x7F == payload_type:
            packets.append(rtp)
    return packets


def recorder():
    """FuzzRecorder: the first packets of H.264, H.265, MJPEG, AAC and G.711 captures interleaved as one script
    on the target's five tracks, with a sender report on each; one with 500 ms fragments and 1 s segments,
    one with the smallest byte bound."""
    sources = [("h264-gst.pcap", 96, 25), ("h265-gst-sll.pcap", 97, 25), ("mjpeg-420-gst.pcap", 26, 12),
               ("audio-aac-gst.pcap", 96, 20), ("audio-pcmu-gst.pcap", 0, 20)]
    streams = []
    for track, (name, payload_type, count) in enumerate(sources):
        script, last = [], None
        for rtp in rtp_packets(name, payload_type, count):
            stamp = struct.unpack(">I", rtp[4:8])[0]
            ticks = 0 if last is None else min(127, max(0, (stamp - last) // 100))
            last = stamp
            payload = rtp[12:]
            script.append(bytes([track, 1, (rtp[1] & 0x80) | ticks]) + struct.pack(">H", len(payload)) + payload)
        streams.append([bytes([0x80 | track, 0, 0, 7, 0])] + script)
    body = b""
    for i in range(max(len(s) for s in streams)):
        for stream in streams:
            if i < len(stream):
                body += stream[i]
    write("FuzzRecorder", "five-tracks", bytes([49, 50, 0, 255]) + body)
    write("FuzzRecorder", "five-tracks-small-fragments", bytes([0, 0, 1, 0]) + body)


rtsp_client()
rtsp_client_reconnecting()
rtsp_server()
packetizer()
pipeline()
small_targets()
audio_depacketizer()
audio_formats()
jpeg_depacketizer()
data_depacketizer()
recorder()
