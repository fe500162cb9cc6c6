#!/usr/bin/env bash
# The GStreamer reference for a live RTSP session that a test captured with tshark on loopback: the RTP
# the server interleaved in its TCP connection (server port PORT), rewritten as UDP by
# interleaved_to_udp.py, then decoded by
#   pcapparse ! rtph26Xdepay ! h26Xparse ! avdec_h26X max-threads=1 ! video/x-raw,format=I420 ! checksumsink
# The SDP's sprop-* parameter sets (from the DESCRIBE answer in the capture, read by tshark) go into the RTP
# caps, as rtspsrc would put them, for servers that send them nowhere else.
# Prints one MD5 per frame (of the packed I420 planes), in output order.
# usage: live_reference.sh CAPTURE SERVER_PORT 264|265
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="$1" port="$2" codec="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
editcap -F pcap "$capture" "$work/capture.pcap"
python3 "$here/interleaved_to_udp.py" "$work/capture.pcap" "$port" "$work/udp.pcap" >&2
sprops=$(tshark -r "$work/capture.pcap" -d "tcp.port==$port,rtsp" -Y sdp -T fields -E aggregator=';' \
    -e sdp.fmtp.parameter 2>/dev/null | head -1 | tr ';' '\n' | sed -n 's/^\(sprop-[a-z-]*\)=\(.*\)$/,\1=(string)"\2"/p' |
    tr -d '\n')
gst-launch-1.0 -q filesrc location="$work/udp.pcap" ! pcapparse dst-port=5000 ! \
    "application/x-rtp,media=video,clock-rate=90000,encoding-name=H$codec,payload=96$sprops" ! "rtph${codec}depay" ! \
    "h${codec}parse" ! "avdec_h${codec}" max-threads=1 ! video/x-raw,format=I420 ! checksumsink hash=md5 |
    awk '{print $2}'
