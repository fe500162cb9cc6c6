#!/usr/bin/env bash
# CPU seconds to receive SECONDS (default 30) of the real RTSP server's 1280x720, 30 fps H.264 stream
# over TCP without decoding:
#   rtpdump extract URL --duration SECONDS -o /dev/null    (RTP → reorder → access units → Annex B)
#   ffmpeg -rtsp_transport tcp -i URL -t SECONDS -c copy -f null -   (RTP → depacketizer → null muxer)
# each in its own session of the same server (gst-rtsp-server, Fixtures/scripts/rtsp-server.py), one
# after the other, in the same run. Prints user+system CPU seconds of each client (GNU time) and what
# each received.
# usage: Benchmarks/compare-rtsp.sh [SECONDS] [KBIT/S]   (default 30 s at 6000 kbit/s, a 720p camera's rate;
#        0 kbit/s leaves the rate to x264, about 2000 for the test pattern)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
seconds="${1:-30}"
kbps="${2:-6000}"
rate=()
[ "$kbps" -gt 0 ] && rate=(--bitrate "$kbps")
bash "$root/scripts/ensure-packages.sh" time ffmpeg python3-gi gir1.2-gst-rtsp-server-1.0 \
    gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
(cd "$root" && swift build -c release --product rtpdump >&2)
rtpdump="$root/.build/release/rtpdump"
port=$((20000 + RANDOM % 20000))
log="$(mktemp)"
/usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$port" --size 1280x720 "${rate[@]}" \
    --frames $(( (seconds + 10) * 30 )) --lifetime $(( seconds * 3 + 60 )) > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 50); do grep -q ready "$log" && break; sleep 0.1; done
url="rtsp://127.0.0.1:$port/test"
echo "server: $url, 1280x720 30 fps H.264 (x264 ultrafast, ${kbps} kbit/s), ${seconds} s per client"
/usr/bin/time -f "rtpdump: %U s user + %S s system CPU, %e s elapsed, %M KiB max resident" \
    "$rtpdump" extract "$url" --duration "$seconds" -o /dev/null
/usr/bin/time -f "ffmpeg:  %U s user + %S s system CPU, %e s elapsed, %M KiB max resident" \
    ffmpeg -hide_banner -loglevel error -stats -rtsp_transport tcp -i "$url" -t "$seconds" -c copy -f null - 2>&1 |
    tr '\r' '\n' | grep -v '^$' | tail -2
