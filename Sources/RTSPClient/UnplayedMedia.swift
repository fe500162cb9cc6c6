import RTP
import SDP

/// A media section a server offers that this library does not play yet: audio (until audio tracks are
/// supported), metadata, a vendor's application track, a video codec other than H.264 and H.265. Listed so
/// that a user can see what the camera offers; the session plays its video tracks without them.
public struct UnplayedMedia: Sendable, Hashable, CustomStringConvertible {
    /// The `m=` line's media type: `audio`, `application`, `video`, ...
    public var mediaType: String
    /// Each format's `a=rtpmap` encoding as the SDP writes it (`PCMU/8000`, `MPEG4-GENERIC/48000/1`), or
    /// the bare payload type where it gives none.
    public var encodings: [String]
    /// Its `a=control` URL, as written.
    public var control: String?

    public var description: String {
        "\(mediaType) \(encodings.joined(separator: ", "))".escapingControlCharacters
    }

    /// The media sections of `description` that carry no H.264 or H.265 format, in order.
    static func listed(in description: SessionDescription?) -> [UnplayedMedia] {
        (description?.media ?? []).filter { $0.videoFormat == nil }.map { media in
            UnplayedMedia(
                mediaType: media.mediaType,
                encodings: media.payloadTypes.map { type in
                    guard let map = media.rtpMap(for: type) else { return "\(type)" }
                    return "\(map.encodingName)/\(map.clockRate)" + (map.channels.map { "/\($0)" } ?? "")
                }, control: media.control)
        }
    }
}

extension RTSPSession {
    /// What the server offers besides the tracks played (``tracks``): audio, metadata, other codecs.
    public var unplayedMedia: [UnplayedMedia] { UnplayedMedia.listed(in: sessionDescription) }
}

extension RTSPDescribedSession {
    /// What the server offers besides ``offeredTracks``, which cannot be set up yet.
    public var unplayedMedia: [UnplayedMedia] { UnplayedMedia.listed(in: sessionDescription) }
}
