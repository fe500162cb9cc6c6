/// The general part of an H.265 profile_tier_level() (ITU-T H.265 section 7.3.3), as the VPS and the SPS
/// carry it; the sub-layers' parts are read past.
struct H265ProfileTierLevel {
    var space: UInt8
    var tier: UInt8
    var profile: UInt8
    var compatibilityFlags: UInt32
    /// The 48 bits from general_progressive_source_flag on.
    var constraintFlags: UInt64
    var level: UInt8

    init(reading r: inout BitReader, subLayersMinus1: Int) throws(BitReader.EndOfData) {
        space = UInt8(try r.bits(2))
        tier = UInt8(try r.bit())
        profile = UInt8(try r.bits(5))
        compatibilityFlags = try r.bits(32)
        constraintFlags = UInt64(try r.bits(16)) << 32 | UInt64(try r.bits(32))
        level = UInt8(try r.bits(8))
        var present: [(profile: Bool, level: Bool)] = []
        for _ in 0..<subLayersMinus1 { present.append((try r.bit() == 1, try r.bit() == 1)) }
        if subLayersMinus1 > 0 { try r.skip(2 * (8 - subLayersMinus1)) }
        for layer in present {
            if layer.profile { try r.skip(88) }
            if layer.level { try r.skip(8) }
        }
    }
}

/// What an H.265 SPS says between its profile_tier_level() and its bit depths (section 7.3.2.2.1).
struct H265PictureFormat {
    var id: UInt32
    var chromaFormat: UInt32
    /// After cropping by the conformance window.
    var width: Int
    var height: Int
    var bitDepthLumaMinus8: UInt32
    var bitDepthChromaMinus8: UInt32

    init(reading r: inout BitReader) throws {
        id = try r.unsignedGolomb()
        chromaFormat = try r.unsignedGolomb()
        guard chromaFormat <= 3 else {
            throw H26xError(.invalidParameterSet, "H.265 SPS chroma_format_idc \(chromaFormat)")
        }
        var separatePlanes = false
        if chromaFormat == 3 { separatePlanes = try r.bit() == 1 }
        let codedWidth = Int(try r.unsignedGolomb())
        let codedHeight = Int(try r.unsignedGolomb())
        var window = (left: 0, right: 0, top: 0, bottom: 0)
        if try r.bit() == 1 {
            window = (
                Int(try r.unsignedGolomb()), Int(try r.unsignedGolomb()), Int(try r.unsignedGolomb()),
                Int(try r.unsignedGolomb())
            )
        }
        bitDepthLumaMinus8 = try r.unsignedGolomb()
        bitDepthChromaMinus8 = try r.unsignedGolomb()
        guard bitDepthLumaMinus8 <= 8, bitDepthChromaMinus8 <= 8 else {
            throw H26xError(
                .invalidParameterSet, "H.265 SPS bit depth \(Int(max(bitDepthLumaMinus8, bitDepthChromaMinus8)) + 8)")
        }
        let arrayType = separatePlanes ? 0 : chromaFormat
        let subWidth = arrayType == 1 || arrayType == 2 ? 2 : 1
        let subHeight = arrayType == 1 ? 2 : 1
        width = codedWidth - subWidth * (window.left + window.right)
        height = codedHeight - subHeight * (window.top + window.bottom)
    }
}
