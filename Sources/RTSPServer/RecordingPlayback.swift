import MP4
@_spi(SansIO) import RTSP
import MediaPipeline
import RTP
import SDP

/// One MP4 recording served on demand: each PLAY gets its own source, fed from the keyframe at or before the time
/// asked, paced by the wall clock (faster by its `Scale`), each unit dated with the recording's own wall clock
/// (its `prft` boxes) so that the sender reports tell when it was recorded.
struct RecordingPlayback: Sendable {
    let reader: MP4FileReader
    /// The file's tracks that are served, in the presentation's order.
    let served: [Int]
    let formats: [MediaFormat]
    /// Seconds from the earliest track's start to the latest track's end.
    let duration: Double
    /// The wall-clock times of the video's (else the first track's) start and end, when the recording has a wall
    /// clock.
    let recordedFrom: WallClockTime?
    let recordedUntil: WallClockTime?

    /// Nil when the file has no track this library serves.
    init?(_ reader: MP4FileReader) {
        let tracks = reader.index.tracks
        served = tracks.indices.filter { reader.mediaFormat(track: $0) != nil && !tracks[$0].samples.isEmpty }
        guard !served.isEmpty else { return nil }
        self.reader = reader
        formats = served.compactMap { reader.mediaFormat(track: $0) }
        duration =
            served.map { index in
                let track = tracks[index]
                return track.seconds(at: track.presentationRange?.upperBound ?? track.presentationStart)
            }.max() ?? 0
        let range = (served.first { tracks[$0].kind == .video } ?? served.first).flatMap { index in
            tracks[index].presentationRange.map { (tracks[index].id, $0) }
        }
        recordedFrom = range.flatMap { reader.index.wallClock(atMediaTime: $0.1.lowerBound, track: $0.0) }
        recordedUntil = range.flatMap { reader.index.wallClock(atMediaTime: $0.1.upperBound, track: $0.0) }
    }

    var video: Int? { served.first { reader.index.tracks[$0].kind == .video } }

    /// The seconds from the recording's start that `range` names: `npt` as it is, `clock` through the video track's
    /// wall-clock anchors (nil when the recording has none); 0 without a range.
    func seconds(of range: PlaybackRequest.Range?) -> Double? {
        guard let range else { return 0 }
        switch range {
        case .npt(let start, _): return start
        case .clock(let start, _):
            guard let track = (video ?? served.first).map({ reader.index.tracks[$0] }),
                let time = reader.index.mediaTime(at: start, track: track.id)
            else { return nil }
            return max(0, track.seconds(at: time))
        }
    }

    /// Where playing from `seconds` starts: at the video keyframe shown at or before it (the picture a decoder can
    /// start from), or at `seconds` in a recording without video.
    func start(at seconds: Double) -> Double {
        guard let video else { return seconds }
        let track = reader.index.tracks[video]
        guard let keyframe = track.keyframe(atOrBefore: track.presentationTime(atSeconds: seconds)) else {
            return seconds
        }
        return max(0, track.seconds(at: track.samples[keyframe].presentationTime))
    }

    /// Each served track's first sample played from `start`, in decoding order: video from its keyframe at or before
    /// it, the others from their first sample shown at or after it.
    func firstSamples(from start: Double) -> [Int] {
        let tracks = reader.index.tracks
        return served.map { index in
            let track = tracks[index]
            if track.kind == .video { return track.keyframe(atOrBefore: track.presentationTime(atSeconds: start)) ?? 0 }
            // From the start, every sample (AAC's priming frame, shown before it, too); else the first that ends
            // after the time asked.
            guard start > 0 else { return 0 }
            return track.samples.firstIndex { track.seconds(at: $0.endTime) > start } ?? track.samples.count
        }
    }

    /// How far after `start` each served track's first unit is, in its format's clock, wrapping as RTP time does
    /// (an audio frame that begins after a keyframe's time, or AAC's priming frame, before it): the source stamps
    /// each track's first unit with the RTP time it announces, and RTP-Info names the start, this far from it.
    func firstUnitOffsets(from start: Double, scale: Double) -> [Int: UInt32] {
        var offsets: [Int: UInt32] = [:]
        for (position, sample) in firstSamples(from: start).enumerated() {
            guard
                let first = reader.timestamp(track: served[position], sample: sample, playedFrom: start, scale: scale),
                let at = reader.timestamp(track: served[position], atSeconds: start)
            else { continue }
            offsets[position] = UInt32(truncatingIfNeeded: first &- at)
        }
        return offsets
    }

    /// How a PLAY plays the recording.
    struct Pace: Sendable {
        /// How fast: 2 twice as fast, -1 backwards (video keyframes alone, in falling time).
        var scale: Double = 1
        /// False for `Rate-Control: no`: as fast as the viewer reads.
        var rateControl = true
        /// How much faster than the scaled media time it is delivered (`Speed`): its pace alone, not its RTP time.
        var speed: Double = 1
        /// The PLAY's CSeq byte when it asked for ONVIF's replay: each unit's first packet then carries when it was
        /// recorded (in a recording with a wall clock), and whether it is a clean point, the first of the play or the
        /// last.
        var replay: UInt8?
        /// The sender reports' CNAME (the server's name).
        var canonicalName = "swift-rtp"
        /// How often each track's sender report goes, in the play's time: the first right after its first unit.
        var reportInterval: Duration = .seconds(5)
    }

