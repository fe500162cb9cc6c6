import RTP

/// What a receiver needs from an H.264 (RFC 6184 section 8.1) or H.265 (RFC 7798 section 7.1) media
/// section: the payload type, and the format parameters typed.
public struct VideoFormat: Sendable, Hashable {
    public var codec: VideoCodec
    public var payloadType: UInt8
    public var clockRate: Int
    /// `packetization-mode` (H.264): 0 single NAL, 1 non-interleaved, 2 interleaved. 0 when absent.
    public var packetizationMode: Int
    /// `profile-level-id` (H.264), six hex digits.
    public var profileLevelID: String?
    /// The parameter-set attributes, name and raw value: `sprop-parameter-sets` (H.264); `sprop-vps`,
    /// `sprop-sps`, `sprop-pps` (H.265). Decoded by H26x's `ParameterSets.add(sdpParameter:value:)`.
    public var parameterSetAttributes: [(name: String, value: String)]
    /// `sprop-interleaving-depth` (H.264 mode 2) or `sprop-depack-buf-nalus` (H.265): NAL units a
    /// receiver may have to hold to restore decoding order.
    public var deinterleavingDepth: Int
    /// `sprop-deint-buf-req` (H.264) or `sprop-depack-buf-bytes` (H.265).
    public var deinterleavingBytes: Int?
    /// `sprop-max-don-diff` (H.265): above 0, packets carry DONL/DOND fields.
    public var maxDONDiff: Int

    /// A format with the RFCs' defaults for what is not given: packetization mode 0 (single NAL units; set
    /// 1 for what most senders use), no parameter sets, no de-interleaving.
    public init(
        codec: VideoCodec, payloadType: UInt8, clockRate: Int = 90000, packetizationMode: Int = 0,
        profileLevelID: String? = nil, parameterSetAttributes: [(name: String, value: String)] = [],
        deinterleavingDepth: Int = 0, deinterleavingBytes: Int? = nil, maxDONDiff: Int = 0
    ) {
        self.codec = codec
        self.payloadType = payloadType
        self.clockRate = clockRate
        self.packetizationMode = packetizationMode
        self.profileLevelID = profileLevelID
        self.parameterSetAttributes = parameterSetAttributes
        self.deinterleavingDepth = deinterleavingDepth
        self.deinterleavingBytes = deinterleavingBytes
        self.maxDONDiff = maxDONDiff
    }

    public static func == (lhs: VideoFormat, rhs: VideoFormat) -> Bool {
        lhs.codec == rhs.codec && lhs.payloadType == rhs.payloadType && lhs.clockRate == rhs.clockRate
            && lhs.packetizationMode == rhs.packetizationMode && lhs.profileLevelID == rhs.profileLevelID
            && lhs.parameterSetAttributes.map { "\($0.name)=\($0.value)" }
                == rhs.parameterSetAttributes.map { "\($0.name)=\($0.value)" }
            && lhs.deinterleavingDepth == rhs.deinterleavingDepth && lhs.deinterleavingBytes == rhs.deinterleavingBytes
            && lhs.maxDONDiff == rhs.maxDONDiff
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(codec)
        hasher.combine(payloadType)
    }
}

extension MediaDescription {
    /// The first H.264 or H.265 format of this section, if it carries one.
    public var videoFormat: VideoFormat? {
        for payloadType in payloadTypes {
            guard let map = rtpMap(for: payloadType), map.hasUsableClockRate,
                let codec = VideoCodec(encodingName: map.encodingName)
            else { continue }
            let fmtp = formatParameters(for: payloadType)
            let names = codec == .h264 ? ["sprop-parameter-sets"] : ["sprop-vps", "sprop-sps", "sprop-pps"]
            return VideoFormat(
                codec: codec, payloadType: payloadType, clockRate: map.clockRate,
                packetizationMode: fmtp.integer("packetization-mode") ?? 0, profileLevelID: fmtp["profile-level-id"],
                parameterSetAttributes: names.compactMap { name in fmtp[name].map { (name, $0) } },
                deinterleavingDepth: fmtp.integer(
                    codec == .h264 ? "sprop-interleaving-depth" : "sprop-depack-buf-nalus") ?? 0,
                deinterleavingBytes: fmtp.integer(codec == .h264 ? "sprop-deint-buf-req" : "sprop-depack-buf-bytes"),
                maxDONDiff: fmtp.integer("sprop-max-don-diff") ?? 0)
        }
        return nil
    }
}

extension SessionDescription {
    /// The first H.264 or H.265 format of the description (or the one with `payloadType`).
    public func videoFormat(payloadType: UInt8? = nil) -> VideoFormat? {
        media.lazy.compactMap(\.videoFormat).first { payloadType == nil || $0.payloadType == payloadType }
    }
}
