#!/usr/bin/env bash
# Regenerates the data-track captures under Fixtures/captures (each with its .sdp) and, from what the sender
# printed, Fixtures/expected/<capture>.sent-units.txt ("<bytes> <md5>" per unit, in order):
#   data-klv-gst          KLV local sets through GStreamer's rtpklvpay (RFC 6597; send_data.py klv): an
#                         application track the library hands on raw
#   metadata-onvif        ONVIF metadata documents (send_data.py onvif: Debian's GStreamer has no ONVIF
#                         metadata payloader)
#   metadata-onvif-gzip   the same gzip-compressed (vnd.onvif.metadata.gzip); the reference is the inflated XML
# Needs root (to capture on lo), tcpdump, GStreamer (base, good, python3-gi), python3.
# Run from anywhere: bash Fixtures/scripts/make-data-fixtures.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
bash "$fixtures/../scripts/ensure-packages.sh" tcpdump gstreamer1.0-tools gstreamer1.0-plugins-base \
    gstreamer1.0-plugins-good python3-gi
source "$here/loopback_capture.sh"

# capture_data NAME PORT SDP_MEDIA -- SENDER...: the sender's RTP to PORT; what it printed is the reference.
capture_data() {
    local name="$1" port="$2" media="$3"
    capture_on_lo "$captures/$name.pcap" "udp dst port $port" "${@:4}" > "$expected/$name.pcap.sent-units.txt"
    printf 'v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=data sender\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n%b' "$media" \
        > "$captures/$name.sdp"
    echo "$name: $(wc -l < "$expected/$name.pcap.sent-units.txt") units"
}

capture_data data-klv-gst 5080 "m=application 5080 RTP/AVP 98\r\na=rtpmap:98 smpte336m/90000\r\n" -- \
    /usr/bin/python3 "$here/send_data.py" klv 5080 30
capture_data metadata-onvif 5082 "m=application 5082 RTP/AVP 107\r\na=rtpmap:107 vnd.onvif.metadata/90000\r\n" -- \
    /usr/bin/python3 "$here/send_data.py" onvif 5082 30
capture_data metadata-onvif-gzip 5084 \
    "m=application 5084 RTP/AVP 107\r\na=rtpmap:107 vnd.onvif.metadata.gzip/90000\r\n" -- \
    /usr/bin/python3 "$here/send_data.py" onvif 5084 30 gzip
python3 "$here/damage.py" --network "$captures/metadata-onvif.pcap" "$captures" "$expected/damage.json"
