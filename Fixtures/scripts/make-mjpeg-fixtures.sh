#!/usr/bin/env bash
# Regenerates the MJPEG (RFC 2435) captures under Fixtures/captures (mjpeg-*.pcap, each with its .sdp) and
# their references under Fixtures/expected (mjpeg_references.sh).
#
# Real senders on loopback, captured by tcpdump, each also writing the JPEG pictures it sent (the reference:
# the sender's own pictures, decoded by libavcodec):
#   mjpeg-420-gst      GStreamer jpegenc (4:2:0, quality 85) ! rtpjpegpay: Q=255, tables in band
#   mjpeg-422-gst      the same from 4:2:2 pictures (RTP JPEG type 0)
#   mjpeg-2560-gst     2560x64 pictures: wider than the header's 2040, announced by a=x-dimensions
#   mjpeg-restart-gst  cjpeg -restart 1 pictures (a restart marker every MCU row) ! jpegparse ! rtpjpegpay
#                      (send_jpeg_files.py): types 64/65 with the restart marker header
#   mjpeg-q50-gst      jpegenc quality 50, from which jpeg_tables.py derives the Q=50 and cached-Q captures
#   mjpeg-ffmpeg       FFmpeg's mjpeg encoder and RTP muxer (the tee muxer: the same packets to a file)
# Each clean GStreamer capture of 4:2:0 gets a loss and a reordered variant (damage.py --network, seeded).
#
# Needs root (to capture on lo), tcpdump, GStreamer (base, good, bad, python3-gi), ffmpeg, cjpeg, python3.
# Run from anywhere: bash Fixtures/scripts/make-mjpeg-fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
bash "$fixtures/../scripts/ensure-packages.sh" tcpdump gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-bad ffmpeg libjpeg-turbo-progs python3-gi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# capture NAME PORT -- SENDER...: the sender's RTP to PORT, and its verbose output (for the caps).
source "$here/loopback_capture.sh"

# gst NAME PORT RAW_CAPS FRAMES ENCODER: a moving test picture encoded by ENCODER, sent by rtpjpegpay
# (mtu 1000: several fragments a picture) and written, as sent, to $work/NAME.mjpeg.
gst() {
    local name="$1" port="$2"
    capture "$name" "$port" -- gst-launch-1.0 -v videotestsrc is-live=true pattern=smpte horizontal-speed=4 \
        num-buffers="$4" ! "$3" ! $5 ! tee name=t ! queue ! filesink location="$work/$name.mjpeg" \
        t. ! queue ! rtpjpegpay mtu=1000 ! udpsink host=127.0.0.1 port="$port" sync=true
    python3 "$here/caps_to_sdp.py" "$work/$name.log" "$port" "$captures/$name.sdp"
}

gst mjpeg-420-gst 5040 "video/x-raw,format=I420,width=320,height=240,framerate=15/1" 30 "jpegenc quality=85"
gst mjpeg-422-gst 5042 "video/x-raw,format=Y42B,width=320,height=240,framerate=15/1" 20 "jpegenc quality=85"
gst mjpeg-2560-gst 5044 "video/x-raw,format=I420,width=2560,height=64,framerate=15/1" 6 "jpegenc quality=85"
gst mjpeg-q50-gst 5046 "video/x-raw,format=I420,width=320,height=240,framerate=15/1" 20 "jpegenc quality=50"

# Restart markers: libjpeg's cjpeg writes a DRI and a marker every MCU row. send_jpeg_files.py stamps the
# pictures (GStreamer's file sources give them no time) and sends them through jpegparse ! rtpjpegpay.
ffmpeg -hide_banner -loglevel error -f lavfi -i testsrc=size=320x240:rate=15 -frames:v 20 "$work/restart-%03d.ppm"
for ppm in "$work"/restart-*.ppm; do cjpeg -quality 80 -restart 1 "$ppm" > "${ppm%.ppm}.jpg"; done
cat "$work"/restart-*.jpg > "$work/mjpeg-restart-gst.mjpeg"
capture mjpeg-restart-gst 5048 -- /usr/bin/python3 "$here/send_jpeg_files.py" 5048 "$work"/restart-*.jpg
printf 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=GStreamer sender\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video 5048 RTP/AVP 26\r\na=rtpmap:26 JPEG/90000\r\n' \
    > "$captures/mjpeg-restart-gst.sdp"

# FFmpeg: one encoding, written both as RTP and as the JPEG pictures it sent (the tee muxer takes no
# sdp_file: the SDP is the static payload type's, written here).
capture mjpeg-ffmpeg 5050 -- ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc=size=320x240:rate=15 \
    -frames:v 30 -c:v mjpeg -huffman default -pix_fmt yuvj420p -q:v 4 -map 0:v -f tee \
    "[f=rtp]rtp://127.0.0.1:5050|[f=mjpeg]$work/mjpeg-ffmpeg.mjpeg"
printf 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=FFmpeg sender\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=video 5050 RTP/AVP 26\r\n' \
    > "$captures/mjpeg-ffmpeg.sdp"

# The Q 1-99 and cached Q 128-254 forms, which no sender here writes: jpeg_tables.py checks that the in-band
# tables of quality 50 are RFC 2435's (IJG's) Q=50 tables, then drops them (Q=50), or keeps them only in
# the first picture (Q=200, cached).
python3 "$here/jpeg_tables.py" "$captures/mjpeg-q50-gst.pcap" 50 "$captures/mjpeg-q50-gst-rfc-tables.pcap"
python3 "$here/jpeg_tables.py" "$captures/mjpeg-q50-gst.pcap" 200 "$captures/mjpeg-q50-gst-cached-tables.pcap"

python3 "$here/damage.py" --network "$captures/mjpeg-420-gst.pcap" "$captures" "$expected/damage.json"

# The references: the pictures each sender wrote are in $work/NAME.mjpeg.
SENT="$work" bash "$here/mjpeg_references.sh"
