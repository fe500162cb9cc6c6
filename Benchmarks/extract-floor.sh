#!/usr/bin/env bash
# How far `rtpdump extract` is from the least work any extractor must do on the large capture
# (floor/extract-floor.c: read + start-code scan + one copy per payload, in C, nothing checked), with
# rtpdump's own start-up (`rtpdump extract --help`) and GStreamer's pipeline, all in the same run.
# usage: Benchmarks/extract-floor.sh [CAPTURE] [PORT]   (default: the large capture, port 5010)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="${1:-$here/.data/large-h264.pcap}"
port="${2:-5010}"
[ -f "$capture" ] || bash "$here/make-large-capture.sh" "$capture"
bash "$here/../scripts/ensure-packages.sh" hyperfine gcc gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
(cd "$here/.." && swift build -c release --product rtpdump >&2)
rtpdump="$here/../.build/release/rtpdump"
out="$(mktemp -d)"
trap 'rm -rf "$out" /dev/shm/rtpdump-bench-capture.pcap' EXIT
# Timed from a copy in /dev/shm (tmpfs) when there is room: this VM's page cache drops the 185 MB file within
# seconds, and reads from the disk then made the timings noisy and bimodal (Docs/Performance.md, session 10).
if [ -d /dev/shm ] && [ "$(df -k --output=avail /dev/shm | tail -1)" -gt $(( $(stat -c %s "$capture") / 1024 + 65536 )) ]; then
    cp "$capture" /dev/shm/rtpdump-bench-capture.pcap
    capture=/dev/shm/rtpdump-bench-capture.pcap
fi
gcc -O2 -o "$out/extract-floor" "$here/floor/extract-floor.c"
"$out/extract-floor" "$capture" read
caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
# The table goes to a file and then to stdout: --export-markdown /dev/stdout reopens stdout and truncates a
# log it is redirected to, losing what was printed before.
hyperfine -N --warmup 1 --runs 10 --export-markdown "$out/timings.md" \
    "$out/extract-floor $capture read" \
    "$out/extract-floor $capture mmap" \
    "$rtpdump extract --help" \
    "$rtpdump extract $capture --port $port -o /dev/null" \
    "gst-launch-1.0 -q filesrc location=$capture ! pcapparse dst-port=$port ! $caps ! rtph264depay ! video/x-h264,stream-format=byte-stream,alignment=nal ! fakesink"
cat "$out/timings.md"
