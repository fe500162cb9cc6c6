/// A track whose payload the library hands on rather than decodes: ONVIF metadata documents, or raw units
/// (KLV, MPEG-TS, a vendor's data, a codec it does not take).
public struct DataFormat: Sendable, Hashable {
    /// What the payloads make.
    public enum Content: Sendable, Hashable {
        /// ONVIF metadata (`vnd.onvif.metadata`, `vnd.onvif.metadata.gzip`): XML documents, each ended by the
        /// marker bit.
        case onvifMetadata(gzip: Bool)
        /// Anything else: the payloads joined up to the marker bit (or a new timestamp), handed on as they came.
        /// (ONVIF's EXI-coded metadata is handed on this way.)
        case raw
    }

    public var content: Content
    /// The section's media type (`application`, `video`...).
    public var mediaType: String
    public var payloadType: UInt8
    /// The `a=rtpmap` encoding name, when the section gives one.
    public var encodingName: String?
    /// The RTP clock rate (the `a=rtpmap`'s; 90000 when it gives none).
    public var clockRate: Int

    public init(content: Content, mediaType: String, payloadType: UInt8, encodingName: String?, clockRate: Int) {
        self.content = content
        self.mediaType = mediaType
        self.payloadType = payloadType
        self.encodingName = encodingName
        self.clockRate = clockRate
    }
}
