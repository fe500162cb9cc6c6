import Audio
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
        /// Nil while the codec is being sniffed from the first payloads (``addTrack(sniffing:)``).
        /// (No observer to keep `isDecided` with it: an observed property is changed by copy, not in place.)
        var depacketizer: VideoDepacketizer?
        /// Whether the depacketizer is there: asked per packet, where comparing the optional with nil copied
        /// the whole depacketizer out.
        var isDecided: Bool
        /// What a sniffed track's depacketizer is made with.
        var configuration = DepacketizerConfiguration()
        /// What the reorder buffer released while the codec was not yet known.
        var undecided: [ReorderBuffer.Output] = []
        /// A sniffed track whose payload type is static (RFC 3551): not H.264 or H.265, its packets dropped.
        var isNotVideo = false
        /// The track's sender clock, from sender reports given for the track.
        var clock: SenderClock?
        /// The stream broke (a restart announced or found by the reorder buffer): the next unit is flagged.
        var discontinuityPending = false
        /// An audio track's depacketizer (nil for video; nil too for an audio format that could not be read,
        /// whose packets are then counted in ``MediaPipeline/unusablePackets``).
        var audio: AudioDepacketizer?
        let isAudio: Bool
        /// The track's RTP clock rate: its sender reports map timestamps at this rate.
        let clockRate: Int

        init(
            reorder: ReorderBuffer, depacketizer: VideoDepacketizer?, configuration: DepacketizerConfiguration = .init()
        ) {
            self.reorder = reorder
            self.depacketizer = depacketizer
            self.configuration = configuration
            isDecided = depacketizer != nil
            isAudio = false
            clockRate = MediaPipeline.videoClockRate
        }

        init(reorder: ReorderBuffer, audio: AudioDepacketizer?, clockRate: Int) {
            self.reorder = reorder
            self.audio = audio
            isDecided = true
            isAudio = true
            self.clockRate = clockRate
        }
    }

    /// How many packets a track whose codec is sniffed holds, at most, before H.264 is assumed.
    public static let maxUndecidedPackets = 64

    private var tracks: [Track]
    /// Units completed and not yet taken, in the order they completed (usually none or one).
    @usableFromInline var ready: [AccessUnit] = []
    /// Audio frames completed and not yet taken.
    private var readyAudio: [AudioFrame] = []
    private var takenAudio = 0
    /// Each sender's clock, from the sender reports given by SSRC (``receiveSenderReport(_:)``).
    private var clocks: [UInt32: SenderClock] = [:]
    /// Packets of a track this pipeline does not have, dropped.
    public private(set) var unknownTrackPackets = 0
    /// Byte packets (``push(bytes:track:arrival:)``) that were neither RTP nor RTCP, dropped.
    public private(set) var invalidPackets = 0
    /// Packets of an audio track whose format could not be read (an AAC config that does not parse), dropped.
    public private(set) var unusablePackets = 0
    /// Where the first of each kind of anomaly per track is told; nil: nothing is logged.
    private var log: AnomalyLog?
    /// Whether there is a log (asked per packet; see `Track.isDecided`).
    private let logs: Bool
    private let reorderConfiguration: ReorderBuffer.Configuration
    /// How audio tracks are reordered: their packets can be 100 ms apart, so gaps are waited for longer.
    private var audioReorderConfiguration = ReorderBuffer.Configuration.audio

    /// A pipeline of one track per depacketizer, each ordered with `reorder`. With a `logger`, the first
    /// loss, change of source, camera quirk, skipped packet kind and change of parameter sets of each track
    /// are logged (the rest are counted); nothing else, and nothing per packet.
    public init(
        depacketizers: [VideoDepacketizer], reorder: ReorderBuffer.Configuration = .init(), logger: Logger? = nil
    ) {
        tracks = depacketizers.map { Track(reorder: ReorderBuffer(configuration: reorder), depacketizer: $0) }
        log = logger.map { AnomalyLog(logger: $0, tracks: depacketizers.count) }
        logs = logger != nil
        reorderConfiguration = reorder
        ready.reserveCapacity(4)
    }

    /// A pipeline with no track yet, for a source whose tracks appear as it is read (a capture: add each
    /// with ``addTrack(_:)`` or ``addTrack(sniffing:)``).
    public init(reorder: ReorderBuffer.Configuration = .init(), logger: Logger? = nil) {
        self.init(depacketizers: [], reorder: reorder, logger: logger)
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

    /// A pipeline of one track per format, video or audio (from the SDP: `MediaDescription.mediaFormat`).
    /// Video parameter sets that are not valid are left out (the stream's own serve); an audio format whose
    /// configuration cannot be read makes a track whose packets are dropped and counted
    /// (``unusablePackets``). Each problem is passed to `warn` and logged.
    public init(
        media formats: [MediaFormat], reorder: ReorderBuffer.Configuration = .init(),
        audioReorder: ReorderBuffer.Configuration = .audio, logger: Logger? = nil,
        warn: (_ track: Int, _ problem: String) -> Void = { _, _ in }
    ) {
        self.init(depacketizers: [], reorder: reorder, logger: logger)
        audioReorderConfiguration = audioReorder
        for (index, format) in formats.enumerated() {
            switch format {
            case .video(let video):
                _ = addTrack(
                    SDPVideo.depacketizer(for: video) { problem in
                        logger?.warning(
                            "track \(index): \("\(problem)".escapingControlCharacters); the stream's own parameter sets serve instead"
                        )
                        warn(index, "\(problem)")
                    })
            case .audio(let audio):
                do throws(AudioError) {
                    _ = addTrack(audio: try AudioDepacketizer(format: audio))
                } catch {
                    logger?.warning("track \(index): \("\(error)".escapingControlCharacters); its packets are dropped")
                    warn(index, "\(error)")
                    tracks.append(
                        Track(reorder: ReorderBuffer(configuration: audioReorder), audio: nil, clockRate: audio.clockRate))
                    log?.addTrack()
                }
            }
        }
    }

    /// Adds an audio track taken apart by `depacketizer`, reordered as `reorder` says (default
    /// ``RTP/ReorderBuffer/Configuration/audio``); returns its index.
    public mutating func addTrack(audio depacketizer: AudioDepacketizer, reorder: ReorderBuffer.Configuration? = nil) -> Int {
        tracks.append(
            Track(
                reorder: ReorderBuffer(configuration: reorder ?? audioReorderConfiguration), audio: depacketizer,
                clockRate: depacketizer.format.clockRate))
        log?.addTrack()
        return tracks.count - 1
    }

    /// How many tracks it has.
    public var trackCount: Int { tracks.count }

    /// Adds a track taken apart by `depacketizer` (for a stream found after the start, as in a capture);
    /// returns its index.
    public mutating func addTrack(_ depacketizer: VideoDepacketizer) -> Int {
        tracks.append(Track(reorder: ReorderBuffer(configuration: reorderConfiguration), depacketizer: depacketizer))
        log?.addTrack()
        return tracks.count - 1
    }

    /// Adds a track whose codec is told from its first payloads (``CodecSniffer``), for a capture with no
    /// SDP: until a payload decides, up to ``maxUndecidedPackets`` packets are held, then H.264 is assumed.
    /// A packet of a static payload type (below 96) decides that the track is not video
    /// (``isNotVideo(track:)``). Returns its index.
    public mutating func addTrack(sniffing configuration: DepacketizerConfiguration = .init()) -> Int {
        tracks.append(
            Track(
                reorder: ReorderBuffer(configuration: reorderConfiguration), depacketizer: nil,
                configuration: configuration))
        log?.addTrack()
        return tracks.count - 1
    }

    /// Offers a packet. Take what it completes with ``nextAccessUnit()`` before the next push, so that
    /// the units' buffers are reused.
    public mutating func push(_ received: consuming ReceivedPacket) {
        let (index, arrival, isDiscontinuity) = (received.track, received.arrival, received.isDiscontinuity)
        guard tracks.indices.contains(index) else {
            log?.unknownTrack(index)
            return unknownTrackPackets += 1
        }
        if tracks[index].isAudio { return pushAudio(received, track: index, arrival: arrival, restarting: isDiscontinuity) }
        // The packet moves into the reorder buffer (no retain of its bytes), and the track is reached once.
        Self.take(
            (consume received).packet, arrival: arrival, restarting: isDiscontinuity, into: &tracks[index],
            ready: &ready, track: index)
        if logs, let depacketizer = tracks[index].depacketizer {
            log?.look(at: index, reorder: tracks[index].reorder, depacketizer: depacketizer)
        }
    }

    /// Offers one packet as received bytes (from an `RTPTransport`, a socket of the caller's): RTP goes to
    /// `track`; the sender reports of an RTCP compound packet date their source's units
    /// (``receiveSenderReport(_:)``); bytes that are neither are counted in ``invalidPackets``.
    public mutating func push(bytes: ArraySlice<UInt8>, track: Int, arrival: ArrivalTime) {
        if RTPPacket.looksLikeRTCP(bytes) {
            guard let packets = try? RTCPPacket.parseCompound(bytes) else { return invalidPackets += 1 }
            for case .senderReport(let report) in packets { receiveSenderReport(report) }
            return
        }
        guard let packet = try? RTPPacket(bytes) else { return invalidPackets += 1 }
        push(ReceivedPacket(track: track, packet: packet, arrival: arrival))
    }

    /// A packet of an audio track: reordered, then taken apart by the track's audio depacketizer.
    private mutating func pushAudio(_ received: consuming ReceivedPacket, track index: Int, arrival: ArrivalTime, restarting: Bool) {
        guard tracks[index].audio != nil else { return unusablePackets += 1 }
        if restarting {
            while let output = tracks[index].reorder.flush() { tracks[index].audio?.consume(output) }
            tracks[index].audio?.cutOff()
            collectAudio(track: index)
            tracks[index].reorder = ReorderBuffer(configuration: tracks[index].reorder.configuration)
            tracks[index].discontinuityPending = true
        }
        tracks[index].reorder.insert((consume received).packet, arrival: arrival)
        releaseAudio(track: index, now: arrival)
    }

    private mutating func releaseAudio(track index: Int, now: ArrivalTime) {
        while let output = tracks[index].reorder.next(now: now) {
            if case .discontinuity = output {
                tracks[index].audio?.cutOff()
                collectAudio(track: index)
                tracks[index].discontinuityPending = true
                continue
            }
            tracks[index].audio?.consume(output)
            collectAudio(track: index)
        }
    }

    /// Lets every track give up gaps that have waited past the reorder buffer's delay at `now`, without a
    /// packet: for a source that goes quiet (a camera that stops after a keyframe loss).
    public mutating func advance(to now: ArrivalTime) {
        for index in tracks.indices {
            if tracks[index].isAudio {
                releaseAudio(track: index, now: now)
            } else {
                Self.release(&tracks[index], now: now, into: &ready, track: index)
            }
        }
    }

    /// Ends the input: every track releases what it holds, gaps as loss, and completes its last unit.
    public mutating func finish() {
        for index in tracks.indices {
            if tracks[index].isAudio {
                while let output = tracks[index].reorder.flush() { tracks[index].audio?.consume(output) }
                tracks[index].audio?.flush()
                collectAudio(track: index)
                continue
            }
            while let output = tracks[index].reorder.flush() {
                Self.feed(&tracks[index], output, into: &ready, track: index)
            }
            if !tracks[index].isDecided {
                Self.decide(&tracks[index], codec: .h264, into: &ready, track: index)
            }
            Self.flushDepacketizer(&tracks[index], into: &ready, track: index)
        }
    }

    /// The next completed audio frame (of any audio track), dated by its sender's clock once a sender report
    /// has come; nil when there is none until the next push.
    public mutating func nextAudioFrame() -> AudioFrame? {
        guard takenAudio < readyAudio.count else { return nil }
        let frame = readyAudio[takenAudio]
        takenAudio += 1
        if takenAudio == readyAudio.count {
            readyAudio.removeAll(keepingCapacity: true)
            takenAudio = 0
        }
        let track = tracks[frame.track]
        let byStream = clocks.isEmpty ? nil : clocks[frame.ssrc]?.withClockRate(track.clockRate)
        guard let clock = byStream ?? track.clock else { return frame }
        return frame.captured(by: clock)
    }

    /// An audio track's completed frames, stamped with the track, into the ready list.
    private mutating func collectAudio(track index: Int) {
        while var frame = tracks[index].audio?.nextFrame() {
            frame.track = index
            if tracks[index].discontinuityPending {
                frame.isDiscontinuity = true
                tracks[index].discontinuityPending = false
            }
            readyAudio.append(frame)
        }
    }

    /// The next completed access unit, dated by its sender's clock once a sender report has come
    /// (``receiveSenderReport(_:)``, ``receiveSenderReport(_:track:)``); nil when there is none until the
    /// next push.
    @inlinable
    public mutating func nextAccessUnit() -> AccessUnit? {
        // Asked after every packet, and mostly nothing is ready: that answer is inlined into the caller.
        ready.isEmpty ? nil : takeReady()
    }

    @usableFromInline
    mutating func takeReady() -> AccessUnit? {
        guard !ready.isEmpty else { return nil }
        // Moved out, not copied: the pipeline keeps no reference to a unit it handed on.
        let unit = ready.removeFirst()
        if logs { log?.handedOn(unit) }
        // (No hashing for a pipeline that has no sender reports by SSRC.)
        let byStream = clocks.isEmpty ? nil : clocks[unit.ssrc]
        guard let clock = byStream ?? tracks[unit.track].clock else { return unit }
        return unit.captured(by: clock)
    }

    /// An RTCP sender report for `track`: from then on its units carry their capture time. (A source
    /// that dates units itself, as an RTSP session does, need not call it.)
    public mutating func receiveSenderReport(_ report: RTCPSenderReport, track: Int) {
        guard tracks.indices.contains(track) else { return }
        if tracks[track].clock == nil { tracks[track].clock = SenderClock(clockRate: tracks[track].clockRate) }
        tracks[track].clock?.update(with: report)
    }

    /// An RTCP sender report of the source it names: the units that source's packets complete, in any
    /// track, carry their capture time from then on. For a source where RTCP is not tied to a track (a
    /// capture), and where a track's source changes (a camera that restarts with a new SSRC and reports it).
    public mutating func receiveSenderReport(_ report: RTCPSenderReport) {
        clocks[report.ssrc, default: SenderClock(clockRate: Self.videoClockRate)].update(with: report)
    }

    /// H.264 and H.265 use a 90 kHz RTP clock.
    static let videoClockRate = 90_000

    /// The parameter sets `track` has seen, from its SDP and in band (what a decoder is configured with).
    public func parameterSets(track: Int) -> ParameterSets? {
        depacketizer(track: track)?.parameterSets
    }

    /// The codec of `track` (nil while it is being sniffed).
    public func codec(track: Int) -> VideoCodec? {
        depacketizer(track: track)?.codec
    }

    /// Whether `track`, sniffed, carries a static payload type (RFC 3551: PCMU, PCMA, JPEG...): not video,
    /// so it gives no access units, whatever its payloads look like.
    public func isNotVideo(track: Int) -> Bool {
        tracks.indices.contains(track) && tracks[track].isNotVideo
    }

    /// `track`'s depacketizer, with its parameter sets and counters (nil while the codec is being sniffed).
    public func depacketizer(track: Int) -> VideoDepacketizer? {
        tracks.indices.contains(track) ? tracks[track].depacketizer : nil
    }

    /// `track`'s audio depacketizer, with its format, configuration and counters (nil for a video track).
    public func audioDepacketizer(track: Int) -> AudioDepacketizer? {
        tracks.indices.contains(track) ? tracks[track].audio : nil
    }

    /// Whether `track` is an audio track.
    public func isAudio(track: Int) -> Bool { tracks.indices.contains(track) && tracks[track].isAudio }

    /// What `track`'s reorder buffer counted (duplicates, late, lost, restarts).
    public func reorderBuffer(track: Int) -> ReorderBuffer? {
        tracks.indices.contains(track) ? tracks[track].reorder : nil
    }

    /// What `track`'s depacketizer counted (malformed packets, dropped NAL units, quirks).
    public func depacketizerStatistics(track: Int) -> DepacketizerStatistics? {
        depacketizer(track: track)?.statistics
    }

    // The steps take the track and the ready list as separate inout arguments: disjoint parts of `self`,
    // so the depacketizer appends straight to the list, with no copy of either.

    private static func take(
        _ packet: consuming RTPPacket, arrival: ArrivalTime, restarting: Bool, into track: inout Track,
        ready: inout [AccessUnit], track index: Int
    ) {
        if restarting { restart(&track, into: &ready, track: index) }
        track.reorder.insert(packet, arrival: arrival)
        release(&track, now: arrival, into: &ready, track: index)
    }

    private static func release(
        _ track: inout Track, now: ArrivalTime, into ready: inout [AccessUnit], track index: Int
    ) {
        while let output = track.reorder.next(now: now) { feed(&track, consume output, into: &ready, track: index) }
    }

    @inline(__always)
    private static func feed(
        _ track: inout Track, _ output: consuming ReorderBuffer.Output, into ready: inout [AccessUnit],
        track index: Int
    ) {
        guard track.isDecided else { return hold(&track, output, into: &ready, track: index) }
        if case .discontinuity = output {
            cutOff(&track, into: &ready, track: index)
            return
        }
        track.depacketizer?.consume(consume output)  // moved: no copy of the packet, no retain of its bytes
        collect(&track, into: &ready, track: index)
    }

    /// An output of a track whose codec is not known yet: held until a payload tells the codec.
    private static func hold(
        _ track: inout Track, _ output: consuming ReorderBuffer.Output, into ready: inout [AccessUnit],
        track index: Int
    ) {
        var sniffed: VideoCodec?
        if case .packet(let packet, _) = output {
            // A static payload type (RFC 3551: 0 PCMU, 8 PCMA, 26 JPEG...) names its codec, and it is not
            // H.264 or H.265 (dynamic types, 96-127): whatever its bytes look like, the track is not video.
            if packet.payloadType < firstDynamicPayloadType { return decideNotVideo(&track) }
            sniffed = CodecSniffer.codec(ofPayload: packet.payload)
        }
        track.undecided.append(output)
        if let sniffed {
            decide(&track, codec: sniffed, into: &ready, track: index)
        } else if track.undecided.count >= maxUndecidedPackets {
            decide(&track, codec: .h264, into: &ready, track: index)
        }
    }

    /// The payload types RFC 3551 leaves to the SDP (96-127): below, a type names a codec of its own.
    static let firstDynamicPayloadType: UInt8 = 96

    /// A sniffed track that is not video: decided with no depacketizer, so that its packets go nowhere.
    private static func decideNotVideo(_ track: inout Track) {
        track.isDecided = true
        track.isNotVideo = true
        track.undecided = []
    }

    private static func decide(
        _ track: inout Track, codec: VideoCodec, into ready: inout [AccessUnit], track index: Int
    ) {
        track.depacketizer = VideoDepacketizer(codec: codec, configuration: track.configuration)
        track.isDecided = true
        let held = track.undecided
        track.undecided = []
        for output in held { feed(&track, output, into: &ready, track: index) }
    }

    /// The track's stream broke: the unit in progress ends (lost, when its end did not come), the next is
    /// flagged.
    private static func cutOff(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        track.depacketizer?.cutOff()
        collect(&track, into: &ready, track: index)
        track.discontinuityPending = true
    }

    private static func flushDepacketizer(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        track.depacketizer?.flush()
        collect(&track, into: &ready, track: index)
    }

    @inline(__always)
    private static func collect(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
        while var unit = track.depacketizer?.nextAccessUnit() {
            unit.track = index
            if track.discontinuityPending {
                unit.isDiscontinuity = true
                track.discontinuityPending = false
            }
            ready.append(unit)
        }
    }

    /// A break the source announced: what was held ends here and the numbering starts again.
    private static func restart(_ track: inout Track, into ready: inout [AccessUnit], track index: Int) {
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
