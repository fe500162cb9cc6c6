#!/usr/bin/env bash
# Regenerates the audio captures under Fixtures/captures (audio-*.pcap, each with its .sdp) and their
# references under Fixtures/expected (gst_audio_references.sh).
#
# Real senders on loopback, captured by tcpdump: GStreamer's rtppcmupay, rtppcmapay, rtpL16pay,
# rtpmp4gpay (AAC, mpeg4-generic), rtpmp4apay (AAC, MP4A-LATM) and rtpopuspay; FFmpeg's RTP muxer for AAC
# and Opus. Each clean capture gets a loss and a reordered variant (damage.py --network, seeded).
#
# Needs root (to capture on lo), tcpdump, GStreamer (base, good, bad, libav plugins), ffmpeg, python3.
# Run from anywhere: bash Fixtures/scripts/make-audio-fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
bash "$fixtures/../scripts/ensure-packages.sh" tcpdump gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav ffmpeg
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# capture NAME PORT -- SENDER...: the sender's RTP to PORT, and its verbose output (for the caps).
source "$here/loopback_capture.sh"

# gst NAME PORT SOURCE_CAPS ENCODER PAYLOADER: two seconds of a live test tone through GStreamer's payloader.
gst() {
    local name="$1" port="$2"
    capture "$name" "$port" -- gst-launch-1.0 -v audiotestsrc is-live=true wave=sine freq=440 num-buffers=100 \
        samplesperbuffer="$6" ! "$3" ! $4 ! $5 ! udpsink host=127.0.0.1 port="$port" sync=true
    python3 "$here/caps_to_sdp.py" "$work/$name.log" "$port" "$captures/$name.sdp"
}

gst audio-pcmu-gst 5020 "audio/x-raw,rate=8000,channels=1" mulawenc "rtppcmupay pt=0" 160
gst audio-pcma-gst 5022 "audio/x-raw,rate=8000,channels=1" alawenc "rtppcmapay pt=8" 160
gst audio-l16-gst 5024 "audio/x-raw,format=S16BE,rate=16000,channels=2" identity "rtpL16pay pt=96" 320
gst audio-aac-gst 5026 "audio/x-raw,rate=48000,channels=2" "avenc_aac bitrate=96000" "rtpmp4gpay pt=97" 960
gst audio-latm-gst 5028 "audio/x-raw,rate=44100,channels=1" "avenc_aac bitrate=64000" "rtpmp4apay pt=98" 882
gst audio-opus-gst 5030 "audio/x-raw,rate=48000,channels=2" opusenc "rtpopuspay pt=99" 960

# FFmpeg's RTP muxer: AAC as mpeg4-generic with several access units per packet, and Opus.
ffmpeg_rtp() {
    local name="$1" port="$2"
    shift 2
    capture "$name" "$port" -- ffmpeg -hide_banner -loglevel error -re -f lavfi \
        -i "sine=frequency=440:sample_rate=$1:duration=2" -ac 2 "${@:2}" -f rtp -sdp_file "$captures/$name.sdp" \
        "rtp://127.0.0.1:$port"
    chmod 644 "$captures/$name.sdp"
}
ffmpeg_rtp audio-aac-ffmpeg 5032 44100 -c:a aac -b:a 96k
ffmpeg_rtp audio-opus-ffmpeg 5034 48000 -c:a libopus -b:a 64k

for name in pcmu-gst pcma-gst l16-gst aac-gst latm-gst opus-gst aac-ffmpeg opus-ffmpeg; do
    python3 "$here/damage.py" --network "$captures/audio-$name.pcap" "$captures" "$expected/damage.json"
done
bash "$here/gst_audio_references.sh"
