#!/usr/bin/env bash
# Serving a recording to many viewers: `rtpdump serve FILE.mp4` (the library's RTSPServer playing the file to each
# viewer from where it asks) against gst-rtsp-server serving the same file through its ONVIF media factory
# (`rtsp-server.py --file --onvif-replay`: filesrc ! qtdemux ! h264parse ! rtph264pay ! rtponviftimestamp, one
# media a viewer), in the same run. The recording is FFmpeg's: 1280x720 30 fps H.264 at KBIT/S, a keyframe a
# second. Each server gets VIEWERS viewers (`rtpdump streams URL --json` over TCP, 10 started a second); for each it
# prints its CPU over the measured window (after the last viewer joined), per viewer, its resident memory at the
# window's start and end, and what the viewers received. Then, with no viewers, a seek's latency: PLAY with
# `Range: npt=60-` to the first RTP packet (Benchmarks/serve/seek-latency.py), 10 times each, median and worst.
# usage: Benchmarks/serve-recordings.sh [VIEWERS] [SECONDS] [KBIT/S]   (default 50 viewers, 30 s, 4000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
viewers="${1:-50}"
seconds="${2:-30}"
kbps="${3:-4000}"
bash "$root/scripts/ensure-packages.sh" ffmpeg python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad gstreamer1.0-libav
(cd "$root" && swift build -c release --product rtpdump >&2)
rtpdump="$root/.build/release/rtpdump"
out="$(mktemp -d)"
ramp=$(( viewers / 10 + 2 ))
length=$(( ramp + seconds + 70 ))
/usr/bin/ffmpeg -v error -f lavfi -i "testsrc2=size=1280x720:rate=30" -t "$length" -c:v libx264 -preset veryfast \
    -b:v "${kbps}k" -maxrate "${kbps}k" -bufsize "$(( kbps / 2 ))k" -g 30 -pix_fmt yuv420p "$out/recording.mp4"
server=""
trap 'kill $server 2>/dev/null || true' EXIT
echo "recording: $out/recording.mp4 ($length s, 1280x720 30 fps H.264 at $kbps kbit/s); $viewers viewers, $seconds s measured"

source "$here/serve/viewers.sh"

start_server() {
    local name=$1 port=$((20000 + RANDOM % 20000))
    if [ "$name" = rtpdump ]; then
        "$rtpdump" serve "$out/recording.mp4" --port "$port" --tcp-only > "$out/$name.url" 2> "$out/$name.log" &
        server=$!
        for _ in $(seq 100); do [ -s "$out/$name.url" ] && break; sleep 0.1; done
        url=$(head -1 "$out/$name.url")
    else
        /usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$port" --file "$out/recording.mp4" \
            --onvif-replay 3900000000 --protocols tcp --lifetime $(( 4 * length )) > "$out/$name.log" 2>&1 &
        server=$!
        for _ in $(seq 100); do grep -q ready "$out/$name.log" && break; sleep 0.1; done
        url="rtsp://127.0.0.1:$port/test"
    fi
}

stop_server() {
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
    server=""
}

run() {
    local name=$1 url
    start_server "$name"
    measure_viewers "$rtpdump" "$server" "$url" "$viewers" "$seconds" "$out" "$name"
    local seeks=()
    for _ in $(seq 10); do
        seeks+=("$(/usr/bin/python3 "$here/serve/seek-latency.py" "$url" 60 2>/dev/null || echo fail)")
    done
    stop_server
    local seek
    seek=$(python3 -c '
import statistics, sys
times = [float(s) for s in sys.argv[1:] if s != "fail"]
print(f"seek to npt 60: median {statistics.median(times):.1f} ms, worst {max(times):.1f} ms ({len(times)}/10)"
      if times else "seek: no answer")' "${seeks[@]}")
    python3 "$here/serve/summary.py" "$out" "$name" "$viewers" "$seconds" "$cpu_used" "$ticks" "$rss_start" "$rss_end" \
        "$seek"
}

run rtpdump
run gst
