#!/usr/bin/env bash
# GStreamer's depayloaders on the clean audio captures (Fixtures/captures/audio-*-{gst,ffmpeg}.pcap):
#   expected/<capture>.gst-frames.txt   one line per buffer the depayloader gave: "<bytes> <md5>"
#                                       (pcapparse ! rtp*depay ! multifilesink, a file per buffer)
#   expected/<capture>.gst.adts          for AAC: the same frames with ADTS headers (aacparse)
#   expected/<capture>.ffmpeg-pcm.txt    FFmpeg's decoding of GStreamer's depayloaded stream (the ADTS file, an
#                                        Ogg of the Opus packets, the raw G.711 or L16 bytes) to s16le:
#                                        "<samples per channel> <channels> <md5 of the s16le bytes>"
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
    [ "$encoding" = MP4A-LATM ] && python3 "$here/strip_latm_length.py" "$work/frames/000000.bin"
    python3 - "$work/frames" > "$expected/$capture.gst-frames.txt" <<'PY'
import hashlib, os, sys
for name in sorted(os.listdir(sys.argv[1])):
    data = open(os.path.join(sys.argv[1], name), "rb").read()
    print(len(data), hashlib.md5(data).hexdigest())
PY
    if [ "$depay" = rtpmp4gdepay ] || [ "$depay" = rtpmp4adepay ]; then
        # The frames (the first one mended, for LATM) with ADTS headers, by GStreamer's aacparse.
        caps_aac=$(gst-launch-1.0 -v filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! "$caps" ! \
            "$depay" ! fakesink num-buffers=1 2>&1 | grep -o 'caps = audio/mpeg[^"]*' | tail -1 | sed 's/^caps = //')
        count=$(ls "$work/frames" | wc -l)
        gst-launch-1.0 -q multifilesrc location="$work/frames/%06d.bin" stop-index=$((count - 1)) caps="$caps_aac" ! \
            aacparse ! audio/mpeg,stream-format=adts ! filesink location="$expected/$capture.gst.adts"
    fi
    # FFmpeg decodes what GStreamer depayloaded, in a form it reads on its own.
    channels=$(python3 -c "import sys; p=open(sys.argv[1]).read().split('a=rtpmap:')[1].split()[1].split('/'); print(p[2] if len(p) > 2 else 1)" "$sdp")
    rate=$(python3 -c "import sys; print(open(sys.argv[1]).read().split('a=rtpmap:')[1].split()[1].split('/')[1])" "$sdp")
    case "$encoding" in
        PCMU) cat "$work"/frames/*.bin > "$work/raw"; input=(-f mulaw -ar "$rate" -ac "$channels" -i "$work/raw") ;;
        PCMA) cat "$work"/frames/*.bin > "$work/raw"; input=(-f alaw -ar "$rate" -ac "$channels" -i "$work/raw") ;;
        L16) cat "$work"/frames/*.bin > "$work/raw"; input=(-f s16be -ar "$rate" -ac "$channels" -i "$work/raw") ;;
        MPEG4-GENERIC | MP4A-LATM) input=(-i "$expected/$capture.gst.adts") ;;
        OPUS)
            gst-launch-1.0 -q filesrc location="$captures/$capture" ! pcapparse dst-port="$port" ! "$caps" ! "$depay" ! \
                opusparse ! oggmux ! filesink location="$work/opus.ogg"
            input=(-i "$work/opus.ogg") ;;
    esac
    ffmpeg -hide_banner -loglevel error "${input[@]}" -f s16le -y "$work/pcm.s16"
    decoded_channels=$(ffprobe -v error -show_entries stream=channels -of csv=p=0 "${input[@]: -1}" 2>/dev/null || echo "$channels")
    [ "$encoding" = PCMU ] || [ "$encoding" = PCMA ] || [ "$encoding" = L16 ] && decoded_channels="$channels"
    bytes=$(stat -c %s "$work/pcm.s16")
    echo "$((bytes / 2 / decoded_channels)) $decoded_channels $(md5sum < "$work/pcm.s16" | cut -d' ' -f1)" > "$expected/$capture.ffmpeg-pcm.txt"
    echo "$capture: $(wc -l < "$expected/$capture.gst-frames.txt") frames, $(cat "$expected/$capture.ffmpeg-pcm.txt")"
done
