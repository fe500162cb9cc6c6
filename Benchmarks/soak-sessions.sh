#!/usr/bin/env bash
# Resident memory of N live sessions played for M minutes through the library's API (RTSPSession.connect →
# accessUnits(), units counted and dropped): the real RTSP server (gst-rtsp-server, one shared 1280x720
# 30 fps H.264 encoding for every client) on loopback, and Benchmarks' soak-sessions client sampling its
# own RSS. Prints one line per sample ("<seconds> <RSS KiB> <access units> <bytes> <sessions playing>")
# and a summary: RSS at minute 2 and at the end, growth between them, KiB per session.
# usage: Benchmarks/soak-sessions.sh [SESSIONS] [MINUTES] [KBIT/S] [tcp|udp] [audio]   (default 20
#        sessions, 30 minutes, 2000 kbit/s, tcp; with "audio", the server adds G.711 and AAC tracks and the
#        sessions play every track through media())
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
sessions="${1:-20}"
minutes="${2:-30}"
kbps="${3:-2000}"
transport="${4:-tcp}"
audio="${5:-}"
bash "$root/scripts/ensure-packages.sh" python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-libav
(cd "$here" && swift build -c release --product soak-sessions >&2)
port=$((20000 + RANDOM % 20000))
log="$(mktemp)"
seconds=$(python3 -c "print(int($minutes * 60))")
/usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$port" --shared --size 1280x720 --bitrate "$kbps" \
    --frames $(( (seconds + 120) * 30 )) --lifetime $(( seconds + 180 )) ${audio:+--audio} > "$log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 100); do grep -q ready "$log" && break; sleep 0.1; done
grep -q ready "$log" || { cat "$log" >&2; exit 1; }
echo "server: rtsp://127.0.0.1:$port/test, one shared 1280x720 30 fps H.264 encoding at $kbps kbit/s"
echo "$sessions sessions over $transport for $minutes minutes"
"$here/.build/release/soak-sessions" "rtsp://127.0.0.1:$port/test" --sessions "$sessions" --minutes "$minutes" \
    --sample-seconds "${SAMPLE_SECONDS:-30}" --transport "$transport" ${audio:+--audio}
