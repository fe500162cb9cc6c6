#!/usr/bin/env bash
# Regenerates the G.722 and G.726 captures under Fixtures/captures (audio-g72*.pcap, each with its .sdp) and
# their references under Fixtures/expected, from real senders on loopback captured by tcpdump, each also
# writing the code words it sent:
#   audio-g722-gst            GStreamer avenc_g722 ! rtpg722pay (static payload type 9, 16 kHz on an 8000 Hz clock)
#   audio-g726-{16,24,32,40}-gst  GStreamer avenc_g726 ! rtpg726pay with its default force-aal2=true: AAL2's
#                             bit order (libavcodec's g726 encoder writes it) under the names G726-16 ... -40
#   audio-g726-{16,24,32,40}-ffmpeg  FFmpeg's g726le encoder (RFC 3551's order) and RTP muxer, through the
#                             tee muxer (the same code words to a file)
# References (one line: "<samples> <channels> <md5 of the s16le PCM>"):
#   expected/<capture>.sent-pcm.txt    libavcodec's decoding of the code words the sender wrote (FFmpeg's raw
#                                      g722, g726 (AAL2 order) and g726le demuxers): the truth
#   expected/<capture>.gst-depay-pcm.txt  GStreamer's depayloader (pcapparse ! rtpg72Xdepay) decoded by its
#                                      avdec_g722 / avdec_g726, for comparison
# Needs root (to capture on lo), tcpdump, GStreamer (base, good, bad, libav), ffmpeg, python3.
# Run from anywhere: bash Fixtures/scripts/make-g72x-fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
bash "$fixtures/../scripts/ensure-packages.sh" tcpdump gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav ffmpeg
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# capture NAME PORT -- SENDER...: the sender's RTP to PORT, and its verbose output (for the caps).
source "$here/loopback_capture.sh"

# pcm NAME INPUT_ARGS...: "<samples> <channels> <md5>" of libavcodec's s16le decoding.
pcm() {
    local name="$1"
    shift
    ffmpeg -hide_banner -loglevel error "$@" -f s16le -acodec pcm_s16le -y "$work/$name.s16"
    python3 -c "import hashlib,sys; d=open(sys.argv[1],'rb').read(); print(len(d)//2, 1, hashlib.md5(d).hexdigest())" \
        "$work/$name.s16"
}

# gst NAME PORT RATE ENCODER PAYLOADER: two seconds of a live 440 Hz tone, 20 ms a packet.
gst() {
    local name="$1" port="$2"
    capture "$name" "$port" -- gst-launch-1.0 -v audiotestsrc is-live=true wave=sine freq=440 num-buffers=100 \
        samplesperbuffer=$(($3 / 50)) ! "audio/x-raw,rate=$3,channels=1" ! $4 ! tee name=t ! queue ! \
        filesink location="$work/$name.sent" t. ! queue ! $5 ! udpsink host=127.0.0.1 port="$port" sync=true
    python3 "$here/caps_to_sdp.py" "$work/$name.log" "$port" "$captures/$name.sdp"
}

gst audio-g722-gst 5060 16000 avenc_g722 "rtpg722pay pt=9"
pcm audio-g722-gst -f g722 -i "$work/audio-g722-gst.sent" > "$expected/audio-g722-gst.pcap.sent-pcm.txt"
port=5062
for rate in 16 24 32 40; do
    name="audio-g726-$rate-gst"
    gst "$name" "$port" 8000 "avenc_g726 bitrate=${rate}000" "rtpg726pay pt=96"
    pcm "$name" -f g726 -code_size $((rate / 8)) -sample_rate 8000 -i "$work/$name.sent" \
        > "$expected/$name.pcap.sent-pcm.txt"
    name="audio-g726-$rate-ffmpeg"
    capture "$name" $((port + 1)) -- ffmpeg -hide_banner -loglevel error -re -f lavfi \
        -i "sine=frequency=440:sample_rate=8000:duration=2" -c:a g726le -b:a "${rate}k" -map 0:a -f tee \
        "[f=rtp:payload_type=97]rtp://127.0.0.1:$((port + 1))|[f=g726le]$work/$name.sent"
    printf 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=FFmpeg sender\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio %s RTP/AVP 97\r\na=rtpmap:97 G726-%s/8000\r\n' \
        $((port + 1)) "$rate" > "$captures/$name.sdp"
    pcm "$name" -f g726le -code_size $((rate / 8)) -sample_rate 8000 -i "$work/$name.sent" \
        > "$expected/$name.pcap.sent-pcm.txt"
    port=$((port + 2))
