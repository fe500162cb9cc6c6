# Sourced by the reference scripts: their folders, a work folder removed on exit, and the one step
# they share before GStreamer's pcapparse (which reads neither pcapng nor IPv6).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)"
fixtures="$(dirname "$here")"
captures="$fixtures/captures"
expected="$fixtures/expected"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# pcapparse_input CAPTURE: a path pcapparse can read with the same RTP (the IPv6 pcapng is rewritten as
# IPv4 pcap by to_ipv4_pcap.py, same timestamps and UDP payloads).
pcapparse_input() {
    if [[ "$1" == *.pcapng ]]; then
        python3 "$here/to_ipv4_pcap.py" "$captures/$1" "$work/$1.pcap"
        echo "$work/$1.pcap"
    else
        echo "$captures/$1"
    fi
}

# depayload CAPTURE PORT CODEC(264|265) PAYLOAD_TYPE OUT: GStreamer's depayloader output for the RTP to
# PORT in CAPTURE (pcapparse ! rtph26Xdepay), one NAL unit per buffer in byte-stream form, written to OUT.
depayload() {
    local input
    input="$(pcapparse_input "$1")"
    gst-launch-1.0 -q filesrc location="$input" ! pcapparse dst-port="$2" ! \
        "application/x-rtp,media=video,clock-rate=90000,encoding-name=H$3,payload=$4" ! "rtph$3depay" ! \
        "video/x-h$3,stream-format=byte-stream,alignment=nal" ! filesink location="$5"
}

# rtsp_udp_port: the client's RTP port in the RTSP-over-UDP capture, as tshark reported it.
rtsp_udp_port() {
    python3 -c "import json; print(json.load(open('$expected/rtsp-h264-udp.pcap.streams.json'))[0]['destinationPort'])"
}
