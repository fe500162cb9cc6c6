#!/usr/bin/env bash
# References for the MJPEG captures (make-mjpeg-fixtures.sh), each a list of per-frame MD5s of I420 (full
# range, yuvj420p; 4:2:2 converted by libswscale, bilinear, as the library's decoder converts), all decoded
# by libavcodec so that only what the JPEG pictures hold differs between them:
#   expected/<capture>.sent-i420.md5        the pictures the sender wrote (SENT/<name>.mjpeg): the truth
#   expected/<capture>.gst-depay-i420.md5   GStreamer's rtpjpegdepay of the capture (pcapparse), decoded
#   expected/<capture>.ffmpeg-depay-i420.md5 FFmpeg's RTP JPEG demuxer of the capture (replayed over UDP
#                                           by udp_replay.py into `ffmpeg -i CAPTURE.sdp`, which stops when
#                                           no packet came for about 20 s), decoded
# Where a depayloader's list differs from the sender's, the depayloader is wrong on that capture; the
# tests hold the library to the sender's list.
# usage: SENT=DIR mjpeg_references.sh   (from make-mjpeg-fixtures.sh, which keeps the sent pictures)
source "$(dirname "$0")/common.sh"
: "${SENT:?SENT=the folder of the sent pictures (make-mjpeg-fixtures.sh sets it)}"

# md5s INPUT_ARGS...: libavcodec's frames, as full-range I420, one MD5 a line.
md5s() {
    ffmpeg -hide_banner -loglevel error "$@" -sws_flags bilinear -pix_fmt yuvj420p -f framemd5 - |
        grep -v '^#' | awk -F', *' '{print $6}'
}

# reference CAPTURE SENT_NAME
reference() {
    local capture="$1" sdp="$captures/${1%.pcap}.sdp" port caps dimensions
    [ -f "$sdp" ] || sdp="$captures/$2.sdp"
    port=$(awk '/^m=video/ {print $2}' "$sdp")
    dimensions=$(sed -n 's/^a=x-dimensions:\([0-9]*\),\([0-9]*\).*/\1\\,\2/p' "$sdp" | tr -d '\r')
    caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=JPEG,payload=26"
    [ -n "$dimensions" ] && caps="$caps,x-dimensions=(string)\"$dimensions\""
    md5s -f mjpeg -i "$SENT/$2.mjpeg" > "$expected/$capture.sent-i420.md5"
    gst-launch-1.0 -q filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! "$caps" ! rtpjpegdepay ! \
        filesink location="$work/gst.mjpeg"
    md5s -f mjpeg -i "$work/gst.mjpeg" > "$expected/$capture.gst-depay-i420.md5"
    rm -f "$work/ffmpeg.framemd5"
    ffmpeg -hide_banner -loglevel error -y -protocol_whitelist file,udp,rtp -i "$sdp" -sws_flags bilinear \
        -pix_fmt yuvj420p -f framemd5 "$work/ffmpeg.framemd5" 2> "$work/ffmpeg.log" &
    local pid=$!
    sleep 2
    python3 "$here/udp_replay.py" "$captures/$capture" "$port" 4
    # FFmpeg's RTP input ends when no packet came for a while (about 20 s here); then it writes the frames.
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -INT "$pid" 2>/dev/null || true
    wait "$pid" || true
    touch "$work/ffmpeg.framemd5"
    { grep -v '^#' "$work/ffmpeg.framemd5" || true; } | awk -F', *' '{print $6}' > "$expected/$capture.ffmpeg-depay-i420.md5"
    [ -s "$expected/$capture.ffmpeg-depay-i420.md5" ] || echo "$capture: FFmpeg gave no frame: $(sort -u "$work/ffmpeg.log" | head -3)"
    echo "$capture: sent $(wc -l < "$expected/$capture.sent-i420.md5"), GStreamer" \
        "$(wc -l < "$expected/$capture.gst-depay-i420.md5"), FFmpeg $(wc -l < "$expected/$capture.ffmpeg-depay-i420.md5")" \
        "frames; differing from the sent: GStreamer" \
        "$(diff "$expected/$capture.sent-i420.md5" "$expected/$capture.gst-depay-i420.md5" | grep -c '^>' || true)," \
        "FFmpeg $(diff "$expected/$capture.sent-i420.md5" "$expected/$capture.ffmpeg-depay-i420.md5" | grep -c '^>' || true)"
}

for name in mjpeg-420-gst mjpeg-422-gst mjpeg-2560-gst mjpeg-q50-gst mjpeg-restart-gst mjpeg-ffmpeg; do
    reference "$name.pcap" "$name"
done
reference mjpeg-q50-gst-rfc-tables.pcap mjpeg-q50-gst
reference mjpeg-q50-gst-cached-tables.pcap mjpeg-q50-gst
