import Audio
import H26x
import MediaPipeline
import RTP
import SDP

/// What a ``FragmentedMP4Writer`` gives, in the order it is to be written.
public enum MP4Output: Sendable {
    /// An initialization segment (`ftyp`, `moov`): the start of a file. Every one after the first starts a
    /// new file (a new MSE initialization segment): the segment duration was reached, or a video track's
    /// parameter sets or picture size changed.
    case initialization([UInt8])
    /// A fragment (`prft` when the sender's wall clock is known, `moof`, `mdat`), in parts written one after
    /// the other. Playable once written: a file cut after any fragment plays up to it.
    case fragment([ArraySlice<UInt8>])
}

/// Records media units to fragmented MP4 (ISO BMFF): H.264, H.265 and Motion JPEG video; AAC, Opus and
/// G.711 audio. Sans I/O: units in, ``MP4Output`` out (``MP4FileRecorder`` writes them to files).
///
/// The recording starts at the first keyframe (every video track's, when there are several); what comes
/// before is dropped. The tracks are lined up by the senders' wall clocks when their reports have come,
/// else from their first units. A fragment closes at the first video track's keyframe once
/// ``Configuration/fragmentDuration`` has passed (at any picture, twice that, when the stream has no
/// B-frames; at any frame for audio alone); a segment (a new file) at such a keyframe once
/// ``Configuration/segmentDuration`` has passed. A damaged picture (packets lost) is left out with what
/// follows it up to the next keyframe, unless ``Configuration/keepsDamagedVideo``: a player then shows
/// the last good picture for longer rather than a smeared one. Lost audio leaves a gap in the timeline.
public struct FragmentedMP4Writer: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// How long a fragment runs before it closes at the next keyframe: what a process killed
        /// mid-recording loses at most, about. Default 1 s.
        public var fragmentDuration: Duration
        /// How long a segment (a file) runs before the next keyframe starts another; nil: one file, cut
        /// only where the stream changes. Default nil.
        public var segmentDuration: Duration?
        /// Whether damaged pictures are written as they are. Default false.
        public var keepsDamagedVideo: Bool
        /// A fragment closes, wherever it is, when its samples reach this many bytes. Default 32 MiB.
        public var maxFragmentBytes: Int
        /// Whether the recording waits for a video keyframe even before a video track is added (a source
        /// whose tracks show up as their packets come). Default false: audio alone starts at once.
        public var waitsForVideo: Bool
        /// A change of a video track's parameter sets or picture size starts a new file at most this often:
        /// a change closer than that to the last one that did stays in the file, the parameter sets written in
        /// band before each keyframe (a camera that flaps between two would otherwise make a file per picture).
        /// Default 10 s.
        public var changeSegmentInterval: Duration

        public init(
            fragmentDuration: Duration = .seconds(1), segmentDuration: Duration? = nil, keepsDamagedVideo: Bool = false,
            maxFragmentBytes: Int = 32 << 20, waitsForVideo: Bool = false,
            changeSegmentInterval: Duration = .seconds(10)
        ) {
            self.changeSegmentInterval = changeSegmentInterval
            self.fragmentDuration = fragmentDuration
            self.segmentDuration = segmentDuration
            self.keepsDamagedVideo = keepsDamagedVideo
            self.maxFragmentBytes = maxFragmentBytes
            self.waitsForVideo = waitsForVideo
        }
    }

    /// What has been recorded.
    public struct Statistics: Sendable, Hashable {
        /// Initialization segments written: files, when each starts one.
        public var segments = 0
        public var fragments = 0
        public var videoSamples = 0
        public var audioSamples = 0
        /// Units before the recording started (waiting for a keyframe) or before a track's first keyframe.
        public var unitsBeforeStart = 0
        /// Pictures left out: damaged, or after a damaged one until the next keyframe.
        public var droppedVideo = 0
        /// Units of tracks not recorded.
        public var unitsOfOtherTracks = 0
        /// Changes of a video track's parameter sets or picture size kept in the file (closer than
        /// ``Configuration/changeSegmentInterval`` to the last that started one).
        public var changesInBand = 0

        /// Nothing recorded yet.
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var statistics = Statistics()
    /// The last problem with a track (parameter sets that make no sample entry), if any.
    public private(set) var lastError: MP4Error?

    private var tracks: [RecordedTrack] = []
    /// The track whose keyframes cut fragments and segments: the first video track, else the first.
    private var leader = 0
    private var started = false
    private var sequence: UInt32 = 0
    /// The leader's time where the current segment started.
    private var segmentStart: Int64 = 0
    /// The first unit's wall clock, which the other tracks are lined up with.
    private var origin: WallClockTime?
    private var header = BoxWriter(reservingCapacity: 4096)

    /// A writer of the given tracks, each by its index in the units' source (an RTSP session's tracks, a
    /// pipeline's) and its format. A track MP4 does not carry (G.722, G.726, data) or whose configuration
    /// does not read is left out, in ``tracksLeftOut``, and the others are recorded. More may be added until
    /// the recording starts (``addTrack(_:format:)``).
    public init(tracks: [(track: Int, format: MediaFormat)] = [], configuration: Configuration = Configuration()) {
        self.configuration = configuration
        for track in tracks {
            do throws(MP4Error) {
                try addTrack(track.track, format: track.format)
            } catch {
                tracksLeftOut.append((track.track, error))
            }
        }
    }

    /// A writer of every track `formats` describes, by their index in it (an RTSP session's
    /// `tracks.map(\.format)`), as ``init(tracks:configuration:)``.
    public init(formats: [MediaFormat], configuration: Configuration = Configuration()) {
        self.init(tracks: formats.enumerated().map { ($0.offset, $0.element) }, configuration: configuration)
    }

    /// The tracks given at the start that are not recorded, each with the reason.
    public private(set) var tracksLeftOut: [(track: Int, problem: MP4Error)] = []

    /// Records the units of `track` (an index in the units' source) too, as `format` says. Only until the
    /// recording starts (its first initialization segment): later, the track is refused.
    /// - Throws: ``MP4Error`` as ``init(tracks:configuration:)``, and `.unsupportedCodec` once started.
    public mutating func addTrack(_ track: Int, format: MediaFormat) throws(MP4Error) {
        guard !started else {
            throw MP4Error(
                .unsupportedCodec,
                "track \(track) came after the recording started: an MP4's tracks are set at its start")
        }
        guard !tracks.contains(where: { $0.source == track }) else { return }
        var entry = RecordedTrack(id: UInt32(tracks.count + 1), source: track, format: format)
        entry.description = try SampleDescription.before(format)
        tracks.append(entry)
        leader = tracks.firstIndex(where: \.isVideo) ?? 0
    }

    /// Whether the recording has started: its first initialization segment is out.
    public var hasStarted: Bool { started }

    /// Why `format` cannot be recorded, or nil when it can (an AAC track's configuration is checked too).
    public static func problem(recording format: MediaFormat) -> MP4Error? {
        do throws(MP4Error) {
            _ = try SampleDescription.before(format)
            return nil
        } catch {
            return error
        }
    }

    /// Takes a unit; `emit` receives what is ready to be written.
    public mutating func append(_ unit: MediaUnit, emit: (MP4Output) throws -> Void) rethrows {
        guard let index = tracks.firstIndex(where: { $0.source == unit.track }) else {
            statistics.unitsOfOtherTracks += 1
            return
        }
        if case .video(let picture) = unit {
            try appendVideo(picture, index: index, emit: emit)
        } else if case .audio(let frame) = unit {
            try appendAudio(frame, index: index, emit: emit)
        } else {
            statistics.unitsOfOtherTracks += 1
        }
    }

    /// Writes what is pending: the last fragment.
    public mutating func finish(emit: (MP4Output) throws -> Void) rethrows {
        try flush(emit: emit)
    }

    // MARK: Video

    private mutating func appendVideo(_ picture: AccessUnit, index: Int, emit: (MP4Output) throws -> Void) rethrows {
        let changed = tracks[index].noteParameterSets(of: picture)
        if picture.isDiscontinuity {
            rebase(index, at: picture.timestamp)
        } else if picture.isTimestampJump {
            jump(index, at: picture.timestamp)
        }
        let damaged = picture.lostPackets > 0 && !configuration.keepsDamagedVideo
        if damaged || (tracks[index].waitsForKeyframe && !picture.isKeyframe) {
            tracks[index].waitsForKeyframe = true
            if started && tracks[index].base != nil {
                statistics.droppedVideo += 1
            } else {
                statistics.unitsBeforeStart += 1
            }
            return
        }
        if picture.isKeyframe {
            if tracks[index].description == nil || changed || picture.codec == .jpeg {
                guard let description = describe(picture, index: index) else {
                    statistics.unitsBeforeStart += 1
                    return
                }
                if description != tracks[index].description {
                    if started && tracks[index].description != nil {
                        try change(index, to: description, at: tracks[index].time(of: picture.timestamp), emit: emit)
                    } else {
                        tracks[index].description = description
                    }
                }
            }
            if !started {
                guard tracks.allSatisfy({ !$0.isVideo || $0.description != nil }) else {
                    statistics.unitsBeforeStart += 1  // and this track waits for its next keyframe
                    return
                }
                try start(emit: emit)
            } else if index == leader {
                try cutAtKeyframe(time: tracks[index].time(of: picture.timestamp), emit: emit)
            }
        }
        guard let time = place(index, timestamp: picture.timestamp, wallClock: picture.captureTime) else {
            statistics.unitsBeforeStart += 1
            return
        }
        tracks[index].waitsForKeyframe = false
        if index == leader, !picture.isKeyframe, !tracks[index].isReordered,
            tracks[index].pendingDuration >= 2 * tracks[index].ticks(configuration.fragmentDuration)
        {
            try flush(emit: emit)
        }
        let sets = tracks[index].parameterSets ?? ParameterSets(codec: picture.codec)
        let format = tracks[index].parameterSetsInBand ? Self.inBandSampleFormat : Self.sampleFormat
        tracks[index].add(time: time, duration: 0, isSync: picture.isKeyframe, wallClock: picture.captureTime) { data in
            format.write(picture, parameterSets: sets, into: &data)
        }
        statistics.videoSamples += 1
        if tracks[index].data.count >= configuration.maxFragmentBytes { try flush(emit: emit) }
    }

    /// A sample as `avcC` / `hvcC` say (NAL units after 4-byte lengths; the parameter sets are the sample
    /// entry's); a JPEG picture as its file.
    private static let sampleFormat = ElementaryStreamWriter(
        framing: .lengthPrefixed(size: 4), insertParameterSets: false)
    /// The same, with the parameter sets before each keyframe that lacks them: a change kept in the file.
    private static let inBandSampleFormat = ElementaryStreamWriter(
        framing: .lengthPrefixed(size: 4), insertParameterSets: true)

    /// A video track's stream changed (new parameter sets, a new picture size) at `time`: a new file with the new
    /// sample entry, unless the last change that made one is closer than ``Configuration/changeSegmentInterval``;
    /// then the change stays in this file, its parameter sets in band.
    private mutating func change(
        _ index: Int, to description: SampleDescription, at time: Int64?, emit: (MP4Output) throws -> Void
    ) rethrows {
        if let last = tracks[index].lastChangeCut, let time,
            time - last < tracks[index].ticks(configuration.changeSegmentInterval)
        {
            tracks[index].parameterSetsInBand = true
            statistics.changesInBand += 1
            return
        }
        tracks[index].description = description
        tracks[index].lastChangeCut = time
        tracks[index].parameterSetsInBand = false
        try startSegment(emit: emit)
    }

    /// The sample description a keyframe makes, or nil (the problem in ``lastError``).
    private mutating func describe(_ picture: AccessUnit, index: Int) -> SampleDescription? {
        do throws(MP4Error) {
            if let jpeg = picture.jpeg {
                guard let size = JPEGFrameSize(jpeg) else {
                    throw MP4Error(.invalidConfiguration, "a JPEG picture has no frame header that reads")
                }
                return .jpeg(width: size.width, height: size.height)
            }
            guard let sets = tracks[index].parameterSets else { return nil }
            return try .h26x(sets)
        } catch {
            lastError = error
            return nil
        }
    }

    // MARK: Audio

    private mutating func appendAudio(_ frame: AudioFrame, index: Int, emit: (MP4Output) throws -> Void) rethrows {
        if !started {
            guard !configuration.waitsForVideo && !tracks.contains(where: \.isVideo) else {
                statistics.unitsBeforeStart += 1
                return
            }
            try start(emit: emit)
        }
        if frame.isDiscontinuity {
            rebase(index, at: frame.timestamp)
        } else if frame.isTimestampJump {
            jump(index, at: frame.timestamp)
        }
        guard let time = place(index, timestamp: frame.timestamp, wallClock: frame.captureTime) else {
            statistics.unitsBeforeStart += 1
            return
        }
        let track = tracks[index]
        // The frame's samples in ticks of the track's clock (G.711 and AAC: the same; Opus: 48 kHz both).
        let rate = track.format.audioFormat?.sampleRate ?? track.timescale
        let duration = Int64(frame.sampleCount) * Int64(track.timescale) / Int64(max(1, rate))
        // Audio alone: fragments by time. Beside video whose pictures stopped: not past a bound either.
        let bound =
            index == leader ? configuration.fragmentDuration : max(.seconds(10), configuration.fragmentDuration * 4)
        if track.pendingDuration >= track.ticks(bound) { try flush(emit: emit) }
        tracks[index].add(time: time, duration: duration, isSync: true, wallClock: frame.captureTime) {
            $0.append(contentsOf: frame.bytes)
        }
        statistics.audioSamples += 1
        if tracks[index].data.count >= configuration.maxFragmentBytes { try flush(emit: emit) }
    }

    // MARK: Timeline

    /// Where a unit falls on its track's timeline: the track starts with its first unit, at the time its
    /// wall clock says from the recording's start (nil for a unit before the start). A wall clock more than
    /// ``maxClockDisagreement`` from the start's is not believed (a camera whose audio reports another clock):
    /// the track then starts where the first track is.
    private mutating func place(_ index: Int, timestamp: UInt64, wallClock: WallClockTime?) -> Int64? {
        if let time = tracks[index].time(of: timestamp) { return time >= 0 ? time : nil }
        let timescale = Double(tracks[index].timescale)
        var start = Int64(0)
        if index != leader, tracks[leader].base != nil {
            let leaderTrack = tracks[leader]
            start = Int64((Double(leaderTrack.endTime) / Double(leaderTrack.timescale) * timescale).rounded())
        }
        if let wallClock, let origin {
            let seconds = wallClock.secondsSince1970 - origin.secondsSince1970
            if abs(seconds) <= Self.maxClockDisagreement {
                guard seconds >= 0 else { return nil }
                start = Int64((seconds * timescale).rounded())
            }
        }
        if origin == nil { origin = wallClock }
        tracks[index].base = (timestamp, start)
        return start
    }

    /// The most, in seconds, a track's first unit may be from the recording's start by the senders' wall
    /// clocks for them to be believed.
    static let maxClockDisagreement = 10.0

    /// After a break (a reconnect, a new source) the track's timestamps start over: they go on from where
    /// the track's timeline is.
    private mutating func rebase(_ index: Int, at timestamp: UInt64) {
        guard tracks[index].base != nil else { return }
        tracks[index].base = (timestamp, tracks[index].followingTime)
        if tracks[index].isVideo { tracks[index].waitsForKeyframe = true }
    }

    /// The sender's clock jumped in an unbroken stream (``MediaUnit/isTimestampJump``): a step forward is kept
    /// (the timeline has the gap, once); a step back goes on from where the track is, so that nothing after it
    /// falls before the recording's start or behind what was written. Nothing is dropped: the pictures before
    /// are still the references of those after.
    private mutating func jump(_ index: Int, at timestamp: UInt64) {
        guard tracks[index].base != nil else { return }
        let next = tracks[index].followingTime
        if let time = tracks[index].time(of: timestamp), time >= next { return }
        tracks[index].base = (timestamp, next)
    }

    // MARK: Fragments and segments

    private mutating func start(emit: (MP4Output) throws -> Void) rethrows {
        started = true
        try emit(.initialization(initialization()))
        statistics.segments += 1
    }

    private func initialization() -> [UInt8] {
        InitializationSegment.bytes(tracks: tracks.compactMap { track in track.description.map { (track.id, $0) } })
    }

    /// At the leader's keyframe: a new segment, or a new fragment, when their time has come.
    private mutating func cutAtKeyframe(time: Int64?, emit: (MP4Output) throws -> Void) rethrows {
        let leaderTrack = tracks[leader]
        if let segment = configuration.segmentDuration, let time, time - segmentStart >= leaderTrack.ticks(segment) {
            return try startSegment(emit: emit)
        }
        if leaderTrack.pendingDuration >= leaderTrack.ticks(configuration.fragmentDuration) { try flush(emit: emit) }
    }

    private mutating func startSegment(emit: (MP4Output) throws -> Void) rethrows {
        try flush(emit: emit)
        try emit(.initialization(initialization()))
        statistics.segments += 1
        segmentStart = tracks[leader].nextDecodeTime
    }

    /// Writes every track's pending samples as one fragment.
    private mutating func flush(emit: (MP4Output) throws -> Void) rethrows {
        var runs: [MediaFragment.Run] = []
        for index in tracks.indices { runs += MediaFragment.runs(of: &tracks[index], index: index) }
        guard !runs.isEmpty else { return }
        let clocked = tracks[leader].wallClock != nil ? leader : tracks.indices.first { tracks[$0].wallClock != nil }
        let wallClock = clocked.flatMap { i in tracks[i].wallClock.map { (tracks[i].id, $0.time, $0.wallClock) } }
        sequence &+= 1
        header.bytes.removeAll(keepingCapacity: true)
        MediaFragment.header(sequence: sequence, runs: runs, wallClock: wallClock, into: &header)
        var parts = [header.bytes[...]]
        for run in runs { parts.append(tracks[run.track].data[run.bytes]) }
        try emit(.fragment(parts))
        statistics.fragments += 1
        for index in tracks.indices { tracks[index].clearPending() }
    }
}
