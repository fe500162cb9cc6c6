#!/usr/bin/env bash
# Reference outputs of independent tools for the depacketizer tests:
#   expected/<capture>.gst.h264|h265   GStreamer's rtph264depay / rtph265depay output, one NAL per buffer
#                                      in byte-stream form (pcapparse ! rtp*depay ! ...,alignment=nal)
#   expected/<capture>.ffprobe.json    ffprobe's reading of that stream's SPS (size, level, pixel format)
#   work/<capture>-au/                 one file per access unit (alignment=au), input of interleave.py
# usage: gst_references.sh   (from make-fixtures.sh, or alone after it)
source "$(dirname "$0")/common.sh"

# reference CAPTURE PORT CODEC(264|265) PAYLOAD_TYPE
reference() {
    local capture="$1" port="$2" codec="$3" pt="$4"
    depayload "$capture" "$port" "$codec" "$pt" "$expected/$capture.gst.h$codec"
    ffprobe -v error -show_streams -of json "$expected/$capture.gst.h$codec" > "$expected/$capture.ffprobe.json"
    echo "$capture: $(stat -c %s "$expected/$capture.gst.h$codec") bytes of NAL units"
}

reference h264-gst.pcap 5000 264 96
reference h265-gst-sll.pcap 5002 265 97
reference h264-ffmpeg.pcap 5004 264 96
reference h265-ffmpeg-ipv6.pcapng 5006 265 98
udp_port=$(rtsp_udp_port)
reference rtsp-h264-udp.pcap "$udp_port" 264 96

# Interleaved captures (H.264 packetization-mode 2, H.265 with DONL) made from GStreamer's access units.
for spec in h264-gst.pcap:5000:264:96 h265-gst-sll.pcap:5002:265:97; do
    IFS=: read -r capture port codec pt <<< "$spec"
    mkdir -p "$work/$capture-au"
    gst-launch-1.0 -q filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! \
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=H$codec,payload=$pt" ! "rtph${codec}depay" ! \
        "video/x-h${codec},stream-format=byte-stream,alignment=au" ! multifilesink location="$work/$capture-au/%05d.h$codec"
done
python3 "$here/interleave.py" h264 "$work/h264-gst.pcap-au" "$captures/h264-interleaved-mode2.pcap"
python3 "$here/interleave.py" h265 "$work/h265-gst-sll.pcap-au" "$captures/h265-donl.pcap"

# The real camera capture beside the project (not copied into it): only a digest of GStreamer's NAL units.
real="$fixtures/../../shared/fixtures/real/camera-h264-2011.pcap"
if [ -f "$real" ]; then
    gst-launch-1.0 -q filesrc location="$real" ! pcapparse dst-port=53134 ! \
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96" ! rtph264depay ! \
        "video/x-h264,stream-format=byte-stream,alignment=nal" ! filesink location="$work/camera.h264"
    python3 "$here/nal_digest.py" "$work/camera.h264" h264 > "$expected/camera-h264-2011.gst-nals.json"
    cat "$expected/camera-h264-2011.gst-nals.json"
fi
