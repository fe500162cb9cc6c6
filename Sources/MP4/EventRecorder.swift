import H26x
import MediaPipeline
import SDP

/// Records only events, each with the seconds before it: the last ``Configuration/preRoll`` of the stream is kept
/// in memory as whole groups of pictures (each from a keyframe), so that ``start(emit:)`` writes them first and
/// goes on recording; ``stop()`` ends the event ``Configuration/postRoll`` later. Each event is a recording of its
/// own (its initialization segment first: with `MP4FileRecorder(path:segmented: true)`, a file each).
///
/// ```swift
/// var recorder = EventRecorder(formats: session.tracks.map(\.format), configuration: .init(preRoll: .seconds(10)))
/// for try await unit in try session.media() {
///     if motionDetected { try recorder.start(emit: write) }   // the 10 s before, then on
///     if motionEnded { recorder.stop() }                       // 5 s more (postRoll), then held again
///     try recorder.append(unit, emit: write)
/// }
/// try recorder.finish(emit: write)
/// ```
///
/// Time is the stream's: the video track's RTP time (the first track's without video), so the pre-roll is what
/// was captured, not what arrived. Memory is bounded: the held groups are at most ``Configuration/maxPreRollBytes``
/// (the oldest go first, never the one being filled), whatever the pre-roll.
public struct EventRecorder: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// How much of the stream before an event is written with it (rounded out to the keyframe before).
        public var preRoll: Duration
        /// How much of the stream after ``EventRecorder/stop()`` is written before the event's recording ends.
        public var postRoll: Duration
        /// The most bytes of media held for the pre-roll. Default 64 MiB (about 50 s of a 10 Mbit/s camera).
        public var maxPreRollBytes: Int
        /// How each event's recording is written (fragments, segments, damaged pictures).
        public var writer: FragmentedMP4Writer.Configuration

        public init(
            preRoll: Duration, postRoll: Duration = .seconds(5), maxPreRollBytes: Int = 64 << 20,
            writer: FragmentedMP4Writer.Configuration = .init()
        ) {
            self.preRoll = max(.zero, preRoll)
            self.postRoll = max(.zero, postRoll)
            self.maxPreRollBytes = max(0, maxPreRollBytes)
            self.writer = writer
        }
    }

    /// A group of pictures held for the pre-roll: a keyframe of the leading track and what came after it.
    private struct Group: Sendable {
        let start: Double
        var units: [MediaUnit]
        var bytes: Int
    }

    public let configuration: Configuration
    private var tracks: [(track: Int, format: MediaFormat)] = []
    private var held: [Group] = []
    /// The track whose time the recorder keeps: the first video track, else the first track.
    private var leader: Int?
    /// The event being recorded, and where its post-roll ends (seconds of the leading track) once stopped.
    private var writer: FragmentedMP4Writer?
    private var stopsAt: Double?
    /// The latest time of the leading track.
    private var latest: Double?
    private var finished = FragmentedMP4Writer.Statistics()

    /// Events started so far.
    public private(set) var events = 0
    /// Units dropped before the first keyframe of the leading track (no group to hold them).
    public private(set) var unitsBeforeKeyframe = 0
    /// The bytes of media held now: each picture's NAL units with their 4-byte start codes (a JPEG's file), each
    /// audio frame's bytes.
    public private(set) var preRollBytes = 0
    /// Whether an event is being recorded (its post-roll included).
    public var isRecording: Bool { writer != nil }

    /// A recorder of the given tracks (each by its index in the units' source, as FragmentedMP4Writer's); more may be
    /// added with ``addTrack(_:format:)``.
    public init(tracks: [(track: Int, format: MediaFormat)] = [], configuration: Configuration) {
        self.configuration = configuration
        for track in tracks { try? addTrack(track.track, format: track.format) }
    }

    /// A recorder of every track `formats` describes, by their index in it.
    public init(formats: [MediaFormat], configuration: Configuration) {
        self.init(tracks: formats.enumerated().map { ($0.offset, $0.element) }, configuration: configuration)
    }

    /// Records `track` too, from the next event (and in the current one, until it has started writing).
    /// - Throws: ``MP4Error`` for a format MP4 does not carry.
    public mutating func addTrack(_ track: Int, format: MediaFormat) throws(MP4Error) {
        if let problem = FragmentedMP4Writer.problem(recording: format) { throw problem }
        guard !tracks.contains(where: { $0.track == track }) else { return }
        tracks.append((track, format))
        leader = (tracks.first(where: { $0.format.kind == .video }) ?? tracks.first)?.track
        try? writer?.addTrack(track, format: format)
    }

    /// What the recordings so far hold: the finished events' and the current one's.
    public var statistics: FragmentedMP4Writer.Statistics {
        var total = finished
        if let current = writer?.statistics { total.add(current) }
        return total
    }

    /// The latest problem of the current event's writer.
    public var lastError: MP4Error? { writer?.lastError }

    /// Takes a unit: into the current event, or held for the next one's pre-roll. `emit` receives what is ready to
    /// be written (an event's last fragment when its post-roll ends here).
    public mutating func append(_ unit: MediaUnit, emit: (MP4Output) throws -> Void) rethrows {
        guard tracks.contains(where: { $0.track == unit.track }) else { return }
        let leads = unit.track == leader
        let time = Double(unit.timestamp) / Double(max(1, unit.clockRate))
        if leads { latest = time }
        // Taken out while it works, so that its buffers are not copied on write for every unit.
        if var writer = self.writer.take() {
            if leads, let stopsAt, time >= stopsAt {
                self.stopsAt = nil
                try writer.finish(emit: emit)
                finished.add(writer.statistics)
            } else {
                defer { self.writer = writer }
                try writer.append(unit, emit: emit)
                return
            }
        }
        hold(unit, leads: leads, at: time)
    }

    /// An event begins: what is held (the pre-roll, from a keyframe) is written, and what comes next. During an
    /// event's post-roll, it goes on instead (the stop is forgotten).
    public mutating func start(emit: (MP4Output) throws -> Void) rethrows {
        if writer != nil {
            stopsAt = nil
            return
        }
        var writer = FragmentedMP4Writer(tracks: tracks, configuration: configuration.writer)
        events += 1
        let groups = held
        held = []
        preRollBytes = 0
        for group in groups {
            for unit in group.units { try writer.append(unit, emit: emit) }
        }
        self.writer = writer
    }

    /// The event ends ``Configuration/postRoll`` from now (the stream's latest time); at once without a post-roll.
    /// Nothing happens without an event.
    public mutating func stop() {
        guard writer != nil, stopsAt == nil else { return }
        stopsAt = (latest ?? 0) + configuration.postRoll.seconds
    }

    /// The end of the stream: the current event's last fragment. What is held is dropped.
    public mutating func finish(emit: (MP4Output) throws -> Void) rethrows {
        if var writer {
            try writer.finish(emit: emit)
            finished.add(writer.statistics)
        }
        writer = nil
        stopsAt = nil
        held = []
        preRollBytes = 0
    }

    /// Holds a unit for the pre-roll: a keyframe of the leading video track (any unit of a leading audio track)
    /// begins a group; the oldest groups go once the next one alone covers the pre-roll, or past the byte bound.
    private mutating func hold(_ unit: MediaUnit, leads: Bool, at time: Double) {
        // Held in buffers of their own: a held unit costs its bytes, not the depacketizer's or the packet's buffer.
        let kept: MediaUnit
        let bytes: Int
        let startsGroup: Bool
        switch unit {
        case .video(let picture):
            let compact = picture.compacted()
            (kept, bytes) = (.video(compact), compact.payloadSize + 4 * compact.nalUnits.count)
            startsGroup = leads && picture.isKeyframe && picture.isComplete
        case .audio(let frame):
            (kept, bytes) = (.audio(frame.compacted()), frame.bytes.count)
            startsGroup = leads && held.isEmpty
        case .metadata, .raw:
            return
        }
        if startsGroup {
            held.append(Group(start: time, units: [], bytes: 0))
        }
        guard !held.isEmpty else {
            unitsBeforeKeyframe += 1
            return
        }
        held[held.count - 1].units.append(kept)
        held[held.count - 1].bytes += bytes
        preRollBytes += bytes
        let preRoll = configuration.preRoll.seconds
        while held.count > 1,
            (latest ?? time) - held[1].start >= preRoll || preRollBytes > configuration.maxPreRollBytes
        {
            preRollBytes -= held.removeFirst().bytes
        }
    }
}

extension FragmentedMP4Writer.Statistics {
    /// Adds another recording's counts.
    mutating func add(_ other: Self) {
        segments += other.segments
        fragments += other.fragments
        videoSamples += other.videoSamples
        audioSamples += other.audioSamples
        unitsBeforeStart += other.unitsBeforeStart
        droppedVideo += other.droppedVideo
        unitsOfOtherTracks += other.unitsOfOtherTracks
        changesInBand += other.changesInBand
    }
}

extension Duration {
    /// In seconds.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
