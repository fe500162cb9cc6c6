import Logging
@_spi(SansIO) import RTP
import SDP

/// The receive pipeline of one or more tracks, sans I/O: packets in, in arrival order, from any source (an
/// RTSP session, a capture, an `RTPTransport`, bytes of the caller's); media units out, each naming its
/// track and dated by its sender's clock.
///
/// Each track has its own ``ReorderBuffer`` and the ``Depacketizer`` its format calls for. Push each packet,
/// and each RTCP sender report as it comes; then take what they completed:
///
/// ```swift
/// var pipeline = MediaPipeline(formats: formats)   // e.g. from an SDP's media sections
/// pipeline.push(ReceivedPacket(track: 0, packet: packet, arrival: now))
/// while let unit = pipeline.next() { print(unit.track, unit.timestamp, unit.captureTime as Any) }
/// // at the end of the input:
/// pipeline.finish()
/// while let unit = pipeline.next() { … }
/// ```
///
/// Loss is reported on the units (``MediaUnit/lostPackets``); nothing is spliced. A unit taken and let go
/// of before the next push leaves its buffer to the next unit: in steady state nothing is allocated.
public struct MediaPipeline: Sendable {
    struct Track: Sendable {
        var reorder: ReorderBuffer
        var depacketizer: Depacketizer
        /// The track's sender clock, from the sender reports given for the track.
        var clock: SenderClock?
        /// An ONVIF replay's clock: the recorded times its packets carry (RTP header extension 0xABAC),
        /// which date the units before any sender report does.
        var replayClock: SenderClock?
        /// The stream broke (a restart announced or found by the reorder buffer): the next unit is flagged.
        var discontinuityPending = false
        /// The timestamp of the track's last unit, which the next is compared with (nil after a break).
        var lastTimestamp: UInt64?
        /// A step between units beyond this many ticks is a jump.
        var jumpTicks: Int64
        /// Units whose timestamp jumped.
        var timestampJumps = 0

        init(reorder: ReorderBuffer, depacketizer: Depacketizer, jumpBound: Duration) {
            self.reorder = reorder
            self.depacketizer = depacketizer
            jumpTicks = Self.ticks(jumpBound, clockRate: depacketizer.clockRate)
        }

        static func ticks(_ duration: Duration, clockRate: Int) -> Int64 {
            let seconds = max(0, duration.components.seconds)
            let (ticks, overflow) = seconds.multipliedReportingOverflow(by: Int64(max(1, clockRate)))
            return overflow ? .max : max(1, ticks)
        }
    }

    /// How far a unit's timestamp may step from its track's previous unit's (either way) before it is a jump
    /// (``MediaUnit/isTimestampJump``): a sender whose clock stepped, in an unbroken stream. Default 10 s, far
    /// beyond B-frames' reordering and any pause a camera makes without a break.
    public var timestampJumpBound: Duration = .seconds(10) {
        didSet {
            for index in tracks.indices {
                tracks[index].jumpTicks = Track.ticks(
                    timestampJumpBound, clockRate: tracks[index].depacketizer.clockRate)
            }
        }
    }

    private var tracks: [Track]
    /// Units completed and not yet taken, in the order they completed (usually none or one).
    @usableFromInline var ready: [MediaUnit] = []
    /// Each sender's clock, from the sender reports given by SSRC alone (``receiveSenderReport(_:)``).
    private var clocks: [UInt32: SenderClock] = [:]
    /// Whether any sender report has come (before, units are handed on without looking for a clock).
    private var hasClocks = false
    /// Packets of a track this pipeline does not have, dropped.
    public private(set) var unknownTrackPackets = 0
    /// Byte packets (``push(bytes:track:arrival:)``) that were neither RTP nor RTCP, dropped.
    public private(set) var invalidPackets = 0
    /// Where the first of each kind of anomaly per track is told; nil: nothing is logged.
    private var log: AnomalyLog?
    /// Whether there is a log (asked per packet, where unwrapping the optional would copy it).
    private let logs: Bool
    private let reorderConfiguration: ReorderBuffer.Configuration
    /// How audio tracks are reordered: their packets can be 100 ms apart, so gaps are waited for longer.
    private let audioReorderConfiguration: ReorderBuffer.Configuration

