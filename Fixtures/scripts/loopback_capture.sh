# Sourced by the make-*-fixtures.sh scripts (after setting $captures and $work).
# capture_on_lo PCAP FILTER -- SENDER...: tcpdump on lo records what FILTER passes ("udp dst port 5040") while
# SENDER runs (its output is the caller's to redirect); fails as SENDER failed.
capture_on_lo() {
    local pcap="$1" filter="$2"
    shift 3
    rm -f "$pcap"
    tcpdump -i lo -U -s 0 -w "$pcap" "$filter" 2>/dev/null &
    local pid=$! status=0
    sleep 2
    "$@" || status=$?
    sleep 1
    kill -INT "$pid"
    wait "$pid" || true
    chmod 644 "$pcap"
    return "$status"
}

# capture NAME PORT -- SENDER...: the sender's RTP to PORT in $captures/NAME.pcap, its output in $work/NAME.log
# (printed, and the script stopped, when it fails).
capture() {
    capture_on_lo "$captures/$1.pcap" "udp dst port $2" "${@:3}" > "$work/$1.log" 2>&1 || { cat "$work/$1.log"; exit 1; }
}
