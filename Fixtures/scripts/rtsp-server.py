#!/usr/bin/python3
"""A real RTSP server (GStreamer's gst-rtsp-server) on loopback, for fixtures and integration tests.

usage: rtsp-server.py PORT [--codec h264|h265] [--frames N] [--size WxH] [--auth basic|digest
                      --user U --password P] [--protocols all|tcp|udp|multicast] [--bitrate KBPS]
                      [--tls-cert CERT.pem --tls-key KEY.pem] [--address A] [--lifetime S]
                      [--rtcp-interval MS] [--capture-time-reports] [--print-first-packets] [--shared]
                      [--audio [--no-video]] [--payloads] [--constant-quantizer]
                      [--file RECORDING.mp4 [--onvif-replay NTP_SECONDS]]
                      [--backchannel PCM_FILE [--backchannel-codec pcmu|aac|opus]]
Serves rtsp://127.0.0.1:PORT/test: a test pattern (320x240 unless --size), 30 fps, encoded live; with
--auth, only to that user. Prints "ready" when it listens. Run it with Debian's /usr/bin/python3
(python3-gi and gir1.2-gst-rtsp-server-1.0). It exits after --lifetime seconds. With --shared, every
client plays one encoding of the pattern (as a camera serves its clients), which is what lets one machine
serve many sessions. With --audio, the media also offers two audio tracks, G.711 µ-law (PCMU) and AAC
(mpeg4-generic), as cameras do; with --no-video as well, only those two. A stream a client did not set up is
dropped at PLAY (drop_what_is_not_set_up). With --file, it serves a recording
instead (an MP4 file's H.264, seekable: PLAY's Range is honoured, as an NVR's); with --onvif-replay as well,
as an ONVIF replay server (RTSPOnvifMediaFactory, which takes `Require: onvif-replay`), each packet stamped
by rtponviftimestamp with the time it was "recorded": the given NTP seconds plus its time in the file.
"""
import argparse
import sys
import warnings

import gi