    /// A pipeline with no track yet, for a source whose tracks appear as it is read (a capture: add each with
    /// ``addTrack(_:reorder:)``). With a `logger`, the first loss, change of source, camera quirk, skipped
    /// packet kind and change of parameter sets of each track are logged (the rest are counted); nothing
    /// else, and nothing per packet. `reorder` orders video tracks, `audioReorder` audio tracks and the
    /// sparse data tracks (metadata, raw), whose packets can be as far apart as audio's.
    public init(
        reorder: ReorderBuffer.Configuration = .init(), audioReorder: ReorderBuffer.Configuration = .audio,
        logger: Logger? = nil
    ) {
        tracks = []
        log = logger.map { AnomalyLog(logger: $0, tracks: 0) }
        logs = logger != nil
        reorderConfiguration = reorder
        audioReorderConfiguration = audioReorder
        ready.reserveCapacity(4)
    }

    /// A pipeline of one track per depacketizer (a capture whose codecs are known, depacketizers configured
    /// by hand).
    public init(
        depacketizers: [Depacketizer], reorder: ReorderBuffer.Configuration = .init(),
        audioReorder: ReorderBuffer.Configuration = .audio, logger: Logger? = nil
    ) {
        self.init(reorder: reorder, audioReorder: audioReorder, logger: logger)
        for depacketizer in depacketizers { _ = addTrack(depacketizer) }
    }

    /// A pipeline of one track per format (from the SDP: `MediaDescription.mediaFormat`), each taken apart
    /// by the ``Depacketizer`` the format calls for. Video parameter sets that are not valid are left out
    /// (the stream's own serve); an audio format whose configuration cannot be read makes a track whose
    /// packets are dropped and counted. Each problem is passed to `warn` and logged.
    public init(
        formats: [MediaFormat], reorder: ReorderBuffer.Configuration = .init(),
        audioReorder: ReorderBuffer.Configuration = .audio, logger: Logger? = nil,
        warn: (_ track: Int, _ problem: String) -> Void = { _, _ in }
    ) {
        self.init(reorder: reorder, audioReorder: audioReorder, logger: logger)
        for (index, format) in formats.enumerated() {
            _ = addTrack(
                Depacketizer(format: format) { problem in
                    logger?.warning("track \(index): \(problem.escapingControlCharacters)")
                    warn(index, problem)
                })
        }
    }

    /// Adds a track taken apart by `depacketizer` (for a stream found after the start, as in a capture),
    /// reordered as `reorder` says (by default as the pipeline's video or audio tracks are); returns its
    /// index.
    public mutating func addTrack(_ depacketizer: Depacketizer, reorder: ReorderBuffer.Configuration? = nil) -> Int {
        let isSparse =
            switch depacketizer.payload {
            case .audio, .metadata, .raw: true
            case .video, .sniffing, .unplayable: false
            }
        let configuration = reorder ?? (isSparse ? audioReorderConfiguration : reorderConfiguration)
        tracks.append(
            Track(
                reorder: ReorderBuffer(configuration: configuration), depacketizer: depacketizer,
                jumpBound: timestampJumpBound))
        log?.addTrack()
        return tracks.count - 1
    }

    /// How many tracks it has.
    public var trackCount: Int { tracks.count }

    /// Offers a packet. Take what it completes with ``next()`` before the next push, so that the units'
    /// buffers are reused.
    public mutating func push(_ received: consuming ReceivedPacket) {
        let (index, arrival, isDiscontinuity) = (received.track, received.arrival, received.isDiscontinuity)
        guard tracks.indices.contains(index) else {
            log?.unknownTrack(index)
            return unknownTrackPackets += 1
        }
        if received.packet.hasExtension, let replay = ONVIFReplayExtension(received.packet) {
            noteReplay(replay, of: received.packet, track: index)
        }
        // The packet moves into the reorder buffer (no retain of its bytes), and the track is reached once.
        Self.take(
            (consume received).packet, arrival: arrival, restarting: isDiscontinuity, into: &tracks[index],
            ready: &ready, track: index)
        if logs {
            log?.look(
                at: index, reorder: tracks[index].reorder, depacketizer: tracks[index].depacketizer,
                timestampJumps: tracks[index].timestampJumps)
        }
    }

