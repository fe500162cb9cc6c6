/// The video codecs this library receives: the one enum that session descriptions (`SDP`), depacketizers
/// (`H26x`, `JPEG`) and decoders name them by.
public enum VideoCodec: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// H.264 / AVC (RTP payload format RFC 6184).
    case h264
    /// H.265 / HEVC (RTP payload format RFC 7798).
    case h265
    /// JPEG pictures, Motion JPEG (RTP payload format RFC 2435, static payload type 26).
    case jpeg

    /// The codec of an `a=rtpmap` encoding name (`H264`, `H265`, `JPEG`, in any case); nil for another.
    public init?(encodingName: some StringProtocol) {
        switch encodingName.uppercased() {
        case "H264": self = .h264
        case "H265": self = .h265
        case "JPEG": self = .jpeg
        default: return nil
        }
    }

    /// The RTP encoding name, as `a=rtpmap` writes it: `H264`, `H265` or `JPEG`.
    public var encodingName: String {
        switch self {
        case .h264: "H264"
        case .h265: "H265"
        case .jpeg: "JPEG"
        }
    }

    /// Whether its pictures are NAL units (H.264, H.265): parameter sets, Annex B, decoder configuration records.
    public var isH26x: Bool { self != .jpeg }

    public var description: String {
        switch self {
        case .h264: "H.264"
        case .h265: "H.265"
        case .jpeg: "JPEG"
        }
    }
}
