import Audio
import CoreMetrics
import H26x
import Logging
import MediaPipeline
import RTP
import SDP

/// One unit of a session's media: the library's one ``MediaUnit``.
@available(*, deprecated, renamed: "MediaUnit")
public typealias RTSPMediaUnit = MediaUnit

/// The video access units and audio frames of a session's tracks, in the order they complete: their packets
/// and sender reports through the library's ``MediaPipeline`` (a reorder buffer per track, the depacketizer
/// its SDP format calls for, the sender's clock). Loss is reported on each unit (``AccessUnit/lostPackets``,
/// ``AudioFrame/lostPacketsBefore``);
/// nothing is spliced. Iterate once: a session's packets have one consumer.
///
/// ```swift
/// for try await unit in try session.media() {
///     switch unit {
///     case .video(let accessUnit): print("video", accessUnit.track, accessUnit.captureTime as Any)
///     case .audio(let frame): print("audio", frame.track, frame.captureTime as Any)
///     }
/// }
/// ```
public struct RTSPMediaUnits: AsyncSequence, Sendable {
    public typealias Element = MediaUnit

    let packets: RTSPPackets
    /// The tracks played, by index into the session's tracks; packets of the others are skipped.
    let selected: Set<Int>
    /// Every track's format (those not selected too, so that indexes are the session's).
    let formats: [MediaFormat]
    let reorder: ReorderBuffer.Configuration
    let audioReorder: ReorderBuffer.Configuration
    let logger: Logger
    /// The call that made it and took the session's packets (`media()`, `accessUnits()`...).
    let owner: String
    /// Counts the units and late packets under the session's metrics, when it has them.
    var metrics: UnitMetrics?
    /// Tells the session's events that the units show (parameter sets, picture size, the sender's clock).
    var events: UnitEvents?

    /// A ``UnitWatch`` and where its events go (the session's ``RTSPSession/events``).
    struct UnitEvents: Sendable {
        var watch: UnitWatch
        let tell: @Sendable (RTSPSessionEvent) -> Void
    }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var source: RTSPPackets.AsyncIterator
        let selected: Set<Int>
        var pipeline: MediaPipeline
        var metrics: UnitMetrics?
        var events: UnitEvents?
        var finished = false

        public mutating func next() async throws -> MediaUnit? {
            while true {
                if let unit = pipeline.next() {
                    metrics?.count(unit, pipeline: pipeline)
                    if let tell = events?.tell {
                        for event in events?.watch.watch(unit) ?? [] { tell(event) }
                    }
                    return unit
                }
                if finished { return nil }
                guard let received = try await source.next() else {
                    finished = true
                    pipeline.finish()
                    continue
                }
                // The sender reports that came with the packet date the units from here on: the pipeline's
                // clock is the session's one clock.
                for report in source.takeSenderReports() {
                    pipeline.receiveSenderReport(report.report, track: report.track)
                }
                guard selected.contains(received.track) else { continue }
                pipeline.push(received)
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            source: packets.makeAsyncIterator(for: owner), selected: selected,
            pipeline: MediaPipeline(formats: formats, reorder: reorder, audioReorder: audioReorder, logger: logger),
            metrics: metrics, events: events)
    }

    /// The tracks these units come from, in order.
    public var tracks: [Int] { selected.sorted() }
}

extension RTSPMediaUnits: DescribedTracks {
    /// The format of `track` (an index into ``RTSPSession/tracks``), from the session's SDP.
    public func format(track: Int) -> MediaFormat? { formats.indices.contains(track) ? formats[track] : nil }
}

/// The audio frames of a session's audio tracks, in the order they complete, each naming its track and
/// dated on the sender's wall clock once it has reported. Iterate once.
public struct RTSPAudioFrames: AsyncSequence, Sendable, DescribedTracks {
    public typealias Element = AudioFrame

    let media: RTSPMediaUnits

    public struct AsyncIterator: AsyncIteratorProtocol {
        var media: RTSPMediaUnits.AsyncIterator