    /// Offers one packet as received bytes (from an `RTPTransport`, a socket of the caller's): RTP goes to
    /// `track`; the sender reports of an RTCP compound packet date that track's units
    /// (``receiveSenderReport(_:track:)``); bytes that are neither are counted in ``invalidPackets``.
    public mutating func push(bytes: ArraySlice<UInt8>, track: Int, arrival: ArrivalTime) {
        if RTPPacket.looksLikeRTCP(bytes) {
            guard let packets = try? RTCPPacket.parseCompound(bytes) else { return invalidPackets += 1 }
            for case .senderReport(let report) in packets { receiveSenderReport(report, track: track) }
            return
        }
        guard let packet = try? RTPPacket(bytes) else { return invalidPackets += 1 }
        push(ReceivedPacket(track: track, packet: packet, arrival: arrival))
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
            tracks[index].depacketizer.flush()
            Self.collect(&tracks[index], into: &ready, track: index)
        }
    }

    /// The next completed unit of any track, in the order they completed, dated by its sender's clock once a
    /// sender report has come (``receiveSenderReport(_:track:)``, ``receiveSenderReport(_:)``); nil when
    /// there is none until the next push.
    @inlinable
    public mutating func next() -> MediaUnit? {
        // Asked after every packet, and mostly nothing is ready: that answer is inlined into the caller.
        ready.isEmpty ? nil : takeReady()
    }

    @usableFromInline
    mutating func takeReady() -> MediaUnit? {
        guard !ready.isEmpty else { return nil }
        // Moved out, not copied: the pipeline keeps no reference to a unit it handed on.
        let unit = ready.removeFirst()
        if logs, case .video(let accessUnit) = unit { log?.handedOn(accessUnit) }
        guard hasClocks, let clock = clock(of: unit) else { return unit }
        return unit.captured(by: clock)
    }

    /// A packet of an ONVIF replay: from then on its track's units carry the time they were recorded.
    private mutating func noteReplay(_ replay: ONVIFReplayExtension, of packet: borrowing RTPPacket, track index: Int) {
        if tracks[index].replayClock == nil {
            tracks[index].replayClock = SenderClock(clockRate: tracks[index].depacketizer.clockRate)
        }
        tracks[index].replayClock?.update(
            with: RTCPSenderReport(
                ssrc: packet.ssrc, ntpTimestamp: replay.recordedTime.ntp, rtpTimestamp: packet.timestamp,
                packetCount: 0,
                octetCount: 0))
        hasClocks = true
    }

    /// The clock that dates `unit`: an ONVIF replay's recorded times; else its source's, given by SSRC, else
    /// its track's if the track's latest report came from the unit's source (a track whose source changed is
    /// not dated by the old source's clock).
    private func clock(of unit: MediaUnit) -> SenderClock? {
        if let replay = tracks[unit.track].replayClock, replay.ssrc == unit.ssrc { return replay }
        // (No hashing for a pipeline that has no sender reports by SSRC.)
        if !clocks.isEmpty, let clock = clocks[unit.ssrc] { return clock.withClockRate(unit.clockRate) }
        guard let clock = tracks[unit.track].clock, clock.ssrc == unit.ssrc else { return nil }
        return clock
    }

    /// An RTCP sender report for `track` (from the track's RTCP channel or port): from then on the units of
    /// the source it names carry their capture time.
    public mutating func receiveSenderReport(_ report: RTCPSenderReport, track: Int) {
        guard tracks.indices.contains(track) else { return }
        if tracks[track].clock == nil {
            tracks[track].clock = SenderClock(clockRate: tracks[track].depacketizer.clockRate)
        }
        tracks[track].clock?.update(with: report)
        hasClocks = true
    }

    /// An RTCP sender report of the source it names, not tied to a track (a capture's RTCP): the units that
    /// source's packets complete, in any track, carry their capture time from then on.
    public mutating func receiveSenderReport(_ report: RTCPSenderReport) {
        clocks[report.ssrc, default: SenderClock(clockRate: Depacketizer.videoClockRate)].update(with: report)
        hasClocks = true
    }

    /// `track`'s depacketizer, with what it takes apart, its parameter sets and counters.
    public func depacketizer(track: Int) -> Depacketizer? {
        tracks.indices.contains(track) ? tracks[track].depacketizer : nil
    }

    /// How many of `track`'s units jumped in time (``MediaUnit/isTimestampJump``).
    public func timestampJumps(track: Int) -> Int {
        tracks.indices.contains(track) ? tracks[track].timestampJumps : 0
    }

    /// How many of `track`'s packets its reorder buffer dropped as late: what a session's metrics read once a unit,
    /// without the copy of the buffer that ``reorderBuffer(track:)`` gives.
    package func latePackets(track: Int) -> Int {
        tracks.indices.contains(track) ? tracks[track].reorder.late : 0
    }

    /// What `track`'s reorder buffer counted (duplicates, late, lost, restarts).
    public func reorderBuffer(track: Int) -> ReorderBuffer? {
        tracks.indices.contains(track) ? tracks[track].reorder : nil
    }

    // The steps take the track and the ready list as separate inout arguments: disjoint parts of `self`,
    // so the depacketizer's units go straight to the list, with no copy of either.

    private static func take(
        _ packet: consuming RTPPacket, arrival: ArrivalTime, restarting: Bool, into track: inout Track,
        ready: inout [MediaUnit], track index: Int
    ) {
        if restarting { restart(&track, into: &ready, track: index) }
        // The usual packet, next in order with nothing held: straight on, no slot of the ring and nothing else to
        // release.
        if track.reorder.isNextInOrder(packet) {
            let extended = track.reorder.releaseInOrder(packet)
            if track.depacketizer.isSniffing {
                return feed(&track, .packet(packet, extendedSequence: extended), into: &ready, track: index)
            }
            track.depacketizer.push(packet)
            return collect(&track, into: &ready, track: index)
        }
        track.reorder.insert(packet, arrival: arrival)
        release(&track, now: arrival, into: &ready, track: index)
    }

    private static func release(_ track: inout Track, now: ArrivalTime, into ready: inout [MediaUnit], track index: Int)
    {
        while let output = track.reorder.next(now: now) { feed(&track, consume output, into: &ready, track: index) }
    }

    @inline(__always)
    private static func feed(
        _ track: inout Track, _ output: consuming ReorderBuffer.Output, into ready: inout [MediaUnit], track index: Int
    ) {
        if case .discontinuity = output { return cutOff(&track, into: &ready, track: index) }
        track.depacketizer.consume(consume output)  // moved: no copy of the packet, no retain of its bytes
        collect(&track, into: &ready, track: index)
    }

    @inline(__always)
    private static func collect(_ track: inout Track, into ready: inout [MediaUnit], track index: Int) {
        while var unit = track.depacketizer.next(track: index, isDiscontinuity: track.discontinuityPending) {
            if track.discontinuityPending { track.lastTimestamp = nil }
            track.discontinuityPending = false
            let timestamp = unit.timestamp
            if let last = track.lastTimestamp,
                Int64(bitPattern: timestamp &- last).magnitude > track.jumpTicks.magnitude
            {
                unit.markTimestampJump()
                track.timestampJumps += 1
            }
            track.lastTimestamp = timestamp
            ready.append(unit)
        }
    }

    /// The track's stream broke: the unit in progress ends (lost, when its end did not come), the next is
    /// flagged.
    private static func cutOff(_ track: inout Track, into ready: inout [MediaUnit], track index: Int) {
        track.depacketizer.cutOff()
        collect(&track, into: &ready, track: index)
        track.discontinuityPending = true
    }

    /// A break the source announced: what was held ends here, the next unit is flagged, and the numbering
    /// starts again.
    private static func restart(_ track: inout Track, into ready: inout [MediaUnit], track index: Int) {
        while let output = track.reorder.flush() { feed(&track, output, into: &ready, track: index) }
        cutOff(&track, into: &ready, track: index)
        track.reorder = ReorderBuffer(configuration: track.reorder.configuration)
    }
}

extension ReorderBuffer.Configuration {
    /// For audio: packets can be 100 ms apart (FFmpeg puts four AAC frames in each), so a gap is waited for
    /// 500 ms (GStreamer's jitter buffer waits 200 ms at least); at most 250 packets are held.
    public static var audio: ReorderBuffer.Configuration { .init(maxPackets: 250, maxDelay: .milliseconds(500)) }
}
