import H26x
import RTP
import SDP

/// One track of a recording: how its units' timestamps map to the file's timeline, and the samples (and
/// their bytes) waiting for the next fragment.
struct RecordedTrack: Sendable {
    /// A sample waiting for its fragment.
    struct Sample: Sendable {
        /// Presentation time in the track's timescale, from the start of the recording.
        var time: Int64
        /// Audio: its samples' duration in ticks. Video: found when the fragment closes (0 until then).
        var duration: Int64
        var size: Int
        var isSync: Bool
    }

    /// The track's ID in the file (1, 2, ...).
    let id: UInt32
    /// The track it records, by index in the units' source.
    let source: Int
    let format: MediaFormat
    var description: SampleDescription?
    /// H.264 and H.265: every parameter set seen, from the SDP and in band.
    var parameterSets: ParameterSets?

    /// A unit timestamp and the time on the track's timeline it maps to, once the track has started.
    var base: (timestamp: UInt64, time: Int64)?
    /// The earliest decode time the next sample may have.
    var nextDecodeTime: Int64 = 0
    /// The duration of the last sample written, for the next fragment's last.
    var lastDuration: Int64 = 0
    /// Video: dropping until a keyframe (the start, a damaged picture, a break).
    var waitsForKeyframe = true
    /// Video: whether presentation times have gone backwards (B-frames): decode times then come from them
    /// sorted, and fragments start at keyframes only.
    var isReordered = false
    /// Video: where on its timeline the last change of the stream started a new file.
    var lastChangeCut: Int64?
    /// Video: a change was kept in the current file: parameter sets go in band before each keyframe.
    var parameterSetsInBand = false
    private var latestTime: Int64?
    /// How far the latest presentation time last moved up: a picture's duration before the fragment that knows it.
    private var latestStep: Int64 = 0

    var samples: [Sample] = []
    /// The samples' bytes back to back, as they go in the `mdat`.
    var data: [UInt8] = []
    /// The first sample of the fragment whose sender's wall clock is known, for the `prft`.
    var wallClock: (time: Int64, wallClock: WallClockTime)?

    init(id: UInt32, source: Int, format: MediaFormat) {
        self.id = id
        self.source = source
        self.format = format
        if let video = format.videoFormat, video.codec.isH26x {
            var sets = ParameterSets(codec: video.codec)
            for (name, value) in video.parameterSetAttributes { _ = sets.addValid(sdpParameter: name, value: value) }
            parameterSets = sets
        }
    }

    var isVideo: Bool { format.kind == .video }
    var timescale: Int { description?.timescale ?? format.clockRate }

    /// Where `timestamp` falls on the track's timeline (nil before the track has started).
    func time(of timestamp: UInt64) -> Int64? {
        base.map { Int64(bitPattern: timestamp &- $0.timestamp) + $0.time }
    }

    /// Keeps the parameter sets `picture` carries; returns whether one is new or changed.
    mutating func noteParameterSets(of picture: AccessUnit) -> Bool {
        guard parameterSets != nil else { return false }
        var changed = false
        for nal in picture.nalUnits where nal.isParameterSet {
            changed = (parameterSets?.update(nal) ?? false) || changed
        }
        return changed
    }

    /// Takes a sample; `write` appends its bytes to ``data``.
    mutating func add(
        time: Int64, duration: Int64, isSync: Bool, wallClock: WallClockTime?, write: (inout [UInt8]) -> Void
    ) {
        let before = data.count
        write(&data)
        samples.append(Sample(time: time, duration: duration, size: data.count - before, isSync: isSync))
        if let latestTime, time < latestTime { isReordered = true }
        if let latestTime, time > latestTime { latestStep = time - latestTime }
        latestTime = max(latestTime ?? time, time)
        if self.wallClock == nil, let wallClock { self.wallClock = (time, wallClock) }
    }

    /// The end of what has been taken: the latest presentation time and its duration.
    var endTime: Int64 {
        guard let latestTime else { return nextDecodeTime }
        return latestTime + max(lastDuration, samples.last?.duration ?? 0)
    }

    /// Where a unit that follows the latest goes (after a break or a jump): the end of what has been taken, a
    /// video picture's duration being, before its fragment closes, the step to it from the one before.
    var followingTime: Int64 {
        guard let latestTime else { return nextDecodeTime }
        let duration = max(lastDuration, samples.last?.duration ?? 0)
        return latestTime + (duration > 0 ? duration : latestStep)
    }

    /// Ticks in `duration` at the track's timescale.
    /// (Saturating: a configured duration of any length is a number of ticks, never an overflow.)
    func ticks(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: Int64(timescale))
        if overflow { return seconds < 0 ? .min / 2 : .max / 2 }
        return max(.min / 2, min(.max / 2, whole)) + Int64(Double(attoseconds) / 1e18 * Double(timescale))
    }

    /// The pending samples' duration so far, in ticks.
    var pendingDuration: Int64 {
        guard let first = samples.first, let latestTime else { return 0 }
        return latestTime - first.time
    }

    /// Forgets the pending samples once written (the buffers' capacity is kept).
    mutating func clearPending() {
        samples.removeAll(keepingCapacity: true)
        data.removeAll(keepingCapacity: true)
        wallClock = nil
    }
}