        public mutating func next() async throws -> AudioFrame? {
            while let unit = try await media.next() {
                if case .audio(let frame) = unit { return frame }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(media: media.makeAsyncIterator()) }

    /// The tracks these frames come from, in order.
    public var tracks: [Int] { media.tracks }

    /// The format of `track` (an index into ``RTSPSession/tracks``), from the session's SDP.
    public func format(track: Int) -> MediaFormat? { media.format(track: track) }
}

extension RTSPSession {
    /// The video access units and audio frames of the tracks at `indices` into ``tracks`` (nil: every track
    /// set up), in the order they complete. `reorder` holds video packets, `audioReorder` audio packets
    /// (which can be 100 ms apart, so gaps are waited for longer).
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when an index is not that of a track set up, or when another
    ///   sequence of the session's packets was made before (they are read once).
    public func media(
        tracks indices: [Int]? = nil, reorder: ReorderBuffer.Configuration = .init(),
        audioReorder: ReorderBuffer.Configuration = .audio
    ) throws -> RTSPMediaUnits {
        let chosen = indices ?? Array(tracks.indices)
        try checkTracks(chosen, given: indices != nil, call: "media", kind: nil)
        try packets.claim.take(for: "media()")
        return RTSPMediaUnits(
            packets: packets, selected: Set(chosen), formats: tracks.map(\.format), reorder: reorder,
            audioReorder: audioReorder, logger: driver.options.logger, owner: "media()", metrics: unitMetrics,
            events: unitEvents)
    }

    /// The audio frames of the audio tracks at `indices` into ``tracks`` (nil: every audio track set up).
    /// To take a session's video too, iterate ``media(tracks:reorder:audioReorder:)`` instead: a session's
    /// packets have one consumer.
    ///
    /// - Throws: ``RTSPClientError`` `.invalidCall` when an index is not that of an audio track set up, or when
    ///   another sequence of the session's packets was made before (they are read once: use `media()`).
    public func audioFrames(tracks indices: [Int]? = nil, reorder: ReorderBuffer.Configuration = .audio) throws
        -> RTSPAudioFrames
    {
        let chosen = indices ?? tracks.indices.filter { tracks[$0].format.kind == .audio }
        try checkTracks(chosen, given: indices != nil, call: "audioFrames", kind: .audio)
        try packets.claim.take(for: "audioFrames()")
        return RTSPAudioFrames(
            media: RTSPMediaUnits(
                packets: packets, selected: Set(chosen), formats: tracks.map(\.format), reorder: .init(),
                audioReorder: reorder, logger: driver.options.logger, owner: "audioFrames()", metrics: unitMetrics,
                events: unitEvents))
    }

    /// What its consumer's units tell the session's events.
    var unitEvents: RTSPMediaUnits.UnitEvents {
        let driver = driver
        return .init(watch: UnitWatch(clockJumpThreshold: driver.options.clockJumpThreshold)) { driver.tell($0) }
    }

    /// The counters of the units its consumer takes, when the session has metrics.
    var unitMetrics: UnitMetrics? {
        driver.options.metricsName.map { name in
            UnitMetrics(
                session: name, tracks: tracks.count, factory: driver.options.metricsFactory ?? MetricsSystem.factory)
        }
    }

    /// Throws `.invalidCall` unless `chosen` names tracks set up, at least one, each of `kind` when given;
    /// `given` says whether the caller named them (else they are every track of `kind`).
    func checkTracks(_ chosen: [Int], given: Bool, call: String, kind: MediaKind?) throws(RTSPClientError) {
        let range = tracks.isEmpty ? "none" : "tracks 0 to \(tracks.count - 1)"
        guard !chosen.isEmpty else {
            let kinds = tracks.map { "\($0.format.kind)" }.joined(separator: ", ")
            throw RTSPClientError(
                .invalidCall,
                given
                    ? "\(call)(tracks: []) names no track: the session has \(range)"
                    : "the session has no \(kind.map(\.rawValue) ?? "") track (its tracks: \(kinds))")
        }
        let missing = chosen.filter { !tracks.indices.contains($0) }
        guard missing.isEmpty else {
            let which =
                missing.count == 1 ? "track \(missing[0]) was not set up" : "tracks \(missing) were not set up"
            throw RTSPClientError(.invalidCall, "\(which): the session has \(range)")
        }
        if let kind, let other = chosen.first(where: { tracks[$0].format.kind != kind }) {
            let advice =
                kind == .video ? "audioFrames(tracks:) or media(tracks:)" : "accessUnits(tracks:) or media(tracks:)"
            throw RTSPClientError(
                .invalidCall,
                "track \(other) is \(tracks[other].format.kind) (\(tracks[other].format.encodingName)), not \(kind): use \(advice)"
            )
        }
    }
}
