#!/usr/bin/env bash
# Per-frame MD5s where the picture must be converted or scaled to I420, from FFmpeg's own path for that
# (libswscale, bilinear): GStreamer's videoconvert uses other arithmetic, so it is not the reference here.
#   expected/<capture>.ffmpeg-i420.md5          frames converted to 8-bit 4:2:0 at their own size
#   expected/h264-ffmpeg.pcap.ffmpeg-160x120.md5  frames scaled to 160x120 (not h264-gst.pcap: its pictures
#     have two slices, and FFmpeg's raw H.264 demuxer then splits them into more "frames" than there are)
# The elementary streams come from GStreamer's depayloaders (the NAL references' pipeline).
# usage: ffmpeg_frame_md5.sh   (from make-fixtures.sh, or alone after it)
source "$(dirname "$0")/common.sh"

# stream CAPTURE PORT CODEC(264|265) PAYLOAD_TYPE OUT
stream() {
    gst-launch-1.0 -q filesrc location="$captures/$1" ! pcapparse dst-port="$2" ! \
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=H$3,payload=$4" ! "rtph$3depay" ! \
        "video/x-h$3,stream-format=byte-stream,alignment=au" ! filesink location="$5"
}

# md5s ES [SCALE_FILTER]
md5s() {
    ffmpeg -hide_banner -loglevel error -i "$1" ${2:+-vf "$2"} -sws_flags bilinear -pix_fmt yuv420p -f framemd5 - |
        grep -v '^#' | awk -F', *' '{print $6}'
}

stream h264-yuv444-ffmpeg.pcap 5008 264 96 "$work/444.h264"
md5s "$work/444.h264" > "$expected/h264-yuv444-ffmpeg.pcap.ffmpeg-i420.md5"
stream h265-10bit-ffmpeg.pcap 5012 265 98 "$work/10bit.h265"
md5s "$work/10bit.h265" > "$expected/h265-10bit-ffmpeg.pcap.ffmpeg-i420.md5"
stream h264-ffmpeg.pcap 5004 264 96 "$work/ffmpeg.h264"
md5s "$work/ffmpeg.h264" "scale=160:120:flags=bilinear" > "$expected/h264-ffmpeg.pcap.ffmpeg-160x120.md5"
wc -l "$expected"/*.ffmpeg-*.md5
