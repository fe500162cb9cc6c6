import H26x
import Logging
import RTP
import SDP

/// The receive pipeline of one or more video tracks, sans I/O: packets in, in arrival order, from any
/// source; access units out, each naming its track.
///
/// Each track has its own ``ReorderBuffer`` and the depacketizer its format calls for (H.264 or H.265,
/// packetization mode, de-interleaving, the SDP's parameter sets). Push each packet, then take what it
/// completed:
///
/// ```swift
/// var pipeline = MediaPipeline(formats: [format])   // e.g. from an SDP's video media
/// pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: now))
/// while let unit = pipeline.nextAccessUnit() { print(unit.track, unit.timestamp, unit.isComplete) }
/// // at the end of the input:
/// pipeline.finish()
/// while let unit = pipeline.nextAccessUnit() { … }
/// ```
///
/// Loss is reported on the units (``AccessUnit/lostPackets``); nothing is spliced. A unit taken and let go
/// of before the next push leaves its buffer to the next unit: in steady state nothing is allocated.
public struct MediaPipeline: Sendable {
    struct Track: Sendable {
        var reorder: ReorderBuffer
        var depacketizer: VideoDepacketizer
        var clock: SenderClock?
    }

    private var tracks: [Track]
    /// Units completed and not yet taken, in the order they completed (usually none or one).
    private var ready: [AccessUnit] = []
    /// Packets of a track this pipeline does not have, dropped.
    public private(set) var unknownTrackPackets = 0
    /// Where the first of each kind of anomaly per track is told; nil: nothing is logged.
    private var log: AnomalyLog?

    /// A pipeline of one track per depacketizer, each ordered with `reorder`. With a `logger`, the first
    /// loss, change of source, camera quirk, skipped packet kind and change of parameter sets of each track
    /// are logged (the rest are counted); nothing else, and nothing per packet.
    public init(
        depacketizers: [VideoDepacketizer], reorder: ReorderBuffer.Configuration = .init(), logger: Logger? = nil
    ) {
        tracks = depacketizers.map { Track(reorder: ReorderBuffer(configuration: reorder), depacketizer: $0) }
        log = logger.map { AnomalyLog(logger: $0, tracks: depacketizers.count) }
        ready.reserveCapacity(4)
    }

    /// A pipeline of one track per format (from the SDP: ``SDPVideo/depacketizer(for:warn:)``). Parameter
    /// sets in a format that are not valid are passed to `warn` and left out: the stream's own serve.
    public init(
        formats: [VideoFormat], reorder: ReorderBuffer.Configuration = .init(), logger: Logger? = nil,
        warn: (_ track: Int, H26xError) -> Void = { _, _ in }
    ) {
        self.init(
            depacketizers: formats.enumerated().map { index, format in
                SDPVideo.depacketizer(for: format) { problem in
                    logger?.warning(
                        "track \(index): \("\(problem)".escapingControlCharacters); the stream's own parameter sets serve instead"
                    )
                    warn(index, problem)
                }
            }, reorder: reorder, logger: logger)
    }

    /// How many tracks it has.
    public var trackCount: Int { tracks.count }

    /// Offers a packet. Take what it completes with ``nextAccessUnit()`` before the next push, so that
    /// the units' buffers are reused.
    public mutating func push(_ received: ReceivedPacket) {
        let index = received.track
        guard tracks.indices.contains(index) else {
            log?.unknownTrack(index)
            return unknownTrackPackets += 1
        }
        if received.isDiscontinuity { Self.restart(&tracks[index], into: &ready, track: index) }
        tracks[index].reorder.insert(received.packet, arrival: received.arrival)
        Self.release(&tracks[index], now: received.arrival, into: &ready, track: index)
        if log != nil { log?.look(at: index, reorder: tracks[index].reorder, depacketizer: tracks[index].depacketizer) }
    }

