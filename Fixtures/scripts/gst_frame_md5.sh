#!/usr/bin/env bash
# Per-frame MD5s of the reference decoder, for the decoder tests:
#   expected/<capture>.gst-frames.md5   one MD5 per decoded frame, in output order, from
#     pcapparse ! rtp*depay ! h26*parse ! avdec_h26* max-threads=1 ! video/x-raw,format=I420 ! checksumsink hash=md5
# (the MD5 of the I420 buffer: packed Y, U, V for these sizes, whose rows need no padding).
# For the real camera capture beside the project: expected/camera-h264-2011.gst-frames.json with the
# frame count and the MD5 of the list (its frames may not be copied here).
# usage: gst_frame_md5.sh   (from make-fixtures.sh, or alone after it)
source "$(dirname "$0")/common.sh"

# frames INPUT PORT CODEC(264|265) PAYLOAD_TYPE
frames() {
    gst-launch-1.0 -q filesrc location="$1" ! pcapparse dst-port="$2" ! \
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=H$3,payload=$4" ! "rtph$3depay" ! "h$3parse" ! \
        "avdec_h$3" max-threads=1 ! video/x-raw,format=I420 ! checksumsink hash=md5 | awk '{print $2}'
}

reference() {
    local capture="$1" input
    input="$(pcapparse_input "$1")"
    frames "$input" "$2" "$3" "$4" > "$expected/$capture.gst-frames.md5"
    echo "$capture: $(wc -l < "$expected/$capture.gst-frames.md5") frames"
}

reference h264-gst.pcap 5000 264 96
reference h265-gst-sll.pcap 5002 265 97
reference h264-ffmpeg.pcap 5004 264 96
reference h265-ffmpeg-ipv6.pcapng 5006 265 98
# The TCP-interleaved session: its RTP rewritten as UDP by an independent script, then the same pipeline.
python3 "$here/interleaved_to_udp.py" "$captures/rtsp-h264-tcp.pcap" 8554 "$work/rtsp-tcp-as-udp.pcap"
frames "$work/rtsp-tcp-as-udp.pcap" 5000 264 96 > "$expected/rtsp-h264-tcp.pcap.gst-frames.md5"
echo "rtsp-h264-tcp.pcap: $(wc -l < "$expected/rtsp-h264-tcp.pcap.gst-frames.md5") frames"
udp_port=$(rtsp_udp_port)
reference rtsp-h264-udp.pcap "$udp_port" 264 96

real="$fixtures/../../shared/fixtures/real/camera-h264-2011.pcap"
if [ -f "$real" ]; then
    frames "$real" 53134 264 96 > "$work/camera.md5"
    python3 -c "import hashlib,json,sys; d=open('$work/camera.md5','rb').read(); print(json.dumps({'frames': d.count(b'\n'), 'md5OfList': hashlib.md5(d).hexdigest()}))" \
        > "$expected/camera-h264-2011.gst-frames.json"
    cat "$expected/camera-h264-2011.gst-frames.json"
fi
