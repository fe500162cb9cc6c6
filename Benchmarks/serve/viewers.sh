# Sourced by serve-clients.sh and serve-recordings.sh: many viewers of one server (`rtpdump streams URL --json`
# over TCP, ten joining a second), and the server's CPU and memory over a window after the last has joined.

cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # user + system, in clock ticks
rss() { awk '/VmRSS/{print $2}' "/proc/$1/status"; }
ticks=$(getconf CLK_TCK)

# viewing_time VIEWERS SECONDS: how long each viewer plays: the ramp, the window and 5 s.
viewing_time() { echo $(( $1 / 10 + 2 + $2 + 5 )); }

# measure_viewers RTPDUMP SERVER_PID URL VIEWERS SECONDS OUT TAG [PID...]: starts the viewers (each writes
# OUT/TAG-N.json), samples the server once the last has joined and SECONDS later (cpu_used in ticks, rss_start and
# rss_end in KiB), then waits for the viewers and the other PIDs given to end.
measure_viewers() {
    local rtpdump=$1 server=$2 url=$3 viewers=$4 seconds=$5 out=$6 tag=$7
    shift 7
    local duration pids=("$@") cpu0
    duration=$(viewing_time "$viewers" "$seconds")
    for i in $(seq "$viewers"); do
        "$rtpdump" streams "$url" --json --duration "$duration" > "$out/$tag-$i.json" 2> /dev/null &
        pids+=($!)
        [ $(( i % 10 )) -eq 0 ] && sleep 1
    done
    sleep 2
    cpu0=$(cpu "$server"); rss_start=$(rss "$server")
    sleep "$seconds"
    cpu_used=$(( $(cpu "$server") - cpu0 )); rss_end=$(rss "$server")
    wait "${pids[@]}" 2>/dev/null || true
}