    /// Lets every track give up gaps that have waited past the reorder buffer's delay at `now`, without a
    /// packet: for a source that goes quiet (a camera that stops after a keyframe loss).
    public mutating func advance(to now: ArrivalTime) {
        for index in tracks.indices { Self.release(&tracks[index], now: now, into: &ready, track: index) }
    }

    /// Ends the input: every track releases what it holds, gaps as loss, and completes its last unit.
    public mutating func finish() {
        for index in tracks.indices {
            while let output = tracks[index].reorder.flush() {
                Self.feed(&tracks[index], output, into: &ready, track: index)
            }
            Self.flushDepacketizer(&tracks[index], into: &ready, track: index)
        }
    }

    /// The next completed access unit, dated by its track's sender clock once a sender report has come
    /// (``receiveSenderReport(_:track:)``); nil when there is none until the next push.
    public mutating func nextAccessUnit() -> AccessUnit? {
        guard !ready.isEmpty else { return nil }
        // Moved out, not copied: the pipeline keeps no reference to a unit it handed on.
        let unit = ready.removeFirst()
        if log != nil { log?.handedOn(unit) }
        guard let clock = tracks[unit.track].clock else { return unit }
        return unit.captured(by: clock)
    }

    /// An RTCP sender report for `track`: from then on its units carry their capture time. (A source
    /// that dates units itself, as an RTSP session does, need not call it.)
    public mutating func receiveSenderReport(_ report: RTCPSenderReport, track: Int) {
        guard tracks.indices.contains(track) else { return }
        let rate = 90_000  // H.264 and H.265 use a 90 kHz RTP clock
        if tracks[track].clock == nil { tracks[track].clock = SenderClock(clockRate: rate) }
        tracks[track].clock?.update(with: report)
    }

    /// The parameter sets `track` has seen, from its SDP and in band (what a decoder is configured with).
    public func parameterSets(track: Int) -> ParameterSets? {
        tracks.indices.contains(track) ? tracks[track].depacketizer.parameterSets : nil
    }

    /// The codec of `track`.
    public func codec(track: Int) -> VideoCodec? {
        tracks.indices.contains(track) ? tracks[track].depacketizer.codec : nil
    }

    /// What `track`'s reorder buffer counted (duplicates, late, lost, restarts).
    public func reorderBuffer(track: Int) -> ReorderBuffer? {
        tracks.indices.contains(track) ? tracks[track].reorder : nil
    }

    /// What `track`'s depacketizer counted (malformed packets, dropped NAL units, quirks).
    public func depacketizerStatistics(track: Int) -> DepacketizerStatistics? {
        tracks.indices.contains(track) ? tracks[track].depacketizer.statistics : nil
    }

    // The steps take the track and the ready list as separate inout arguments: disjoint parts of `self`,
    // so the depacketizer appends straight to the list, with no copy of either.

    private static func release(
        _ track: inout Track, now: ArrivalTime, into ready: inout [AccessUnit], track index: Int
    ) {
        while let output = track.reorder.next(now: now) { feed(&track, output, into: &ready, track: index) }
    }

    private static func feed(
        _ track: inout Track, _ output: consuming ReorderBuffer.Output, into ready: inout [AccessUnit],
        track index: Int
    ) {
        track.depacketizer.consume(output)
        collect(&track, into: &ready, track: index)
    }

    private static func flushDepacketizer(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        track.depacketizer.flush()
        collect(&track, into: &ready, track: index)
    }

    private static func collect(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        while let unit = track.depacketizer.nextAccessUnit() { ready.append(stamped(unit, track: index)) }
    }

    private static func stamped(_ unit: AccessUnit, track: Int) -> AccessUnit {
        var unit = unit
        unit.track = track
        return unit
    }

    /// A break the source announced: what was held ends here and the numbering starts again.
    private static func restart(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        while let output = track.reorder.flush() { feed(&track, output, into: &ready, track: index) }
        flushDepacketizer(&track, into: &ready, track: index)
        track.reorder = ReorderBuffer(configuration: track.reorder.configuration)
    }
}
