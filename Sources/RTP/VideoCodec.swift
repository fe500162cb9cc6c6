/// The video codecs this library receives: the one enum that session descriptions (`SDP`), depacketizers
/// (`H26x`) and decoders name them by.
public enum VideoCodec: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// H.264 / AVC (RTP payload format RFC 6184).
    case h264
    /// H.265 / HEVC (RTP payload format RFC 7798).
    case h265

    /// The codec of an `a=rtpmap` encoding name (`H264`, `H265`, in any case); nil for another.
    public init?(encodingName: some StringProtocol) {
        switch encodingName.uppercased() {
        case "H264": self = .h264
        case "H265": self = .h265
        default: return nil
        }
    }

    /// The RTP encoding name, as `a=rtpmap` writes it: `H264` or `H265`.
    public var encodingName: String { self == .h264 ? "H264" : "H265" }

    public var description: String { self == .h264 ? "H.264" : "H.265" }
}
