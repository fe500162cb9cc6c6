import AudioDecoding
import Metadata
import RTP
import VideoDecoding

/// A decoded unit of a source's media: a video frame or a block of PCM, or, handed on as they came, a
/// metadata document or a raw unit; each naming its track and dated on its sender's wall clock once the
/// track's sender has reported.
public enum DecodedUnit: Sendable {
    case video(I420Frame)
    case audio(PCMFrame)
    /// An ONVIF metadata document: nothing to decode.
    case metadata(MetadataDocument)
    /// A raw unit of a track the library does not take apart.
    case raw(RawUnit)

    /// The track it belongs to, by index in its source.
    public var track: Int {
        switch self {
        case .video(let frame): frame.track
        case .audio(let pcm): pcm.track
        case .metadata(let document): document.track
        case .raw(let unit): unit.track
        }
    }

    /// When the sender captured it, on its wall clock (nil until the track's first sender report).
    public var captureTime: WallClockTime? {
        switch self {
        case .video(let frame): frame.captureTime
        case .audio(let pcm): pcm.captureTime
        case .metadata(let document): document.captureTime
        case .raw(let unit): unit.captureTime
        }
    }
}
