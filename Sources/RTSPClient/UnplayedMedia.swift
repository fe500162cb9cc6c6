import RTP
@_spi(SansIO) import RTSP
import SDP

/// A media section a server offers that the session does not play: metadata, a vendor's application
/// track, a codec this library does not take, a kind left out by ``RTSPSessionOptions/mediaKinds``, an audio
/// track the server refused. Listed so that a user can see what the camera offers.
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

    /// The media sections of `description` that are not among `tracks` (a subsequence of its sections,
    /// in order, each with the format of its section), in order.
    static func listed(in description: SessionDescription?, besides tracks: [RTSPTrack])
        -> [UnplayedMedia]
    {
        var next = 0
        return (description?.media ?? []).filter { media in
            guard next < tracks.count, let format = media.mediaFormat, format == tracks[next].format else {
                return true
            }
            next += 1
            return false
        }.map { media in
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
    /// What the server offers besides the tracks played (``tracks``): metadata, other codecs, kinds not
    /// asked for, refused audio.
    public var unplayedMedia: [UnplayedMedia] { UnplayedMedia.listed(in: sessionDescription, besides: tracks) }
}

extension RTSPDescribedSession {
    /// What the server offers besides ``offeredTracks``, which cannot be set up.
    public var unplayedMedia: [UnplayedMedia] { UnplayedMedia.listed(in: sessionDescription, besides: offeredTracks) }
}
