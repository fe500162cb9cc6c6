@_spi(SansIO) import RTSP
import RTP
import SDP

/// The files of one recording served as one timeline: a camera's segments, and the files its restarts began, in
/// order, each a ``RecordingPlayback``. Its media time (`npt`) runs through them with the gaps between them left
/// out; a `clock=` time maps through the file recorded then, and one in a gap (or before the first) starts at the
/// next file's beginning, which the answer's `Range` says. A play goes on from file to file: under ONVIF's replay
/// each file's first units carry D and its last E, the extension's way of saying there is a gap between. A single
/// file is a timeline of one.
struct RecordingTimeline: Sendable {
    let parts: [RecordingPlayback]
    /// Each part's start in the timeline's media time, in seconds.
    let starts: [Double]
    let formats: [MediaFormat]
    /// The parts' durations, added.
    let duration: Double
    var recordedUntil: WallClockTime? { parts.last?.recordedUntil }

    /// The timeline of `parts` in the order given; a part whose tracks are not the first's (their kinds and
    /// encodings) is left out: it cannot go on the same RTP streams. Nil without a part.
    init?(_ parts: [RecordingPlayback]) {
        guard let first = parts.first else { return nil }
        func signature(_ part: RecordingPlayback) -> [String] { part.formats.map { "\($0.kind) \($0.encodingName)" } }
        self.parts = parts.filter { signature($0) == signature(first) }
        var starts: [Double] = []
        var total = 0.0
        for part in self.parts {
            starts.append(total)
            total += part.duration
        }
        self.starts = starts
        duration = total
        formats = first.formats
    }

    /// Where a play of `range` starts: the part, and the seconds into it that were asked (a clock time in a gap: 0
    /// of the next part). Nil when it starts past the end, or asks a clock time of a recording without a wall clock.
    func locate(_ range: PlaybackRequest.Range?) -> (part: Int, seconds: Double)? {
        switch range {
        case nil: return (0, 0)
        case .npt(let start, _)?:
            guard let part = starts.lastIndex(where: { $0 <= max(0, start) }), start < duration else { return nil }
            return (part, max(0, start) - starts[part])
        case .clock(let start, _)?:
            for (index, part) in parts.enumerated() {
                guard let from = part.recordedFrom, let until = part.recordedUntil, start < until else { continue }
                if start < from { return (index, 0) }
                return part.seconds(of: .clock(start: start, end: nil)).map { (index, $0) }
            }
            return nil
        }
    }

    /// The answer's `Range` for a play of part `part` from `seconds` in it: `npt=` in the timeline's time (where a
    /// clock time in a gap starts: the next file's beginning), to the end, or backwards to the start. Always npt,
    /// even for a `clock=` request: answered in clock time, GStreamer's rtspsrc (1.22, ONVIF mode) takes the PLAY's
    /// first packets for lost (its jitter buffer's lost timers fire for the keyframe's) and decodes nothing right
    /// until the next keyframe.
    func answeredRange(part: Int, seconds: Double, backwards: Bool) -> PlaybackRequest.Range {
        .npt(start: starts[part] + seconds, end: backwards ? 0 : duration)
    }

    /// Plays part `first` from `start` (a ``RecordingPlayback/start(at:)``) into `source`, then the parts after it
    /// from their beginnings (backwards: the parts before it, from their ends), then finishes the source (its
    /// viewers get BYE); stops when the task is cancelled.
    func play(
        from first: Int, at start: Double, pace: RecordingPlayback.Pace, into source: MediaSource,
        viewer: Subscriber
    ) async {
        let order = pace.scale < 0 ? Array((0...first).reversed()) : Array(first..<parts.count)
        for index in order {
            let from = index == first ? start : (pace.scale < 0 ? parts[index].duration : 0)
            guard await parts[index].feed(from: from, pace: pace, into: source, viewer: viewer) else { return }
        }
        source.finish()
    }
}
