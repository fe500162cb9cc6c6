import H26x
import Logging
import RTP

/// What a pipeline tells its logger: the first of each kind of anomaly per track (a loss, a change of
/// source, a camera quirk, a packet of a kind that is dropped, a change of parameter sets), at a level that
/// fits, naming where the rest are counted. A stream that loses a packet a second does not fill the log.
struct AnomalyLog: Sendable {
    /// The counts of each track when last looked at.
    struct Counts: Sendable {
        var lost = 0
        var sourceChanges = 0
        var restarts = 0
        var late = 0
        var duplicates = 0
        var malformed = 0
        var unsupported = 0
        var droppedNALUnits = 0
        var droppedFrames = 0
        var unplayable = 0
        var quirks = 0
        var otherPayloadType = 0
        var parameterSetUnits = 0
        var timestampJumps = 0
    }

    let logger: Logger
    private var counts: [Counts]
    private var unknownTrackLogged = false

    init(logger: Logger, tracks: Int) {
        self.logger = logger
        counts = Array(repeating: Counts(), count: tracks)
    }

    /// A track added after the start.
    mutating func addTrack() { counts.append(Counts()) }

    /// After a push: logs each kind the track met for the first time.
    mutating func look(at track: Int, reorder: ReorderBuffer, depacketizer: Depacketizer, timestampJumps: Int) {
        let before = counts[track]
        var now = before
        (now.lost, now.sourceChanges, now.restarts) = (reorder.lost, reorder.sourceChanges, reorder.restarts)
        (now.late, now.duplicates) = (reorder.late, reorder.duplicates)
        if let statistics = depacketizer.videoStatistics {
            (now.malformed, now.unsupported) = (statistics.malformedPackets, statistics.unsupportedPackets)
            (now.droppedNALUnits, now.quirks) = (statistics.droppedNALUnits, statistics.quirks)
            now.otherPayloadType = statistics.otherPayloadTypePackets
        } else if let statistics = depacketizer.audio?.statistics {
            (now.malformed, now.droppedFrames) = (statistics.malformedPackets, statistics.droppedFrames)
            now.otherPayloadType = statistics.otherPayloadTypePackets
        }
        now.unplayable = depacketizer.droppedPackets
        now.timestampJumps = timestampJumps
        counts[track] = now
        func first(_ path: KeyPath<Counts, Int>) -> Bool { before[keyPath: path] == 0 && now[keyPath: path] > 0 }
        let metadata: Logger.Metadata = ["track": "\(track)"]
        if first(\.lost) {
            logger.notice(
                "track \(track): \(now.lost) packet(s) never came and were given up as lost (further losses are counted, not logged)",
                metadata: metadata)
        }
        if first(\.sourceChanges) {
            logger.notice(
                "track \(track): the sender changed its SSRC; the track goes on from a discontinuity (further changes are counted)",
                metadata: metadata)
        } else if first(\.restarts) {
            logger.notice(
                "track \(track): the sequence numbers jumped and the sender restarted; the track goes on from a discontinuity",
                metadata: metadata)
        }
        if first(\.timestampJumps) {
            logger.notice(
                "track \(track): the sender's timestamps jumped by more than the bound in an unbroken stream; the units go on from a new run (further jumps are counted)",
                metadata: metadata)
        }
        if first(\.late) || first(\.duplicates) {
            logger.debug(
                "track \(track): a packet came too late or twice and was dropped (further ones are counted)",
                metadata: metadata)
        }
        if first(\.malformed) || first(\.unsupported) {
            let reason = depacketizer.lastError.map { ": \("\($0)".escapingControlCharacters)" } ?? ""
            logger.warning(
                "track \(track): a packet's payload could not be taken apart and was skipped\(reason)",
                metadata: metadata)
        }
        if first(\.droppedNALUnits) {
            logger.notice(
                "track \(track): a NAL unit missing a fragment was dropped, never spliced (further ones are counted)",
                metadata: metadata)
        }
        if first(\.droppedFrames) {
            logger.notice(
                "track \(track): an audio frame missing a piece was left out, never spliced (further ones are counted)",
                metadata: metadata)
        }
        if first(\.unplayable), case .unplayable(let reason) = depacketizer.payload {
            logger.warning(
                "track \(track): its packets are dropped: \(reason.escapingControlCharacters)", metadata: metadata)
        }
        if first(\.quirks) {
            logger.info(
                "track \(track): the sender bends RFC 6184 / 7798 in a way this library knows and takes (counted in quirks)",
                metadata: metadata)
        }
        if first(\.otherPayloadType) {
            logger.info(
                "track \(track): packets of another payload type than the SDP's are skipped (counted)",
                metadata: metadata)
        }
    }

    /// A unit handed on: the second time a track's parameter sets change (the first is the stream's first
    /// sets), the stream changed its settings (size, profile) on the way.
    mutating func handedOn(_ unit: AccessUnit) {
        guard unit.parameterSetsChanged, counts.indices.contains(unit.track) else { return }
        counts[unit.track].parameterSetUnits += 1
        if counts[unit.track].parameterSetUnits == 2 {
            logger.info(
                "track \(unit.track): the stream's parameter sets changed (a new size or profile); decoders follow them",
                metadata: ["track": "\(unit.track)"])
        }
    }

    mutating func unknownTrack(_ track: Int) {
        guard !unknownTrackLogged else { return }
        unknownTrackLogged = true
        logger.warning(
            "a packet of track \(track), which the pipeline does not have, was dropped (further ones are counted)")
    }
}
