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
    /// Pushes the served tracks' units of `datagrams` into `source` at the pace of the datagrams' times (a
    /// capture), each dated now. Returns how many units were pushed.
    @discardableResult
    package static func replay(
        _ datagrams: inout some DatagramSource, streams: inout ServedStreams, into source: MediaSource
    ) throws -> Int {
        let start = ArrivalTime.now()
        var first: ArrivalTime?
        var pushed = 0
        try datagrams.forEachDatagram { datagram in
            let time = datagram.time
            let origin = first ?? time
            first = origin
            let due = start + (time - origin)
            streams.add(datagram) { track, unit in
                sleep(until: due)
                source.push(unit, track: track, capturedAt: .now())
                pushed += 1
            }
        }
        streams.finish { track, unit in
            source.push(unit, track: track, capturedAt: .now())
            pushed += 1
        }
        return pushed
    }

    /// Pushes the served tracks' units of a live session into `source` as they come, each dated by its
    /// sender's clock when it has one.
    @discardableResult
    package static func relay(
        _ datagrams: inout some DatagramSource, streams: inout ServedStreams, into source: MediaSource
    ) throws -> Int {
        var pushed = 0
        try datagrams.forEachDatagram { datagram in
            streams.add(datagram) { track, unit in
                source.push(unit, track: track)
                pushed += 1
            }
        }
        streams.finish { track, unit in
            source.push(unit, track: track)
            pushed += 1
        }
        return pushed
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
