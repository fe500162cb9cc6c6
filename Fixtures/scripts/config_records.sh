#!/usr/bin/env bash
# The references for the avcC / hvcC decoder configuration records (ISO/IEC 14496-15): FFmpeg's MP4 muxer
# given each fixture's stream,
#   ffmpeg -i STREAM.h26x -c copy -f mp4 OUT.mp4
# and the record read back out of OUT.mp4 by mp4_config_record.py, in hex:
#   expected/<capture>.ffmpeg.avcC | .ffmpeg.hvcC
# The streams are GStreamer's depayloading of the captures (expected/<capture>.gst.h26x where there is one,
# else made here the same way), and two short streams made here (captures/*.h26x, two frames each) for
# what the captures lack: HRD parameters in the SPS's VUI (x265), and H.264 High 4:2:2 at 10 bits.
# usage: config_records.sh   (from make-fixtures.sh, or alone after it)
source "$(dirname "$0")/common.sh"

ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=128x96:rate=25 -frames:v 2 -c:v libx265 \
    -x265-params log-level=none:info=0:hrd=1:vbv-maxrate=500:vbv-bufsize=500 "$captures/h265-hrd.h265"
ffmpeg -hide_banner -loglevel error -y -f lavfi -i testsrc2=size=128x96:rate=25 -frames:v 2 -c:v libx264 \
    -x264-params nal-hrd=vbr:vbv-maxrate=500:vbv-bufsize=500 -profile:v high422 -pix_fmt yuv422p10le \
    "$captures/h264-high422-10bit.h264"

# record CAPTURE CODEC(264|265) BOX [PORT PAYLOAD_TYPE]
record() {
    local capture="$1" codec="$2" box="$3" stream="$expected/$1.gst.h$2"
    if [[ "$capture" == *.h26? ]]; then
        stream="$captures/$capture"
    elif [ ! -f "$stream" ]; then
        stream="$work/$capture.h$codec"
        depayload "$capture" "$4" "$codec" "$5" "$stream"
    fi
    ffmpeg -hide_banner -loglevel error -y -i "$stream" -c copy -f mp4 "$work/$capture.mp4"
    python3 "$here/mp4_config_record.py" "$work/$capture.mp4" > "$expected/$capture.ffmpeg.$box"
    echo "$capture: $(cat "$expected/$capture.ffmpeg.$box")"
}

record h264-gst.pcap 264 avcC
record h264-ffmpeg.pcap 264 avcC
record h264-yuv444-ffmpeg.pcap 264 avcC 5008 96
record h265-gst-sll.pcap 265 hvcC
record h265-ffmpeg-ipv6.pcapng 265 hvcC
record h265-10bit-ffmpeg.pcap 265 hvcC 5012 98
record h265-hrd.h265 265 hvcC
record h264-high422-10bit.h264 264 avcC
