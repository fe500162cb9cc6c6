#!/usr/bin/env bash
# Records a large capture of a real sender (GStreamer x264enc ! rtph264pay, 1280x720 at ~20 Mbit/s,
# 2100 frames) on loopback, for the comparison benchmarks. About 170 MB; not committed.
# usage: Benchmarks/make-large-capture.sh [OUT.pcap]   (default Benchmarks/.data/large-h264.pcap; needs root)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/.data/large-h264.pcap}"
mkdir -p "$(dirname "$out")"
bash "$here/../scripts/ensure-packages.sh" tcpdump gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
tcpdump -i lo -U -B 262144 -s 0 -w "$out" "udp port 5010" 2>/dev/null &
pid=$!
sleep 2
# sync=true paces the sender at 30 fps so that the capture loses nothing.
gst-launch-1.0 -q videotestsrc is-live=true num-buffers=2100 horizontal-speed=8 ! \
    video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ! \
    x264enc speed-preset=ultrafast bitrate=20000 key-int-max=60 ! rtph264pay mtu=1400 config-interval=-1 pt=96 ! \
    udpsink host=127.0.0.1 port=5010 sync=true
sleep 1
kill -INT "$pid"
wait "$pid" || true
ls -l "$out"
