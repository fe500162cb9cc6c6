#!/usr/bin/env bash
# GStreamer's depayloaders on the clean audio captures (Fixtures/captures/audio-*-{gst,ffmpeg}.pcap):
#   expected/<capture>.gst-frames.txt   one line per buffer the depayloader gave: "<bytes> <md5>"
#                                       (pcapparse ! rtp*depay ! multifilesink, a file per buffer)
#   expected/<capture>.gst.adts          for AAC: the same frames with ADTS headers (aacparse)
# The caps pcapparse needs come from the capture's .sdp (sdp_to_caps.py). The damaged variants have no
# reference of their own: their frames are tested against the clean capture's.
# usage: gst_audio_references.sh   (from make-audio-fixtures.sh, or alone after it)
source "$(dirname "$0")/common.sh"

depayloader() {
    case "$1" in
        PCMU) echo rtppcmudepay ;; PCMA) echo rtppcmadepay ;; L16) echo rtpL16depay ;;
        MPEG4-GENERIC) echo rtpmp4gdepay ;; MP4A-LATM) echo rtpmp4adepay ;; OPUS) echo rtpopusdepay ;;
    esac
}

for sdp in "$captures"/audio-*.sdp; do
    capture="$(basename "$sdp" .sdp).pcap"
    read -r port caps encoding < <(python3 "$here/sdp_to_caps.py" "$sdp")
    depay="$(depayloader "$encoding")"
    rm -rf "$work/frames" && mkdir -p "$work/frames"
    gst-launch-1.0 -q filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! "$caps" ! "$depay" ! \
        multifilesink location="$work/frames/%06d.bin"
    python3 - "$work/frames" > "$expected/$capture.gst-frames.txt" <<'PY'
import hashlib, os, sys
for name in sorted(os.listdir(sys.argv[1])):
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    print(len(data), hashlib.md5(data).hexdigest())
PY
    if [ "$depay" = rtpmp4gdepay ] || [ "$depay" = rtpmp4adepay ]; then
        gst-launch-1.0 -q filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! "$caps" ! "$depay" ! \
            aacparse ! audio/mpeg,stream-format=adts ! filesink location="$expected/$capture.gst.adts"
    fi
    echo "$capture: $(wc -l < "$expected/$capture.gst-frames.txt") frames"
done
