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
    }

    private var video: Int? { served.first { reader.index.tracks[$0].kind == .video } }

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

    /// Pushes the recording from `start` (a ``start(at:)``) into `source`, `scale` times as fast as it was recorded,
    /// until it ends (then the source finishes: its viewers get BYE) or the task is cancelled.
    func play(from start: Double, scale: Double, into source: MediaSource) async {
        let tracks = reader.index.tracks
        func seconds(_ track: Int, _ time: Int64) -> Double { tracks[track].seconds(at: time) }
        var next = firstSamples(from: start)
        let clock = ContinuousClock()
        let begin = clock.now
        while !Task.isCancelled {
            let due = served.indices.filter { next[$0] < tracks[served[$0]].samples.count }
            guard
                let position = due.min(by: {
                    seconds(served[$0], tracks[served[$0]].samples[next[$0]].decodeTime)
                        < seconds(served[$1], tracks[served[$1]].samples[next[$1]].decodeTime)
                })
            else { break }
            let index = served[position]
            let sample = tracks[index].samples[next[position]]
            let wait = max(0, seconds(index, sample.decodeTime) - start) / scale
            try? await clock.sleep(until: begin + .nanoseconds(Int64(wait * 1e9)))
            guard !Task.isCancelled,
                let unit = try? reader.unit(track: index, sample: next[position], playedFrom: start, scale: scale)
            else { break }
            let recorded = reader.index.wallClock(atMediaTime: sample.presentationTime, track: tracks[index].id)
            source.push(unit, track: position, capturedAt: recorded)
            next[position] += 1
        }
        if !Task.isCancelled { source.finish() }
    }
}