    /// The units of a play from `start`, in the order they are sent, one at a time (a long recording's play holds
    /// no list of them): each track's position and sample, and whether it is the track's last. Forward, every
    /// track's from ``firstSamples(from:)`` in decoding order; backwards, the video keyframes from the one at or
    /// before `start` down to the first.
    struct Order {
        let tracks: [MP4Index.Track]
        let served: [Int]
        let backwards: Bool
        /// Per position, its next sample (forward) or its next keyframe's place in the keyframes (backwards, counting
        /// down; -1 when done).
        var upcoming: [Int]

        init(_ playback: RecordingPlayback, from start: Double, backwards: Bool) {
            tracks = playback.reader.index.tracks
            served = playback.served
            self.backwards = backwards
            guard backwards else {
                upcoming = playback.firstSamples(from: start)
                return
            }
            upcoming = served.map { _ in -1 }
            guard let video = playback.video, let position = served.firstIndex(of: video) else { return }
            let track = tracks[video]
            if let first = track.keyframe(atOrBefore: track.presentationTime(atSeconds: start)),
                let at = track.keyframes.firstIndex(of: first)
            {
                upcoming[position] = at
            }
        }

        mutating func next() -> (position: Int, sample: Int, isLast: Bool)? {
            if backwards {
                guard let position = upcoming.firstIndex(where: { $0 >= 0 }) else { return nil }
                let at = upcoming[position]
                upcoming[position] -= 1
                return (position, tracks[served[position]].keyframes[at], at == 0)
            }
            func decodeSeconds(_ position: Int) -> Double {
                let track = tracks[served[position]]
                return track.seconds(at: track.samples[upcoming[position]].decodeTime)
            }
            guard
                let position = served.indices.filter({ upcoming[$0] < tracks[served[$0]].samples.count }).min(by: {
                    decodeSeconds($0) < decodeSeconds($1)
                })
            else { return nil }
            let sample = upcoming[position]
            upcoming[position] += 1
            return (position, sample, upcoming[position] == tracks[served[position]].samples.count)
        }
    }

    /// Pushes the recording from `start` (a ``start(at:)``) into `source` at `pace`, paced by the wall clock or by
    /// `viewer`'s reading, until it ends (true) or the task is cancelled (false). The source goes on: a
    /// ``RecordingTimeline`` plays the next file into it, or finishes it.
    func feed(from start: Double, pace: Pace, into source: MediaSource, viewer: Subscriber) async -> Bool {
        let tracks = reader.index.tracks
        let backwards = pace.scale < 0
        var order = Order(self, from: start, backwards: backwards)
        var started: Set<Int> = []
        let clock = ContinuousClock()
        let begin = clock.now
        var reported: [Int: ContinuousClock.Instant] = [:]
        while let (position, sample, isLast) = order.next() {
            guard !Task.isCancelled else { return false }
            let index = served[position]
            let entry = tracks[index].samples[sample]
            if pace.rateControl {
                let time = tracks[index].seconds(at: backwards ? entry.presentationTime : entry.decodeTime)
                let wait = max(0, (time - start) / pace.scale / pace.speed)
                try? await clock.sleep(until: begin + .nanoseconds(Int64(wait * 1e9)))
            } else {
                while !viewer.hasRoom, !Task.isCancelled { try? await clock.sleep(for: .milliseconds(1)) }
            }
            guard !Task.isCancelled else { return false }
            // A sample that cannot be read (the file cut under it) ends this file's part of the play.
            guard let unit = try? reader.unit(track: index, sample: sample, playedFrom: start, scale: pace.scale)
            else { break }
            let recorded = reader.index.wallClock(atMediaTime: entry.presentationTime, track: tracks[index].id)
            let replay = pace.replay.flatMap { cseq in
                recorded.map {
                    ONVIFReplayExtension(
                        recordedTime: $0, isCleanPoint: tracks[index].kind != .video || entry.isSync,
                        isEnd: isLast, isDiscontinuity: !started.contains(position), cseq: cseq)
                }
            }
            started.insert(position)
            source.push(unit, track: position, capturedAt: recorded, headerExtension: replay?.headerExtension)
            // Its sender report pairs the unit's RTP time with when it was recorded (a player dates the play in the
            // recording's time from it): at once after the track's first unit, then at the play's interval. Not at
            // another scale: the RTP time then runs at another pace than the recording's, which a report cannot say.
            if pace.scale == 1, let recorded,
                reported[position].map({ clock.now - $0 >= pace.reportInterval }) ?? true
            {
                source.sendReport(track: position, at: recorded, canonicalName: pace.canonicalName)
                reported[position] = clock.now
            }
        }
        return !Task.isCancelled
    }
}
