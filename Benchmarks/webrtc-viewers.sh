#!/usr/bin/env bash
# The WebRTC bridge's cost per viewer: rtpdump serve of a 720p H.264 file at about 2 Mbit/s (FFmpeg's libx264,
# made once in /tmp), N aiortc viewers (Benchmarks/webrtc/viewers.py, one process) for S seconds; the server's CPU
# time (utime + stime from /proc) and RSS are read before and after, without viewers and with them.
# usage: Benchmarks/webrtc-viewers.sh [N] [SECONDS]   (needs .build/release/rtpdump and .build/webrtc-venv from
# scripts/test)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-4}"
seconds="${2:-10}"
file=/tmp/swift-rtp-720p-2mbit.h264
[ -s "$file" ] || ffmpeg -v error -y -f lavfi -i testsrc2=size=1280x720:rate=30 -frames:v 900 -c:v libx264 \
    -profile:v baseline -bf 0 -g 60 -b:v 2M -maxrate 2M -bufsize 2M -pix_fmt yuv420p "$file"
out="$(mktemp)"
.build/release/rtpdump serve "$file" --port 0 --http-port 0 --fps 30 --loop >"$out" 2>/dev/null &
server=$!
trap 'kill $server 2>/dev/null' EXIT
sleep 1.5
url="$(sed -n 2p "$out")whep"
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
rss() { awk '/VmRSS/ {print $2}' "/proc/$server/status"; }
hz=$(getconf CLK_TCK)
# The source plays only once a viewer has joined: one viewer first, then the measured ones beside it.
.build/webrtc-venv/bin/python Benchmarks/webrtc/viewers.py "$url" 1 $((seconds * 2 + 5)) >/dev/null &
sleep 3
t0=$(ticks); r0=$(rss)
sleep "$seconds"
t1=$(ticks); r1=$(rss)
frames=$(.build/webrtc-venv/bin/python Benchmarks/webrtc/viewers.py "$url" "$n" "$seconds" & sleep 2; t2=$(ticks); r2=$(rss); \
    sleep $((seconds - 3)); t3=$(ticks); r3=$(rss); echo "$t2 $t3 $r2 $r3" > "$out.with"; wait)
read -r t2 t3 r2 r3 < "$out.with"
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v hz="$hz" -v n="$n" -v s="$seconds" -v r0="$r0" -v r1="$r1" -v r3="$r3" -v frames="$frames" 'BEGIN {
    base = (b - a) / hz / s * 100; with = (d - c) / hz / (s - 3) * 100
    printf "one viewer: %.2f%% of a core, RSS %d KiB\n", base, r1
    printf "%d more viewers: %.2f%% of a core, RSS %d KiB: %.3f%% of a core and %d KiB a viewer\n", n, with, r3, (with - base) / n, (r3 - r1) / n
    printf "frames each viewer received in %d s: %s\n", s, frames
}'