gi.require_version("Gst", "1.0")
gi.require_version("Gio", "2.0")
gi.require_version("GstRtsp", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import Gio, GLib, Gst, GstRtsp, GstRtspServer  # noqa: E402


# The ONVIF backchannel's RTP caps (what the SDP offers) and the elements that decode it, by codec.
BACKCHANNELS = {
    "pcmu": ("application/x-rtp,media=audio,payload=0,clock-rate=8000,encoding-name=PCMU", "rtppcmudepay ! mulawdec"),
    "aac": ("application/x-rtp,media=audio,payload=96,clock-rate=16000,encoding-name=MPEG4-GENERIC,"
            "encoding-params=(string)1,mode=(string)AAC-hbr,config=(string)1408,sizelength=(string)13,"
            "indexlength=(string)3,indexdeltalength=(string)3,streamtype=(string)5,profile-level-id=(string)1",
            "rtpmp4gdepay ! avdec_aac"),
    "opus": ("application/x-rtp,media=audio,payload=97,clock-rate=48000,encoding-name=OPUS,encoding-params=(string)2",
             "rtpopusdepay ! opusdec"),
}


def keep_backchannel_flowing(factory):
    """gst-rtsp-server adds the appsrc that takes a client's backchannel RTP to the media's pipeline when the
    client sets it up; in about one session of fifteen here it is left in the NULL state, holding every packet
    the client sends (seen with the elements' states and appsrc's current-level-buffers at TEARDOWN). Every
    50 ms, an appsrc left in NULL in a playing pipeline is brought to its parent's state, and said so on
    stderr: what the client sent then flows on as it would have."""
    medias = []
    factory.connect("media-configure", lambda _, media: medias.append(media))

    def check():
        for media in list(medias):
            element = media.get_element()
            pipeline = element.get_parent() if element is not None else None
            if pipeline is None or pipeline.get_state(0)[1] != Gst.State.PLAYING:
                continue
            iterator = pipeline.iterate_recurse()
            while True:
                result, child = iterator.next()
                if result != Gst.IteratorResult.OK:
                    break
                factory_of = child.get_factory()
                if factory_of is not None and factory_of.get_name() == "appsrc" and child.get_state(0)[1] == Gst.State.NULL:
                    print(f"backchannel: {child.get_name()} left in NULL by gst-rtsp-server, set to its parent's state",
                          file=sys.stderr, flush=True)
                    child.sync_state_with_parent()
        return True

    GLib.timeout_add(50, check)


def access_control(server, factory, args):
    """With --auth, only args.user with args.password may play /test, by Basic or by Digest (MD5,
    qop=auth); with --tls-cert, connections are TLS (rtsps://) with that certificate."""
    auth = GstRtspServer.RTSPAuth()
    token = GstRtspServer.RTSPToken()
    token.set_string("media.factory.role", "viewer")
    if args.tls_cert:
        auth.set_tls_certificate(Gio.TlsCertificate.new_from_files(args.tls_cert, args.tls_key))
    if not args.auth:
        auth.set_default_token(token)  # anyone may play
    elif args.auth == "basic":
        auth.add_basic(GstRtspServer.RTSPAuth.make_basic(args.user, args.password), token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.BASIC)
    else:
        auth.add_digest(args.user, args.password, token)
        auth.set_supported_methods(GstRtsp.RTSPAuthMethod.DIGEST)
    server.set_auth(auth)
    permissions = GstRtspServer.RTSPPermissions()
    permissions.add_permission_for_role("viewer", "media.factory.access", True)
    permissions.add_permission_for_role("viewer", "media.factory.construct", True)
    factory.set_permissions(permissions)


def shorten_rtcp_interval(factory, milliseconds):
    """Each media's RTP sessions send RTCP (sender reports) about every `milliseconds` instead of the
    5 s default, so a short stream is sure to carry sender reports before its BYE."""
    def prepared(media):
        for index in range(media.n_streams()):
            session = media.get_stream(index).get_rtpsession()
            session.set_property("rtcp-min-interval", milliseconds * Gst.MSECOND)

    factory.connect("media-configure", lambda _, media: media.connect("prepared", prepared))


def drop_what_is_not_set_up(server):
    """At PLAY, drops the packets of each stream of the media that the session did not set up, where they
    leave rtpbin. gst-rtsp-server (1.22) links a stream's sink only when it is set up, so a stream left out
    pushes into an unlinked pad: its source stops with "not-linked", the error puts the whole media in its
    error state, and the streams that were set up stop too (at once or after a few packets: a client asking
    for the audio of a media with video got G.711 and no AAC in about half of the runs, and once nothing at
    all). A camera sends what was set up and goes on encoding the rest."""
    dropping = {}  # (media, stream index) -> the probe dropping that stream's packets

    def pre_play(_, context):
        media = context.sessmedia.get_media()
        pipeline = media.get_element().get_parent()
        rtpbin = next((e for e in iterate(pipeline) if e.get_factory() and e.get_factory().get_name() == "rtpbin"), None)
        for index in range(media.n_streams() if rtpbin else 0):
            pad = rtpbin.get_static_pad(f"send_rtp_src_{index}")
            key = (media, index)
            if context.sessmedia.get_transport(index) is not None:
                if key in dropping and pad is not None:
                    pad.remove_probe(dropping.pop(key))
            elif key not in dropping and pad is not None:
                dropping[key] = pad.add_probe(Gst.PadProbeType.BUFFER | Gst.PadProbeType.BUFFER_LIST,
                                              lambda *_: Gst.PadProbeReturn.DROP)
        return GstRtsp.RTSPStatusCode.OK

    server.connect("client-connected", lambda _, client: client.connect("pre-play-request", pre_play))


def iterate(bin):
    iterator = bin.iterate_recurse()
    while True:
        result, child = iterator.next()
        if result != Gst.IteratorResult.OK:
            return
        yield child


def capture_time_media():
    """A media type whose sender reports pair an RTP timestamp with the wall-clock time its media was captured
    (rtpbin's rtcp-sync-send-time off). By default they pair it with the time the packet is sent, which
    carries each stream's encoder and queueing delay: on a busy machine the video's reports then move by
    as much as the x264 encoder falls behind (0.5 s once), and the tracks' reports no longer agree."""
    class CaptureTimeMedia(GstRtspServer.RTSPMedia):
        def do_setup_rtpbin(self, rtpbin):
            rtpbin.set_property("rtcp-sync-send-time", False)
            return True

    return CaptureTimeMedia


def print_first_packets(factory):
    """Prints, for each payloader of each media, the running time (ns) and RTP timestamp of its first packet:
    "first pay0 RUNNING_TIME RTP_TIMESTAMP". With capture-time reports, these pairs give any packet's running
    time on the pipeline's one clock, which is what the tracks' sender reports map to wall-clock time."""
    def configure(_, media):
        element = media.get_element()
        index = 0
        while (payloader := element.get_by_name(f"pay{index}")) is not None:
            def first(pad, info, name=f"pay{index}"):
                buffer = info.get_buffer()
                event = pad.get_sticky_event(Gst.EventType.SEGMENT, 0)
                segment = event.parse_segment() if event else None
                running = segment.to_running_time(Gst.Format.TIME, buffer.pts) if segment else buffer.pts
                timestamp = int.from_bytes(buffer.extract_dup(4, 4), "big")
                print(f"first {name} {running} {timestamp}", flush=True)
                return Gst.PadProbeReturn.REMOVE
            payloader.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER, first)
            index += 1

    factory.connect("media-configure", configure)


