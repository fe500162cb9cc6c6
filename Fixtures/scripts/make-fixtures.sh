#!/usr/bin/env bash
# Regenerates every capture under Fixtures/captures and every expected value under Fixtures/expected.
#
# Captures are made by real senders (GStreamer's rtph264pay/rtph265pay, FFmpeg's RTP muxer) on the
# loopback interface, recorded by tcpdump or dumpcap. Damaged variants are derived from them by
# damage.py with a fixed seed. Expected values come from tshark (`-z rtp,streams`) run on each file.
#
# Needs root (to capture on lo) and: tcpdump tshark gstreamer1.0-tools gstreamer1.0-plugins-{base,good,bad,ugly}
# ffmpeg python3. Run from anywhere: bash Fixtures/scripts/make-fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
mkdir -p "$captures" "$expected"
bash "$fixtures/../scripts/ensure-packages.sh" tcpdump tshark gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly ffmpeg

# capture FILE TOOL FILTER IFACE [EXTRA...] -- SENDER...
# Starts the capture, waits until it is ready, runs the sender, then stops the capture.
capture() {
    local out="$1" tool="$2" filter="$3" iface="$4"
    shift 4
    local extra=()
    while [ "$1" != "--" ]; do extra+=("$1"); shift; done
    shift
    rm -f "$out"
    if [ "$tool" = tcpdump ]; then
        tcpdump -i "$iface" -U -s 0 "${extra[@]}" -w "$out" "$filter" 2>/dev/null &
    else
        dumpcap -q -i "$iface" -s 0 -f "$filter" "${extra[@]}" -w "$out" 2>/dev/null &
    fi
    local pid=$!
    sleep 2
    "$@" >/dev/null 2>&1
    sleep 1
    kill -INT "$pid"
    wait "$pid" || true
    chmod 644 "$out"
}

video="videotestsrc is-live=true num-buffers=90 horizontal-speed=4 ! video/x-raw,format=I420,width=320,height=240,framerate=30/1"

# 1. H.264, GStreamer, IPv4, Ethernet link layer (tcpdump on lo), classic pcap (microseconds).
capture "$captures/h264-gst.pcap" tcpdump "udp port 5000" lo -- \
    gst-launch-1.0 -q $video ! x264enc tune=zerolatency key-int-max=30 ! \
    rtph264pay mtu=700 config-interval=-1 pt=96 ! udpsink host=127.0.0.1 port=5000 sync=true

# 2. H.265, GStreamer, Linux cooked (SLL) link layer, nanosecond pcap.
capture "$captures/h265-gst-sll.pcap" tcpdump "udp port 5002" any -y LINUX_SLL --time-stamp-precision=nano -- \
    gst-launch-1.0 -q $video ! x265enc tune=zerolatency key-int-max=30 ! \
    rtph265pay mtu=700 config-interval=-1 pt=97 ! udpsink host=127.0.0.1 port=5002 sync=true

# 3. H.264 with B-frames, FFmpeg's RTP muxer (RTP on 5004, RTCP sender reports on 5005), IPv4.
capture "$captures/h264-ffmpeg.pcap" tcpdump "udp portrange 5004-5005" lo -- \
    ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc2=size=320x240:rate=25 -t 3 \
    -c:v libx264 -bf 2 -g 25 -pix_fmt yuv420p -payload_type 96 -f rtp "rtp://127.0.0.1:5004?pkt_size=800"

# 4. H.265, FFmpeg's RTP muxer over IPv6, pcapng written by dumpcap.
capture "$captures/h265-ffmpeg-ipv6.pcapng" dumpcap "udp portrange 5006-5007" lo -- \
    ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc2=size=320x240:rate=25 -t 3 \
    -c:v libx265 -x265-params log-level=none -g 25 -pix_fmt yuv420p -payload_type 98 \
    -f rtp "rtp://[::1]:5006?pkt_size=900"

# 7 and 8. Pictures that are not 8-bit 4:2:0, for the decoder's conversion to I420: H.264 4:4:4 and
# 10-bit H.265, FFmpeg's RTP muxer.
capture "$captures/h264-yuv444-ffmpeg.pcap" tcpdump "udp port 5008" lo -- \
    ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc2=size=320x240:rate=25 -t 1 \
    -c:v libx264 -pix_fmt yuv444p -g 25 -payload_type 96 -f rtp "rtp://127.0.0.1:5008?pkt_size=900"
capture "$captures/h265-10bit-ffmpeg.pcap" tcpdump "udp port 5012" lo -- \
    ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc2=size=320x240:rate=25 -t 1 \
    -c:v libx265 -x265-params log-level=none -pix_fmt yuv420p10le -g 25 -payload_type 98 \
    -f rtp "rtp://127.0.0.1:5012?pkt_size=900"

# 5 and 6. RTSP sessions: FFmpeg as the client of a real RTSP server (gst-rtsp-server), RTP interleaved
# in the TCP connection, then RTP over UDP with the control connection in the same capture.
bash "$fixtures/../scripts/ensure-packages.sh" python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-rtsp
/usr/bin/python3 "$here/rtsp-server.py" 8554 --lifetime 40 &
server=$!
sleep 2
capture "$captures/rtsp-h264-tcp.pcap" tcpdump "tcp port 8554" lo -- \
    timeout 20 ffmpeg -hide_banner -loglevel error -rtsp_transport tcp -i rtsp://127.0.0.1:8554/test -c copy -f null -
capture "$captures/rtsp-h264-udp.pcap" tcpdump "tcp port 8554 or udp" lo -- \
    timeout 20 ffmpeg -hide_banner -loglevel error -rtsp_transport udp -i rtsp://127.0.0.1:8554/test -c copy -f null -
kill "$server" 2>/dev/null || true

# Damaged variants of capture 1, made by a seeded script (see damage.py for what each does).
rm -f "$expected/damage.json"
python3 "$here/damage.py" "$captures/h264-gst.pcap" "$captures" "$expected/damage.json"
# and of capture 5: TCP segments out of order and retransmitted.
python3 "$here/damage.py" --tcp "$captures/rtsp-h264-tcp.pcap" "$captures" "$expected/damage.json"
# A camera that starts a new SSRC every 30-odd packets (its reference: the clean capture's frames).
python3 "$here/ssrc_change.py" "$captures/rtsp-h264-udp.pcap" "$captures/rtsp-h264-udp-ssrc-change.pcap" 30
python3 "$here/ssrc_change.py" "$captures/h264-gst.pcap" "$captures/h264-gst-relabelled.pcap" 30 --relabel

# Expected values from tshark for every capture.
python3 "$here/tshark_streams.py" "$captures" "$expected"

# NAL-level references from GStreamer and ffprobe, and the interleaved captures built from them.
rm -f "$expected/interleaved.json"
bash "$here/gst_references.sh"
bash "$here/config_records.sh"

# Per-frame MD5s from GStreamer's avdec decoders.
bash "$fixtures/../scripts/ensure-packages.sh" gstreamer1.0-libav
bash "$here/gst_frame_md5.sh"
bash "$here/ffmpeg_frame_md5.sh"
# SRTP: a real srtpenc capture, its flipped variant, pylibsrtp's decryption decoded by GStreamer.
bash "$here/make-srtp-fixture.sh"
echo "fixtures regenerated in $fixtures"
