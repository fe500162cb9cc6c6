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

# rtsp_udp_port: the client's RTP port in the RTSP-over-UDP capture, as tshark reported it.
rtsp_udp_port() {
    python3 -c "import json; print(json.load(open('$expected/rtsp-h264-udp.pcap.streams.json'))[0]['destinationPort'])"
}
