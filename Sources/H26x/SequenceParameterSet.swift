import RTP
/// What a sequence parameter set says about the pictures: for choosing a decoder and sizing buffers.
public struct SequenceParameterSet: Hashable, Sendable {
    public let codec: VideoCodec
    /// seq_parameter_set_id.
    public let id: UInt32
    /// Picture size after cropping (the conformance window, for H.265).
    public let width: Int
    public let height: Int
    /// profile_idc (general_profile_idc for H.265).
    public let profile: UInt8
    /// level_idc (general_level_idc for H.265: 30 × the level number).
    public let level: UInt8
    /// chroma_format_idc: 0 monochrome, 1 4:2:0, 2 4:2:2, 3 4:4:4.
    public let chromaFormat: UInt8
    public let bitDepthLuma: UInt8
    public let bitDepthChroma: UInt8

    /// The largest picture dimension accepted; beyond it the SPS is taken to be damaged.
    public static let maxDimension = 16_384

    /// Parses an SPS NAL unit (header included).
    ///
    /// - Throws: ``H26xError`` when the NAL is not an SPS, ends early, or has values out of range.
    public init(_ nal: NALUnit) throws(H26xError) {
        guard nal.codec == .h264 ? nal.type == 7 : nal.type == 33 else {
            throw H26xError(.invalidParameterSet, "not an SPS: NAL type \(nal.typeName)")
        }
        do {
            self = nal.codec == .h264 ? try Self.parseH264(nal.bytes) : try Self.parseH265(nal.bytes)
        } catch let error as H26xError {
            throw error
        } catch {
            throw H26xError(
                .invalidParameterSet, "\(nal.codec) SPS ends before its picture size (\(nal.bytes.count) bytes)")
        }
        guard width > 0, height > 0, width <= Self.maxDimension, height <= Self.maxDimension else {
            throw H26xError(
                .invalidParameterSet, "\(nal.codec) SPS gives an impossible picture size \(width)x\(height)")
        }
    }

    init(
        codec: VideoCodec, id: UInt32, width: Int, height: Int, profile: UInt8, level: UInt8, chromaFormat: UInt8,
        bitDepthLuma: UInt8, bitDepthChroma: UInt8
    ) {
        self.codec = codec
        self.id = id
        self.width = width
        self.height = height
        self.profile = profile
        self.level = level
        self.chromaFormat = chromaFormat
        self.bitDepthLuma = bitDepthLuma
        self.bitDepthChroma = bitDepthChroma
    }

    /// ITU-T H.264 section 7.3.2.1.1.
    static func parseH264(_ bytes: ArraySlice<UInt8>) throws -> SequenceParameterSet {
        var r = BitReader(rbspOf: bytes, headerLength: 1)
        let profile = UInt8(try r.bits(8))
        try r.skip(8)  // constraint flags
        let level = UInt8(try r.bits(8))
        let id = try r.unsignedGolomb()
        var chroma: UInt32 = 1
        var separatePlanes = false
        var depthLuma: UInt32 = 0
        var depthChroma: UInt32 = 0
        if [100, 110, 122, 244, 44, 83, 86, 118, 128, 138, 139, 134, 135].contains(profile) {
            chroma = try r.unsignedGolomb()
            guard chroma <= 3 else { throw H26xError(.invalidParameterSet, "H.264 SPS chroma_format_idc \(chroma)") }
            if chroma == 3 { separatePlanes = try r.bit() == 1 }
            depthLuma = try r.unsignedGolomb()
            depthChroma = try r.unsignedGolomb()
            guard depthLuma <= 6, depthChroma <= 6 else {
                throw H26xError(.invalidParameterSet, "H.264 SPS bit depth \(Int(depthLuma) + 8)")
            }
            try r.skip(1)  // qpprime_y_zero_transform_bypass_flag
            if try r.bit() == 1 {  // seq_scaling_matrix_present_flag
                for list in 0..<(chroma == 3 ? 12 : 8) where try r.bit() == 1 {
                    try skipScalingList(&r, size: list < 6 ? 16 : 64)
                }
            }
        }
        _ = try r.unsignedGolomb()  // log2_max_frame_num_minus4
        let pocType = try r.unsignedGolomb()
        if pocType == 0 {
            _ = try r.unsignedGolomb()
        } else if pocType == 1 {
            try r.skip(1)
            _ = try r.signedGolomb()
            _ = try r.signedGolomb()
            let cycle = try r.unsignedGolomb()
            guard cycle <= 255 else { throw H26xError(.invalidParameterSet, "H.264 SPS POC cycle of \(cycle)") }
            for _ in 0..<cycle { _ = try r.signedGolomb() }
        }
        _ = try r.unsignedGolomb()  // max_num_ref_frames
        try r.skip(1)  // gaps_in_frame_num_value_allowed_flag
        let widthMbs = Int(try r.unsignedGolomb()) + 1
        let heightMapUnits = Int(try r.unsignedGolomb()) + 1
        let frameMbsOnly = try r.bit() == 1
        if !frameMbsOnly { try r.skip(1) }
        try r.skip(1)  // direct_8x8_inference_flag
        var crop = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.bit() == 1 {
            crop = (
                Int(try r.unsignedGolomb()), Int(try r.unsignedGolomb()), Int(try r.unsignedGolomb()),
                Int(try r.unsignedGolomb())
            )
        }
        let arrayType = separatePlanes ? 0 : chroma
        let subWidth = arrayType == 1 || arrayType == 2 ? 2 : 1
        let subHeight = arrayType == 1 ? 2 : 1
        let frameFactor = frameMbsOnly ? 1 : 2
        let cropX = arrayType == 0 ? 1 : subWidth
        let cropY = (arrayType == 0 ? 1 : subHeight) * frameFactor
        return SequenceParameterSet(
            codec: .h264, id: id, width: widthMbs * 16 - cropX * (crop.left + crop.right),
            height: heightMapUnits * 16 * frameFactor - cropY * (crop.top + crop.bottom), profile: profile,
            level: level,
            chromaFormat: UInt8(chroma), bitDepthLuma: UInt8(depthLuma + 8), bitDepthChroma: UInt8(depthChroma + 8))
    }

    static func skipScalingList(_ r: inout BitReader, size: Int) throws {
        var last = 8
        var next = 8
        for _ in 0..<size where next != 0 {
            // delta_scale is coded in [-128, 127]; a damaged one may be anything an se(v) holds, so wide math.
            next = ((last + Int(try r.signedGolomb())) % 256 + 256) % 256
            last = next == 0 ? last : next
        }
    }

    /// ITU-T H.265 section 7.3.2.2.1, up to the bit depths.
    static func parseH265(_ bytes: ArraySlice<UInt8>) throws -> SequenceParameterSet {
        var r = BitReader(rbspOf: bytes, headerLength: 2)
        try r.skip(4)  // sps_video_parameter_set_id
        let maxSubLayersMinus1 = Int(try r.bits(3))
        try r.skip(1)  // sps_temporal_id_nesting_flag
        let profileTierLevel = try H265ProfileTierLevel(reading: &r, subLayersMinus1: maxSubLayersMinus1)
        let format = try H265PictureFormat(reading: &r)
        return SequenceParameterSet(
            codec: .h265, id: format.id, width: format.width, height: format.height,
            profile: profileTierLevel.profile, level: profileTierLevel.level, chromaFormat: UInt8(format.chromaFormat),
            bitDepthLuma: UInt8(format.bitDepthLumaMinus8 + 8), bitDepthChroma: UInt8(format.bitDepthChromaMinus8 + 8))
    }
}
