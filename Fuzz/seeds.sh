#!/usr/bin/env bash
# Inputs a target reads besides its corpus: the fixture captures, for the targets that read captures.
fixtures="$(dirname "$0")/../Fixtures/captures"
case "$1" in
    FuzzCapture) echo "$fixtures/h264-ffmpeg.pcap $fixtures/h265-ffmpeg-ipv6.pcapng $fixtures/rtsp-h264-udp.pcap" ;;
    FuzzSRTP) echo "$fixtures/h264-srtp.pcap" ;;
esac