done

# GStreamer's depayloaders and decoders on the captures, for comparison.
for sdp in "$captures"/audio-g72*.sdp; do
    name="$(basename "$sdp" .sdp)"
    read -r port caps encoding < <(python3 "$here/sdp_to_caps.py" "$sdp")
    case "$encoding" in G722) chain="rtpg722depay ! avdec_g722" ;; *) chain="rtpg726depay ! avdec_g726" ;; esac
    gst-launch-1.0 -q filesrc location="$captures/$name.pcap" ! pcapparse dst-port="$port" ! "$caps" ! $chain ! \
        audioconvert ! audio/x-raw,format=S16LE ! filesink location="$work/$name.gst.s16"
    python3 -c "import hashlib,sys; d=open(sys.argv[1],'rb').read(); print(len(d)//2, 1, hashlib.md5(d).hexdigest())" \
        "$work/$name.gst.s16" > "$expected/$name.pcap.gst-depay-pcm.txt"
    echo "$name: sent $(cat "$expected/$name.pcap.sent-pcm.txt"); GStreamer $(cat "$expected/$name.pcap.gst-depay-pcm.txt")"
done

# A captured RTSP session with H.264, G.726-32, G.722, an application and an ONVIF metadata track
# (rtsp-server.py --payloads), FFmpeg as the client over TCP. References: the G.726 track as FFmpeg's client
# decoded it while it received those packets (expected/rtsp-payloads-tcp.pcap.ffmpeg-g726-pcm.txt); the video
# as GStreamer decodes the RTP of the capture, rewritten as UDP by interleaved_to_udp.py (.gst-frames.md5):
# FFmpeg's client splits x264's two-slice pictures, and its frames are not the stream's.
bash "$fixtures/../scripts/ensure-packages.sh" python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-rtsp
/usr/bin/python3 "$here/rtsp-server.py" 8556 --payloads --frames 60 --size 160x120 --lifetime 40 > "$work/server.log" 2>&1 &
server=$!
sleep 2
grep -q ready "$work/server.log" || { cat "$work/server.log"; exit 1; }
session="rtsp-payloads-tcp"
capture_on_lo "$captures/$session.pcap" "tcp port 8556" -- timeout 20 ffmpeg -hide_banner -loglevel error \
    -rtsp_transport tcp -i rtsp://127.0.0.1:8556/test -map 0:1 -f s16le "$work/g726.s16" < /dev/null
kill "$server" 2>/dev/null || true
python3 -c "import hashlib,sys; d=open(sys.argv[1],'rb').read(); print(len(d)//2, 1, hashlib.md5(d).hexdigest())" \
    "$work/g726.s16" > "$expected/$session.pcap.ffmpeg-g726-pcm.txt"
python3 "$here/interleaved_to_udp.py" "$captures/$session.pcap" 8556 "$work/session-as-udp.pcap"
gst-launch-1.0 -q filesrc location="$work/session-as-udp.pcap" ! pcapparse dst-port=5000 ! \
    "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" ! rtph264depay ! h264parse ! \
    avdec_h264 max-threads=1 ! video/x-raw,format=I420 ! checksumsink hash=md5 | awk '{print $2}' \
    > "$expected/$session.pcap.gst-frames.md5"
echo "$session: $(wc -l < "$expected/$session.pcap.gst-frames.md5") frames, G.726 $(cat "$expected/$session.pcap.ffmpeg-g726-pcm.txt")"