def feed_metadata(factory, count, name):
    """With --payloads: each media's appsrc `name` gets `count` ONVIF metadata documents, 10 a second, as RTP
    packets packetized as ONVIF's streaming specification says: send_data.py's documents, the first `count` of
    the metadata-onvif fixture's (its sent-units.txt lists them)."""
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    import random
    import send_data

    def configure(_, media):
        source = media.get_element().get_by_name(name)
        rng = random.Random(send_data.SEED)
        _ = (rng.getrandbits(16), rng.getrandbits(32), rng.getrandbits(32))  # as send_data.py draws them first
        state = {"index": 0, "sequence": 0}

        def push():
            if state["index"] == count:
                source.emit("end-of-stream")
                return False
            document = send_data.onvif_document(state["index"], rng)
            pieces = [document[i:i + 1000] for i in range(0, len(document), 1000)]
            for n, piece in enumerate(pieces):
                marker = 0x80 if n == len(pieces) - 1 else 0
                header = bytes([0x80, marker | 107]) + state["sequence"].to_bytes(2, "big") + \
                    (state["index"] * 9000).to_bytes(4, "big") + (0x0DA7A).to_bytes(4, "big")
                source.emit("push-buffer", Gst.Buffer.new_wrapped(header + piece))
                state["sequence"] = (state["sequence"] + 1) & 0xFFFF
            state["index"] += 1
            return True

        GLib.timeout_add(100, push)

    factory.connect("media-configure", configure)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--codec", choices=["h264", "h265", "jpeg"], default="h264",
                        help="jpeg: jpegenc ! rtpjpegpay (Motion JPEG, static payload type 26)")
    parser.add_argument("--frames", type=int, default=90)
    parser.add_argument("--lifetime", type=int, default=60)
    parser.add_argument("--size", default="320x240")
    parser.add_argument("--address", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--bitrate", type=int, help="x264/x265 target in kbit/s (default: the encoder's)")
    parser.add_argument("--tls-cert", help="PEM certificate: serve rtsps:// (with --tls-key)")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    parser.add_argument("--protocols", choices=["all", "tcp", "udp", "multicast"], default="all")
    parser.add_argument("--auth", choices=["basic", "digest"])
    parser.add_argument("--user", default="user")
    parser.add_argument("--password", default="secret")
    parser.add_argument("--rtcp-interval", type=int, help="least milliseconds between RTCP packets (default 5000)")
    parser.add_argument("--shared", action="store_true", help="one media, encoded once, for every client")
    parser.add_argument("--capture-time-reports", action="store_true",
                        help="sender reports give the media's capture time, not its send time (CaptureTimeMedia)")
    parser.add_argument("--print-first-packets", action="store_true",
                        help="print each payloader's first packet's running time and RTP timestamp")
    parser.add_argument("--audio", action="store_true", help="two audio tracks beside the video: PCMU and AAC")
    parser.add_argument("--no-video", action="store_true", help="with --audio: the audio tracks only")
    parser.add_argument("--payloads", action="store_true",
                        help="beside the video: G.726-32 (rtpg726pay force-aal2=false: RFC 3551's bit order), G.722, "
                             "an application track (rtpgstpay's X-GST, which a client hands on raw) and an ONVIF "
                             "metadata track (send_data.py's documents, 10 a second, pushed into an appsrc)")
    parser.add_argument("--constant-quantizer", action="store_true",
                        help="x264 at a constant quantizer: every session gets the same bytes whatever its timing "
                             "(rate control follows the live timestamps, which differ from one session to the next)")
    parser.add_argument("--sdp-parameter-sets-only", action="store_true",
                        help="parameter sets in the SDP (sprop-*) and never in the stream, as many cameras send them")
    parser.add_argument("--file", help="serve this MP4 file's H.264 (seekable) instead of the test pattern")
    parser.add_argument("--relay", metavar="URL",
                        help="serve another RTSP server's H.264 (rtspsrc over TCP, depayloaded and payloaded again), "
                             "shared by every client: what the serving benchmark compares rtpdump serve with")
    parser.add_argument("--backchannel", metavar="PCM_FILE",
                        help="an ONVIF audio backchannel: what a client sends is decoded and written to PCM_FILE as "
                             "it comes")
    parser.add_argument("--backchannel-codec", choices=sorted(BACKCHANNELS), default="pcmu",
                        help="the backchannel's codec: PCMU 8 kHz (decoded to 16-bit samples), AAC-LC 16 kHz mono "
                             "(mpeg4-generic, decoded by avdec_aac to 32-bit float samples) or Opus (decoded by opusdec "
                             "to 16-bit stereo samples at 48 kHz)")
    parser.add_argument("--onvif-replay", type=int, metavar="NTP_SECONDS",
                        help="with --file: an ONVIF replay server; the file starts at this NTP time (seconds since 1900)")
    args = parser.parse_args()
    Gst.init(None)
    rate = f" bitrate={args.bitrate}" if args.bitrate else ""
    if args.constant_quantizer:
        rate += " pass=quant quantizer=25"
    if args.sdp_parameter_sets_only:
        # The encoder writes its parameter sets once, into the caps (avc/hvc1 codec_data); the payloader puts
        # them in the SDP's sprop-* and, with config-interval=0, never into the stream.
        encoder = {
            "h264": f"x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 option-string=repeat-headers=0{rate}"
                    " ! video/x-h264,stream-format=avc ! rtph264pay name=pay0 pt=96 mtu=1200 config-interval=0",
            "h265": f"x265enc tune=zerolatency speed-preset=ultrafast key-int-max=30 option-string=repeat-headers=0{rate}"
                    " ! h265parse ! video/x-h265,stream-format=hvc1 ! rtph265pay name=pay0 pt=96 mtu=1200 config-interval=0",
        }[args.codec]
    else:
        encoder = {
            "h264": f"x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30{rate} ! rtph264pay name=pay0 pt=96 mtu=1200 config-interval=-1",
            "h265": f"x265enc tune=zerolatency speed-preset=ultrafast key-int-max=30{rate} ! rtph265pay name=pay0 pt=96 mtu=1200 config-interval=-1",
            "jpeg": "jpegenc quality=80 ! rtpjpegpay name=pay0 mtu=1200",
        }[args.codec]
    width, height = (int(v) for v in args.size.split("x"))
    video = not (args.audio and args.no_video)
    launch = "( "
    if video:
        launch += (f"videotestsrc is-live=true num-buffers={args.frames} horizontal-speed=4 ! "
                   f"video/x-raw,format=I420,width={width},height={height},framerate=30/1 ! {encoder}")
    if args.audio:
        seconds = args.frames / 30
        first = 1 if video else 0  # payloaders are numbered from pay0
        launch += (f" audiotestsrc is-live=true wave=sine num-buffers={int(seconds * 50)} samplesperbuffer=160 ! "
                   f"audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay name=pay{first} pt=0"
                   f" audiotestsrc is-live=true wave=ticks num-buffers={int(seconds * 48000 / 1024)} samplesperbuffer=1024 ! "
                   f"audio/x-raw,rate=48000,channels=1 ! avenc_aac ! rtpmp4gpay name=pay{first + 1} pt=97")
    if args.payloads:
        seconds = args.frames / 30
        first = (1 if video else 0) + (2 if args.audio else 0)
        launch += (f" audiotestsrc is-live=true wave=sine num-buffers={int(seconds * 50)} samplesperbuffer=160 ! "
                   f"audio/x-raw,rate=8000,channels=1 ! avenc_g726 bitrate=32000 ! "
                   f"rtpg726pay force-aal2=false max-ptime=20000000 name=pay{first} pt=98"
                   f" audiotestsrc is-live=true wave=sine freq=880 num-buffers={int(seconds * 50)} samplesperbuffer=320 ! "
                   f"audio/x-raw,rate=16000,channels=1 ! avenc_g722 ! rtpg722pay name=pay{first + 1} pt=9"
                   f" audiotestsrc is-live=true wave=ticks num-buffers={int(seconds * 10)} samplesperbuffer=800 ! "
                   f"audio/x-raw,rate=8000,channels=1 ! rtpgstpay name=pay{first + 2} pt=99"
                   f" appsrc name=pay{first + 3} is-live=true format=time do-timestamp=true "
                   "caps=application/x-rtp,media=application,clock-rate=90000,encoding-name=VND.ONVIF.METADATA,"
                   "payload=107")
    launch += " )"
    if args.file:
        # Named pay0, the last element: with --onvif-replay the stamper after the payloader.
        stamp = (f"rtph264pay pt=96 mtu=1200 config-interval=-1 ! rtponviftimestamp name=pay0 "
                 f"ntp-offset={args.onvif_replay * Gst.SECOND} cseq=0"
                 if args.onvif_replay else "rtph264pay name=pay0 pt=96 mtu=1200 config-interval=-1")
        launch = f"( filesrc location={args.file} ! qtdemux ! h264parse ! {stamp} )"
    if args.relay:
        launch = (f"( rtspsrc location={args.relay} protocols=tcp latency=0 ! rtph264depay ! h264parse ! "
                  "rtph264pay name=pay0 pt=96 mtu=1400 config-interval=-1 )")
    server = GstRtspServer.RTSPServer()
    if args.backchannel:
        # The backchannel is taken only with `Require: www.onvif.org/ver20/backchannel`; its launch line names
        # the element the client's RTP enters at depay_backchannel.
        server = GstRtspServer.RTSPOnvifServer()
        factory = GstRtspServer.RTSPOnvifMediaFactory()
        factory.set_media_gtype(GstRtspServer.RTSPOnvifMedia.__gtype__)
        # filesink writes each buffer as it comes (buffer-mode=unbuffered), not when the media is unprepared.
        caps, decode = BACKCHANNELS[args.backchannel_codec]
        factory.set_backchannel_launch(
            f'( capsfilter caps="{caps}" name=depay_backchannel ! {decode} ! '
            f'filesink location={args.backchannel} async=false buffer-mode=unbuffered )')
        keep_backchannel_flowing(factory)
    elif args.onvif_replay:
        server = GstRtspServer.RTSPOnvifServer()
        factory = GstRtspServer.RTSPOnvifMediaFactory()
        factory.set_media_gtype(GstRtspServer.RTSPOnvifMedia.__gtype__)  # the ONVIF factory makes no other media
        factory.set_replay_support(True)
    else:
        factory = GstRtspServer.RTSPMediaFactory()
        if args.capture_time_reports:
            # PyGObject warns, registering the subclass, that it cannot wrap one of RTSPMedia's signals (unused here).
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                factory.set_media_gtype(capture_time_media().__gtype__)
    server.set_address(args.address)
    server.set_service(str(args.port))
    factory.set_launch(launch)
    factory.set_shared(args.shared)
    if args.protocols != "all":  # the other lower transports are answered with 461 Unsupported Transport
        factory.set_protocols({"tcp": GstRtsp.RTSPLowerTrans.TCP, "udp": GstRtsp.RTSPLowerTrans.UDP,
                               "multicast": GstRtsp.RTSPLowerTrans.UDP_MCAST}[args.protocols])
    if args.protocols in ("all", "multicast"):  # groups and ports the server hands to multicast clients
        pool = GstRtspServer.RTSPAddressPool()
        pool.add_range("239.255.42.0", "239.255.42.255", 46000 + args.port % 1000 * 10, 46009 + args.port % 1000 * 10, 1)
        factory.set_address_pool(pool)
    if args.rtcp_interval:
        shorten_rtcp_interval(factory, args.rtcp_interval)
    drop_what_is_not_set_up(server)
    if args.print_first_packets:
        print_first_packets(factory)
    if args.payloads:
        feed_metadata(factory, int(args.frames / 3), f"pay{(1 if video else 0) + (2 if args.audio else 0) + 3}")
    if args.auth or args.tls_cert:
        access_control(server, factory, args)
    server.get_mount_points().add_factory("/test", factory)
    # attach() is 0 when the port cannot be bound (taken, often by a client's ephemeral port): say so, so
    # that the test picks another port, rather than "ready" for a server that does not listen.
    if server.attach(None) == 0:
        print(f"port {args.port} is taken", flush=True)
        sys.exit(1)
    print("ready", flush=True)
    loop = GLib.MainLoop()
    GLib.timeout_add_seconds(args.lifetime, loop.quit)
    loop.run()


if __name__ == "__main__":
    main()
