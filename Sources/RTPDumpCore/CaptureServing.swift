#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import MediaPipeline
import PacketCapture
import RTP
import RTSPServer

/// A capture (or a live session) pushed into a server's ``MediaSource``: what `rtpdump serve` does once its
/// server is up.
package enum CaptureServing {
    /// Pushes the served tracks' units of `items` into `source`. A capture's (`paced`) go at the pace of their
    /// arrival times, each dated now; a live session's go as they come, each dated by its sender's clock when
    /// it has one.
    package static func push(
        _ items: inout some ReceivedItemSource, streams: inout ServedStreams, into source: MediaSource, paced: Bool
    ) throws {
        let start = ArrivalTime.now()
        var first: ArrivalTime?
        try items.forEachItem { item in
            let origin = first ?? item.arrival
            first = origin
            let due = start + (item.arrival - origin)
            streams.add(item) { track, unit in
                if paced { sleep(until: due) }
                source.push(unit, track: track, capturedAt: paced ? .now() : nil)
            }
        }
        streams.finish { track, unit in source.push(unit, track: track, capturedAt: paced ? .now() : nil) }
    }

    /// Blocks the calling thread until `time` on the monotonic clock.
    package static func sleep(until time: ArrivalTime) {
        let wait = time.nanoseconds - ArrivalTime.now().nanoseconds
        guard wait > 0 else { return }
        var request = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
