import CoreMetrics
import MediaPipeline
import VideoDecoding

/// A decoder's figures through swift-metrics, per track, under the dimensions its source gives (a session's:
/// `session`, `track`): pictures decoded (`video_decoder_frames_total`), those flagged as maybe damaged by a loss
/// before them (`video_decoder_damaged_frames_total`), and units the decoder failed on
/// (`video_decoder_errors_total`; the iteration ends with that error).
enum DecoderMetrics {
    /// One track's counters.
    struct Track {
        let frames, damaged, errors: Counter

        init(_ dimensions: [(String, String)], factory: any MetricsFactory) {
            frames = Counter(label: "video_decoder_frames_total", dimensions: dimensions, factory: factory)
            damaged = Counter(label: "video_decoder_damaged_frames_total", dimensions: dimensions, factory: factory)
            errors = Counter(label: "video_decoder_errors_total", dimensions: dimensions, factory: factory)
        }
    }

    /// The counters of each track, made when the track first counts.
    struct Tracks {
        let counting: UnitCounting
        private var tracks: [Int: Track] = [:]

        init(_ counting: UnitCounting) {
            self.counting = counting
        }

        private mutating func track(_ index: Int) -> Track {
            if let track = tracks[index] { return track }
            let made = Track(counting.dimensions(index), factory: counting.factory)
            tracks[index] = made
            return made
        }

        mutating func count(_ frame: I420Frame) {
            let counters = track(frame.track)
            counters.frames.increment()
            if frame.mayBeDamaged { counters.damaged.increment() }
        }

        mutating func countError(track index: Int) { track(index).errors.increment() }
    }
}
