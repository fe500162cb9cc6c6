#!/usr/bin/env bash
# Recording N live sessions for M minutes, the library against FFmpeg in the same run: N `rtpdump record`
# processes (fragmented MP4 of every track: H.264, G.711, AAC) and N `ffmpeg -rtsp_transport tcp -i URL -c copy
# -f mp4` processes (video and AAC: FFmpeg's MP4 muxer refuses G.711), all at once, from one gst-rtsp-server
# (one shared 1280x720 30 fps H.264 encoding at KBIT/S, G.711 and AAC). Samples every process's resident
# memory; at the end prints each side's CPU seconds per stream (user + system, from /usr/bin/time), the
# memory at minute 2 and at the end, and each file's duration and pictures (ffprobe).
# usage: Benchmarks/record-sessions.sh [SESSIONS] [MINUTES] [KBIT/S]   (default 10 sessions, 30 minutes, 2000)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
sessions="${1:-10}"
minutes="${2:-30}"
kbps="${3:-2000}"
bash "$root/scripts/ensure-packages.sh" python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly gstreamer1.0-libav ffmpeg time
(cd "$root" && swift build -c release --product rtpdump >&2)
rtpdump="$root/.build/release/rtpdump"
seconds=$(python3 -c "print(int($minutes * 60))")
port=$((20000 + RANDOM % 20000))
out="$(mktemp -d)"
/usr/bin/python3 "$root/Fixtures/scripts/rtsp-server.py" "$port" --shared --size 1280x720 --bitrate "$kbps" --audio \
    --frames $(( (seconds + 120) * 30 )) --lifetime $(( seconds + 180 )) > "$out/server.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q ready "$out/server.log" && break; sleep 0.1; done
grep -q ready "$out/server.log" || { cat "$out/server.log" >&2; exit 1; }
url="rtsp://127.0.0.1:$port/test"
aac=$(ffprobe -v error -rtsp_transport tcp -show_entries stream=index,codec_name -of csv=p=0 "$url" | awk -F, '$2=="aac"{print $1}')
echo "server: $url, one shared 1280x720 30 fps H.264 encoding at $kbps kbit/s, G.711, AAC (stream $aac)"
echo "$sessions rtpdump record and $sessions ffmpeg -c copy -f mp4, $minutes minutes, files in $out"
pids=()
for i in $(seq "$sessions"); do
    /usr/bin/time -f "%U %S %M" -o "$out/lib-$i.time" "$rtpdump" record "$url" -o "$out/lib-$i.mp4" \
        --duration "$seconds" > /dev/null 2> "$out/lib-$i.log" &
    pids+=("lib:$!")
    /usr/bin/time -f "%U %S %M" -o "$out/ff-$i.time" ffmpeg -nostdin -v error -rtsp_transport tcp -i "$url" \
        -map 0:v -map "0:$aac" -c copy -t "$seconds" -f mp4 "$out/ff-$i.mp4" 2> "$out/ff-$i.log" &
    pids+=("ff:$!")
    sleep 1  # one pair at a time: gst-rtsp-server's shared media does not survive a storm of SETUPs
done
# Resident memory of each side's processes (the children of /usr/bin/time), every SAMPLE_SECONDS.
rss() {
    local side=$1 total=0 count=0
    for entry in "${pids[@]}"; do
        [ "${entry%%:*}" = "$side" ] || continue
        local child
        child=$(pgrep -P "${entry#*:}" | head -1) || continue
        local kib
        kib=$(awk '/VmRSS/{print $2}' "/proc/$child/status" 2>/dev/null) || continue
        total=$((total + kib)); count=$((count + 1))
    done
    echo "$((count > 0 ? total / count : 0))"
}
start=$(date +%s)
echo "seconds rtpdump_rss_kib ffmpeg_rss_kib (mean per process)"
while [ $(( $(date +%s) - start )) -lt "$seconds" ]; do
    sleep "${SAMPLE_SECONDS:-30}"
    echo "$(( $(date +%s) - start )) $(rss lib) $(rss ff)"
done
for entry in "${pids[@]}"; do wait "${entry#*:}" || true; done
for side in lib ff; do
    cat "$out"/$side-*.time | awk -v side="$side" -v s="$seconds" \
        '{cpu += $1 + $2; rss += $3; n++} END {printf "%s: %d processes, %.1f CPU s per stream (%.2f%% of a core), max RSS %.0f KiB mean\n", side, n, cpu / n, 100 * cpu / n / s, rss / n}'
done
for file in "$out"/*.mp4; do
    echo "$(basename "$file"): $(ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets:format=duration -of csv=p=0 "$file" | tr '\n' ' ')"
done
