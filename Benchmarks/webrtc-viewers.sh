#!/usr/bin/env bash
# The WebRTC bridge's cost per viewer, against another stack serving the same stream in the same run: a 720p
# H.264 file at about 2 Mbit/s (FFmpeg's libx264, made once in /tmp) served to WHEP viewers as it is (never
# re-encoded) by `rtpdump serve --http-port`, then by aiortc (Benchmarks/webrtc/aiortc-server.py, the same
# stream in MPEG-TS); N aiortc viewers (Benchmarks/webrtc/viewers.py, one process) for S seconds. Each server's
# CPU time (utime + stime from /proc) and RSS are read with one viewer, then with N more.
# usage: Benchmarks/webrtc-viewers.sh [N] [SECONDS]   (needs .build/release/rtpdump and .build/webrtc-venv from
# scripts/test)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-4}"
seconds="${2:-10}"
file=/tmp/swift-rtp-720p-2mbit.h264
[ -s "$file" ] || ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 900 -c:v libx264 \
    -profile:v baseline -bf 0 -g 60 -b:v 2M -maxrate 2M -bufsize 2M -pix_fmt yuv420p "$file"
[ -s "${file%.h264}.ts" ] || ffmpeg -v error -y -r 30 -i "$file" -c copy "${file%.h264}.ts"
python=.build/webrtc-venv/bin/python
hz=$(getconf CLK_TCK)

# measure NAME URL_LINE COMMAND...: starts the server, takes its WHEP URL from line URL_LINE of its output.
measure() {
    local name=$1 line=$2
    shift 2
    local out
    out="$(mktemp)"
    "$@" >"$out" 2>/dev/null &
    local server=$!
    sleep 2
    local url
    url="$(sed -n "${line}p" "$out")"
    [ "$name" = rtpdump ] && url="${url}whep"
    ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
    rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
    # A first viewer (rtpdump's source plays once one has joined), then the measured ones beside it.
    "$python" Benchmarks/webrtc/viewers.py "$url" 1 $((seconds * 2 + 5)) >/dev/null &
    local first=$!
    sleep 3
    local t0 r0 t1 r1
    t0=$(ticks); r0=$(rss)
    sleep "$seconds"
    t1=$(ticks); r1=$(rss)
    local frames
    frames=$("$python" Benchmarks/webrtc/viewers.py "$url" "$n" "$seconds" & sleep 2; t2=$(ticks); r2=$(rss); \
        sleep $((seconds - 3)); t3=$(ticks); r3=$(rss); echo "$t2 $t3 $r2 $r3" > "$out.with"; wait)
    local t2 t3 r2 r3
    read -r t2 t3 r2 r3 < "$out.with"
    kill "$server" 2>/dev/null; wait "$first" 2>/dev/null || true
    awk -v name="$name" -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v hz="$hz" -v n="$n" -v s="$seconds" \
        -v r1="$r1" -v r3="$r3" -v frames="$frames" 'BEGIN {
        base = (b - a) / hz / s * 100; with = (d - c) / hz / (s - 3) * 100
        printf "%s, one viewer: %.2f%% of a core, RSS %d KiB\n", name, base, r1
        printf "%s, %d more viewers: %.2f%% of a core, RSS %d KiB: %.3f%% of a core and %d KiB a viewer\n", name, n, with, r3, (with - base) / n, (r3 - r1) / n
        printf "%s, frames each viewer received in %d s: %s\n", name, s, frames
    }'
    rm -f "$out" "$out.with"
}

measure rtpdump 2 .build/release/rtpdump serve "$file" --port 0 --http-port 0 --fps 30 --loop
measure aiortc 1 "$python" Benchmarks/webrtc/aiortc-server.py "${file%.h264}.ts" 0
