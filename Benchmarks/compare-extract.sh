#!/usr/bin/env bash
# Times `rtpdump extract` against GStreamer's depayloader (pcapparse ! rtph264depay, the pipeline of the
# NAL references) on the same capture, in the same run, and checks that both give the same NAL units.
# usage: Benchmarks/compare-extract.sh [CAPTURE] [PORT]   (default: the large capture, port 5010)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
capture="${1:-$here/.data/large-h264.pcap}"
port="${2:-5010}"
[ -f "$capture" ] || bash "$here/make-large-capture.sh" "$capture"
bash "$here/../scripts/ensure-packages.sh" hyperfine gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
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
caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
gst="gst-launch-1.0 -q filesrc location=$capture ! pcapparse dst-port=$port ! $caps ! rtph264depay ! video/x-h264,stream-format=byte-stream,alignment=nal"
echo "capture: $capture ($(du -h "$capture" | cut -f1))"
"$rtpdump" extract "$capture" --port "$port" -o "$out/ours.h264"
$gst ! filesink location="$out/gst.h264"
python3 "$here/../Fixtures/scripts/nal_digest.py" "$out/ours.h264" h264 | sed 's/^/rtpdump NAL units (parameter sets aside): /'
python3 "$here/../Fixtures/scripts/nal_digest.py" "$out/gst.h264" h264 | sed 's/^/GStreamer NAL units (parameter sets aside): /'
# The table goes to a file and then to stdout: --export-markdown /dev/stdout reopens stdout and truncates a
# log it is redirected to, losing what was printed before.
hyperfine -N --warmup 2 --runs 20 --export-markdown "$out/timings.md" \
    "$rtpdump extract $capture --port $port -o /dev/null" \
    "$gst ! fakesink"
cat "$out/timings.md"
