#!/usr/bin/env bash
# Serving one camera to many clients: `rtpdump serve URL` (the library's RTSPServer relaying it) against
# gst-rtsp-server relaying the same camera (rtspsrc ! rtph264depay ! h264parse ! rtph264pay, one shared media), in
# the same run. The camera is gst-rtsp-server encoding 1280x720 30 fps H.264 at KBIT/S once (shared). Each relay
# gets CLIENTS viewers (`rtpdump streams URL --json` over TCP, started 10 a second), first alone, then with one
# more client that plays and then reads nothing (Benchmarks/serve/stalled-client.py). For each run it prints the
# relay's CPU over the measured window (after the last client joined), per client, its resident memory at the
# window's start and end, and what the clients received (packets, lost).
# usage: Benchmarks/serve-clients.sh [CLIENTS] [SECONDS] [KBIT/S]   (default 100 clients, 60 s, 4000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
clients="${1:-100}"
seconds="${2:-60}"
kbps="${3:-4000}"
bash "$root/scripts/ensure-packages.sh" python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-plugins-bad gstreamer1.0-libav
(cd "$root" && swift build -c release --product rtpdump >&2)
rtpdump="$root/.build/release/rtpdump"
out="$(mktemp -d)"
ramp=$(( clients / 10 + 2 ))
lifetime=$(( 4 * (ramp + seconds + 20) + 60 ))
camport=$((20000 + RANDOM % 20000))
/usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$camport" --shared --size 1280x720 --bitrate "$kbps" \
    --frames $(( lifetime * 30 )) --lifetime "$lifetime" > "$out/camera.log" 2>&1 &
camera=$!
relay=""
trap 'kill $camera $relay 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q ready "$out/camera.log" && break; sleep 0.1; done
camurl="rtsp://127.0.0.1:$camport/test"
echo "camera: $camurl, 1280x720 30 fps H.264 at $kbps kbit/s; $clients clients per relay, $seconds s measured; logs in $out"

source "$here/serve/viewers.sh"

run() {
    local name=$1 stall=$2 port=$((20000 + RANDOM % 20000)) url
    if [ "$name" = rtpdump ]; then
        "$rtpdump" serve "$camurl" --port "$port" --tcp-only > "$out/$name-$stall.url" 2> "$out/$name-$stall.log" &
        relay=$!
        for _ in $(seq 100); do [ -s "$out/$name-$stall.url" ] && break; sleep 0.1; done
        url=$(head -1 "$out/$name-$stall.url")
    else
        /usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$port" --relay "$camurl" --shared --protocols tcp \
            --lifetime "$lifetime" > "$out/$name-$stall.log" 2>&1 &
        relay=$!
        for _ in $(seq 100); do grep -q ready "$out/$name-$stall.log" && break; sleep 0.1; done
        url="rtsp://127.0.0.1:$port/test"
    fi
    local pids=()
    if [ "$stall" = stalled ]; then
        /usr/bin/python3 "$here/serve/stalled-client.py" "$url" "$(viewing_time "$clients" "$seconds")" > /dev/null 2>&1 &
        pids+=($!)
    fi
    measure_viewers "$rtpdump" "$relay" "$url" "$clients" "$seconds" "$out" "$name-$stall" "${pids[@]}"
    kill "$relay" 2>/dev/null || true
    wait "$relay" 2>/dev/null || true
    relay=""
    python3 "$here/serve/summary.py" "$out" "$name-$stall" "$clients" "$seconds" "$cpu_used" "$ticks" "$rss_start" "$rss_end"
}

run rtpdump alone
run gst alone
run rtpdump stalled
run gst stalled
