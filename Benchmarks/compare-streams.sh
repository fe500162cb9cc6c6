#!/usr/bin/env bash
# Times `rtpdump streams` against `tshark -z rtp,streams` on the same capture, in the same run, and
# checks that both report the same packets and loss.
# usage: Benchmarks/compare-streams.sh [CAPTURE] [PORT]   (default: the large capture, port 5010)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="${1:-$here/.data/large-h264.pcap}"
port="${2:-5010}"
[ -f "$capture" ] || bash "$here/make-large-capture.sh" "$capture"
bash "$here/../scripts/ensure-packages.sh" tshark hyperfine
(cd "$here/.." && swift build -c release --product rtpdump >&2)
rtpdump="$here/../.build/release/rtpdump"
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
echo "capture: $capture ($(du -h "$capture" | cut -f1))"
echo "rtpdump: $("$rtpdump" streams "$capture" --port "$port" | tail -n +2)"
echo "tshark:  $(tshark -r "$capture" -q -d udp.port=="$port",rtp -z rtp,streams 2>/dev/null | sed -n 3p)"
# The table goes to a file and then to stdout: --export-markdown /dev/stdout reopens stdout and truncates a
# log it is redirected to, losing what was printed before.
hyperfine --warmup 1 --runs 5 --export-markdown "$table" \
    "$rtpdump streams $capture --port $port" \
    "tshark -r $capture -q -d udp.port==$port,rtp -z rtp,streams"
cat "$table"
