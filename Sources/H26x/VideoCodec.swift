/// The video codecs the depacketizers handle.
public enum VideoCodec: String, Hashable, Sendable, CustomStringConvertible {
    /// H.264 / AVC (RTP payload format RFC 6184).
    case h264
    /// H.265 / HEVC (RTP payload format RFC 7798).
    case h265

    public var description: String { rawValue == "h264" ? "H.264" : "H.265" }
}
