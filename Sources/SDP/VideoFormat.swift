import RTP

/// What a receiver needs from an H.264 (RFC 6184 section 8.1), H.265 (RFC 7798 section 7.1) or JPEG
/// (RFC 2435, static payload type 26) media section: the payload type, and the format parameters typed.
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
    /// The picture size the section announces (`a=x-dimensions:W,H` or `a=framesize:PT W-H`, 1 to 65535 each):
    /// what a JPEG receiver needs above 2040 pixels, which RFC 2435's header cannot say.
    public var pictureSize: (width: Int, height: Int)?

    /// A format with the RFCs' defaults for what is not given: packetization mode 0 (single NAL units; set
    /// 1 for what most senders use), no parameter sets, no de-interleaving.
    public init(
        codec: VideoCodec, payloadType: UInt8, clockRate: Int = 90000, packetizationMode: Int = 0,
        profileLevelID: String? = nil, parameterSetAttributes: [(name: String, value: String)] = [],
        deinterleavingDepth: Int = 0, deinterleavingBytes: Int? = nil, maxDONDiff: Int = 0,
        pictureSize: (width: Int, height: Int)? = nil
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
        self.pictureSize = pictureSize
    }

    public static func == (lhs: VideoFormat, rhs: VideoFormat) -> Bool {
        lhs.codec == rhs.codec && lhs.payloadType == rhs.payloadType && lhs.clockRate == rhs.clockRate
            && lhs.packetizationMode == rhs.packetizationMode && lhs.profileLevelID == rhs.profileLevelID
            && lhs.parameterSetAttributes.map { "\($0.name)=\($0.value)" }
                == rhs.parameterSetAttributes.map { "\($0.name)=\($0.value)" }
            && lhs.deinterleavingDepth == rhs.deinterleavingDepth && lhs.deinterleavingBytes == rhs.deinterleavingBytes
            && lhs.maxDONDiff == rhs.maxDONDiff && lhs.pictureSize?.width == rhs.pictureSize?.width
            && lhs.pictureSize?.height == rhs.pictureSize?.height
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(codec)
        hasher.combine(payloadType)
    }
}

extension MediaDescription {
    /// The first H.264, H.265 or JPEG format of this section, if it carries one (JPEG also by its static
    /// payload type, 26, without an `a=rtpmap`).
    public var videoFormat: VideoFormat? {
        for payloadType in payloadTypes {
            guard let map = rtpMap(for: payloadType) else {
                guard payloadType == VideoFormat.jpegPayloadType else { continue }
                return VideoFormat(
                    codec: .jpeg, payloadType: payloadType, pictureSize: announcedPictureSize(payloadType: payloadType))
            }
            guard map.hasUsableClockRate, let codec = VideoCodec(encodingName: map.encodingName) else { continue }
            guard codec.isH26x else {
                return VideoFormat(
                    codec: codec, payloadType: payloadType, clockRate: map.clockRate,
                    pictureSize: announcedPictureSize(payloadType: payloadType))
            }
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

extension VideoFormat {
    /// RFC 3551's static payload type for JPEG.
    public static let jpegPayloadType: UInt8 = 26
}

extension MediaDescription {
    /// The size `a=x-dimensions:W,H` (cameras, GStreamer) or `a=framesize:PT W-H` (3GPP, some cameras) names,
    /// when both sides are 1 to 65535.
    func announcedPictureSize(payloadType: UInt8) -> (width: Int, height: Int)? {
        func size(_ text: some StringProtocol, separator: Character) -> (Int, Int)? {
            let sides = text.split(separator: separator).map { Int(String($0).trimmingCharacters(in: " \t")) }
            guard sides.count == 2, let width = sides[0], let height = sides[1], (1...65_535).contains(width),
                (1...65_535).contains(height)
            else { return nil }
            return (width, height)
        }
        if let dimensions = attributes.value(of: "x-dimensions"), let found = size(dimensions, separator: ",") {
            return found
        }
        for value in attributes.values(of: "framesize") {
            let parts = value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, UInt8(parts[0]) == payloadType, let found = size(parts[1], separator: "-") {
                return found
            }
        }
        return nil
    }
}

extension SessionDescription {
    /// The first video format of the description (or the one with `payloadType`).
    public func videoFormat(payloadType: UInt8? = nil) -> VideoFormat? {
        media.lazy.compactMap(\.videoFormat).first { payloadType == nil || $0.payloadType == payloadType }
    }
}
