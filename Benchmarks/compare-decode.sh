#!/usr/bin/env bash
# Times `rtpdump decode` (capture -> reorder -> depacketize -> libavcodec -> I420 frames) against
# `ffmpeg -threads 1 -i ES -f null -` on the same stream's elementary stream, in the same run. ffmpeg
# starts from the already extracted .h264, so it does less work than rtpdump; both decode with libavcodec
# on one thread. Also checks that both give the same number of frames.
# usage: Benchmarks/compare-decode.sh [CAPTURE] [PORT]   (default: the large capture, port 5010)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="${1:-$here/.data/large-h264.pcap}"
port="${2:-5010}"
[ -f "$capture" ] || bash "$here/make-large-capture.sh" "$capture"
bash "$here/../scripts/ensure-packages.sh" hyperfine ffmpeg
(cd "$here/.." && swift build -c release --product rtpdump >&2)
rtpdump="$here/../.build/release/rtpdump"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$rtpdump" extract "$capture" --port "$port" -o "$out/stream.h264" 2>/dev/null
echo "rtpdump frames: $("$rtpdump" decode "$capture" --port "$port" --md5 2>/dev/null | wc -l)"
echo "ffmpeg frames:  $(ffmpeg -hide_banner -threads 1 -i "$out/stream.h264" -f framemd5 - 2>/dev/null | grep -vc '^#')"
# The table goes to a file and then to stdout: --export-markdown /dev/stdout reopens stdout and truncates a
# log it is redirected to, losing what was printed before.
hyperfine --warmup 1 --runs 3 --export-markdown "$out/timings.md" \
    "$rtpdump decode $capture --port $port --threads 1" \
    "ffmpeg -hide_banner -loglevel error -threads 1 -i $out/stream.h264 -f null -"
cat "$out/timings.md"
