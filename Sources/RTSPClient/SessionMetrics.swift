import CoreMetrics
import MediaPipeline

/// A session's figures published through swift-metrics (``RTSPSessionOptions/metricsName``): its
/// ``RTSPSessionStatistics`` as they stand, each time they are given. Counters move by what the statistics
/// gained since the last time, so that a backend's totals are the session's own; figures that go down too
/// (loss, which duplicates lower; jitter; the clock offset) are gauges. Dimensions: `session`, and `track` (its
/// index) for a track's.
final class SessionMetrics {
    private struct Track {
        let packets, bytes, duplicates, reordered, senderReports: Counter
        let lost, jitter, clockOffset: Gauge

        init(_ dimensions: [(String, String)], factory: any MetricsFactory) {
            let maker = Maker(dimensions: dimensions, factory: factory)
            let counter = maker.counter, gauge = maker.gauge
            packets = counter("rtsp_client_packets_total")
            bytes = counter("rtsp_client_bytes_total")
            duplicates = counter("rtsp_client_duplicate_packets_total")
            reordered = counter("rtsp_client_reordered_packets_total")
            senderReports = counter("rtsp_client_sender_reports_total")
            lost = gauge("rtsp_client_lost_packets")
            jitter = gauge("rtsp_client_jitter_seconds")
            clockOffset = gauge("rtsp_client_sender_clock_offset_seconds")
        }
    }

    private let name: String
    private let factory: any MetricsFactory
    private var tracks: [Track] = []
    private let reconnects, droppedByConsumer, invalidPackets, srtpFailures: Counter
    private let playing, secondsWithoutMedia: Gauge
    private var last = RTSPSessionStatistics(
        transport: .tcp, fellBackToTCP: false, tracks: [], invalidPackets: 0, droppedByConsumer: 0,
        earlyPacketsDropped: 0, unknownChannelFrames: 0, receiverReportsSent: 0, srtpAuthFailures: 0, requestsSent: 0)

    init(name: String, factory: any MetricsFactory) {
        self.name = name
        self.factory = factory
        let maker = Maker(dimensions: [("session", name)], factory: factory)
        let counter = maker.counter, gauge = maker.gauge
        reconnects = counter("rtsp_client_reconnects_total")
        droppedByConsumer = counter("rtsp_client_packets_dropped_by_consumer_total")
        invalidPackets = counter("rtsp_client_invalid_packets_total")
        srtpFailures = counter("rtsp_client_srtp_authentication_failures_total")
        playing = gauge("rtsp_client_playing")
        secondsWithoutMedia = gauge("rtsp_client_seconds_without_media")
    }

    /// Makes metrics of one set of dimensions (a session's, a track's).
    private struct Maker {
        let dimensions: [(String, String)]
        let factory: any MetricsFactory

        func counter(_ label: String) -> Counter { Counter(label: label, dimensions: dimensions, factory: factory) }
        func gauge(_ label: String) -> Gauge { Gauge(label: label, dimensions: dimensions, factory: factory) }
    }

    /// The dimensions of `track`'s metrics (what the session's units are counted under too).
    static func dimensions(session: String, track: Int) -> [(String, String)] {
        [("session", session), ("track", String(track))]
    }

    /// Publishes `statistics`; `playing` says whether media flows now (1) or the session is broken or over (0).
    func publish(_ statistics: RTSPSessionStatistics, playing isPlaying: Bool) {
        while tracks.count < statistics.tracks.count {
            tracks.append(Track(Self.dimensions(session: name, track: tracks.count), factory: factory))
        }
        for (index, now) in statistics.tracks.enumerated() {
            let before = last.tracks.indices.contains(index) ? last.tracks[index] : .init()
            let track = tracks[index]
            Self.advance(track.packets, from: before.packets, to: now.packets)
            Self.advance(track.bytes, from: before.bytes, to: now.bytes)
            Self.advance(track.duplicates, from: before.duplicates, to: now.duplicates)
            Self.advance(track.reordered, from: before.reordered, to: now.reordered)
            Self.advance(track.senderReports, from: UInt64(before.senderReports), to: UInt64(now.senderReports))
            track.lost.record(now.lost)
            track.jitter.record(now.jitterMilliseconds / 1000)
            if let offset = now.senderClockOffset { track.clockOffset.record(Self.seconds(offset)) }
        }
        Self.advance(reconnects, from: UInt64(last.reconnects), to: UInt64(statistics.reconnects))
        Self.advance(
            droppedByConsumer, from: UInt64(last.droppedByConsumer), to: UInt64(statistics.droppedByConsumer))
        Self.advance(invalidPackets, from: UInt64(last.invalidPackets), to: UInt64(statistics.invalidPackets))
        Self.advance(srtpFailures, from: UInt64(last.srtpAuthFailures), to: UInt64(statistics.srtpAuthFailures))
        playing.record(isPlaying ? 1 : 0)
        secondsWithoutMedia.record(Self.seconds(statistics.timeWithoutMedia))
        last = statistics
    }

    private static func advance(_ counter: Counter, from old: UInt64, to new: UInt64) {
        if new > old { counter.increment(by: new - old) }
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

/// What a session's consumer takes, per track: units made (`rtsp_client_units_total`) and packets its reorder
/// buffer dropped for coming too late (`rtsp_client_late_packets_total`), under the session's dimensions.
struct UnitMetrics: Sendable {
    private let units: [Counter]
    private let late: [Counter]
    private var lateCounted: [Int]
    /// Where what the consumer makes of the units (a decoder's pictures) is counted, under the same dimensions.
    let counting: UnitCounting

    init(session: String, tracks: Int, factory: any MetricsFactory) {
        counting = UnitCounting(factory: factory) { SessionMetrics.dimensions(session: session, track: $0) }
        let dimensions = (0..<tracks).map { SessionMetrics.dimensions(session: session, track: $0) }
        units = dimensions.map { Counter(label: "rtsp_client_units_total", dimensions: $0, factory: factory) }
        late = dimensions.map { Counter(label: "rtsp_client_late_packets_total", dimensions: $0, factory: factory) }
        lateCounted = Array(repeating: 0, count: tracks)
    }

    /// Counts `unit`, and what its track's reorder buffer has dropped as late since the last unit.
    mutating func count(_ unit: MediaUnit, pipeline: MediaPipeline) {
        let track = unit.track
        guard units.indices.contains(track) else { return }
        units[track].increment()
        let dropped = pipeline.latePackets(track: track)
        if dropped > lateCounted[track] {
            late[track].increment(by: dropped - lateCounted[track])
            lateCounted[track] = dropped
        }
    }
}
