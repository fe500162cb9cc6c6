/// The fields of an H265DecoderConfigurationRecord that come from inside the parameter sets (ISO/IEC
/// 14496-15 section 8.3.3.1): the profile, tier and level shared by every VPS and SPS, the chroma format
/// and bit depths, the temporal layers, and the spatial segmentation and parallelism the encoder promised.
///
/// Found the way FFmpeg's MP4 muxer finds them (the reference its tests compare with): profile space,
/// tier, profile and level are the highest any VPS or SPS gives, the compatibility and constraint flags
/// those all share; the SPS fields are the last SPS's; `min_spatial_segmentation_idc` is the lowest any
/// SPS's VUI gives, and without one the parallelism type is 0 (unknown).
struct H265ConfigurationFields {
    var profileSpace: UInt8 = 0
    var tier: UInt8 = 0
    var profile: UInt8 = 0
    var compatibilityFlags: UInt32 = 0xFFFF_FFFF
    var constraintFlags: UInt64 = 0xFFFF_FFFF_FFFF
    var level: UInt8 = 0
    var minSpatialSegmentation: UInt32 = Self.noSpatialSegmentation
    var parallelismType: UInt8 = 0
    var chromaFormat: UInt8 = 0
    var bitDepthLumaMinus8: UInt8 = 0
    var bitDepthChromaMinus8: UInt8 = 0
    var temporalLayers: UInt8 = 0
    var temporalIDNested: UInt8 = 0
    /// Whether the last SPS without extensions ended where its syntax says (the RBSP trailing bits right
    /// after the VUI): a check on this parser, which has to walk every field before the VUI's last ones.
    private(set) var lastSPSEndedAtTrailingBits = false

    /// min_spatial_segmentation_idc is below 4096; this stands for "no SPS said".
    static let noSpatialSegmentation: UInt32 = 4096

    /// Short-term reference picture sets per SPS (H.265 allows 64) and entries in one (16 each way).
    static let maxShortTermSets = 64
    static let maxDeltaPictures = 32

    typealias EndOfData = BitReader.EndOfData

    /// Takes the fields of a VPS, SPS or PPS (other NAL types are ignored).
    mutating func add(_ nal: NALUnit) throws(H26xError) {
        var r = BitReader(rbspOf: nal.bytes, headerLength: 2)
        do {
            switch nal.type {
            case 32: try addVPS(&r)
            case 33: try addSPS(&r)
            case 34: try addPPS(&r)
            default: return
            }
        } catch let error as H26xError {
            throw error
        } catch {
            throw H26xError(.invalidParameterSet, "H.265 \(nal.typeName) ends early (\(nal.bytes.count) bytes)")
        }
    }

    /// After every set has been added: what FFmpeg settles on when no SPS gave a segmentation.
    mutating func finish() {
        if minSpatialSegmentation >= Self.noSpatialSegmentation { minSpatialSegmentation = 0 }
        if minSpatialSegmentation == 0 { parallelismType = 0 }
    }

    /// ITU-T H.265 section 7.3.2.1.
    private mutating func addVPS(_ r: inout BitReader) throws {
        try r.skip(4 + 1 + 1 + 6)  // vps_video_parameter_set_id, base layer flags, vps_max_layers_minus1
        let subLayersMinus1 = Int(try r.bits(3))
        temporalLayers = max(temporalLayers, UInt8(subLayersMinus1 + 1))
        try r.skip(1 + 16)  // vps_temporal_id_nesting_flag, vps_reserved_0xffff_16bits
        try addProfileTierLevel(&r, subLayersMinus1: subLayersMinus1)
    }

    /// ITU-T H.265 section 7.3.2.2.1, as far as the VUI's bitstream restrictions.
    private mutating func addSPS(_ r: inout BitReader) throws {
        try r.skip(4)  // sps_video_parameter_set_id
        let subLayersMinus1 = Int(try r.bits(3))
        temporalLayers = max(temporalLayers, UInt8(subLayersMinus1 + 1))
        temporalIDNested = UInt8(try r.bit())
        try addProfileTierLevel(&r, subLayersMinus1: subLayersMinus1)
        let format = try H265PictureFormat(reading: &r)
        chromaFormat = UInt8(format.chromaFormat)
        (bitDepthLumaMinus8, bitDepthChromaMinus8) = (
            UInt8(format.bitDepthLumaMinus8), UInt8(format.bitDepthChromaMinus8)
        )
        let pocLSBBits = Int(try r.unsignedGolomb()) + 4
        guard pocLSBBits <= 16 else { throw H26xError(.invalidParameterSet, "H.265 SPS POC LSB of \(pocLSBBits) bits") }
        let allSubLayers = try r.bit() == 1  // sps_sub_layer_ordering_info_present_flag
        for _ in (allSubLayers ? 0 : subLayersMinus1)...subLayersMinus1 {
            for _ in 0..<3 { _ = try r.unsignedGolomb() }  // max_dec_pic_buffering, num_reorder, latency
        }
        for _ in 0..<6 { _ = try r.unsignedGolomb() }  // coding and transform block sizes, hierarchy depths
        if try r.bit() == 1, try r.bit() == 1 { try Self.skipScalingListData(&r) }
        try r.skip(2)  // amp_enabled_flag, sample_adaptive_offset_enabled_flag
        if try r.bit() == 1 {  // pcm_enabled_flag
            try r.skip(4 + 4)
            _ = (try r.unsignedGolomb(), try r.unsignedGolomb())
            try r.skip(1)
        }
        try Self.skipShortTermReferenceSets(&r)
        if try r.bit() == 1 {  // long_term_ref_pics_present_flag
            let count = try r.unsignedGolomb()
            guard count <= 32 else {
                throw H26xError(.invalidParameterSet, "H.265 SPS with \(count) long-term pictures")
            }
            for _ in 0..<count { try r.skip(pocLSBBits + 1) }
        }
        try r.skip(2)  // sps_temporal_mvp_enabled_flag, strong_intra_smoothing_enabled_flag
        if try r.bit() == 1 { try addVUI(&r, subLayersMinus1: subLayersMinus1) }
        lastSPSEndedAtTrailingBits = try r.bit() == 0 && Self.atTrailingBits(&r)  // no sps_extension_present_flag
    }

    /// Whether what is left is rbsp_stop_one_bit then zeros (trailing_zero_8bits included) to the end.
    static func atTrailingBits(_ r: inout BitReader) throws -> Bool {
        guard try r.bit() == 1 else { return false }
        while true {
            do {
                if try r.bit() == 1 { return false }
            } catch {
                return true
            }
        }
    }

    /// ITU-T H.265 section 7.3.2.3.1, as far as the flags that say how pictures may be decoded in parallel.
    private mutating func addPPS(_ r: inout BitReader) throws {
        _ = (try r.unsignedGolomb(), try r.unsignedGolomb())  // pps and sps ids
        try r.skip(1 + 1 + 3 + 1 + 1)  // dependent slices, output flag, extra header bits, sign hiding, cabac init
        _ = (try r.unsignedGolomb(), try r.unsignedGolomb())  // num_ref_idx_l0/l1_default_active_minus1
        _ = try r.signedGolomb()  // init_qp_minus26
        try r.skip(2)  // constrained_intra_pred_flag, transform_skip_enabled_flag
        if try r.bit() == 1 { _ = try r.unsignedGolomb() }  // cu_qp_delta_enabled_flag, diff_cu_qp_delta_depth
        _ = (try r.signedGolomb(), try r.signedGolomb())  // pps_cb/cr_qp_offset
        try r.skip(4)  // slice chroma QP offsets, weighted pred and bipred, transquant bypass
        let tiles = try r.bit() == 1
        let wavefronts = try r.bit() == 1  // entropy_coding_sync_enabled_flag
        parallelismType = tiles && wavefronts ? 0 : wavefronts ? 3 : tiles ? 2 : 1
    }

    /// The profile, tier and level of a VPS or SPS, merged with those of the sets before.
    private mutating func addProfileTierLevel(_ r: inout BitReader, subLayersMinus1: Int) throws {
        // At most 7 temporal sub-layers (numTemporalLayers has 3 bits in the record).
        guard subLayersMinus1 <= 6 else {
            throw H26xError(.invalidParameterSet, "H.265 parameter set with \(subLayersMinus1 + 1) sub-layers")
        }
        let set = try H265ProfileTierLevel(reading: &r, subLayersMinus1: subLayersMinus1)
        profileSpace = set.space
        level = tier < set.tier ? set.level : max(level, set.level)
        tier = max(tier, set.tier)
        profile = max(profile, set.profile)
        compatibilityFlags &= set.compatibilityFlags
        constraintFlags &= set.constraintFlags
    }

    /// Annex E.2.1: the VUI, for its min_spatial_segmentation_idc.
    private mutating func addVUI(_ r: inout BitReader, subLayersMinus1: Int) throws {
        if try r.bit() == 1, try r.bits(8) == 255 { try r.skip(32) }  // aspect ratio, extended SAR
        if try r.bit() == 1 { try r.skip(1) }  // overscan
        if try r.bit() == 1 {  // video_signal_type_present_flag
            try r.skip(3 + 1)
            if try r.bit() == 1 { try r.skip(24) }  // colour description
        }
        if try r.bit() == 1 { _ = (try r.unsignedGolomb(), try r.unsignedGolomb()) }  // chroma sample location
        try r.skip(3)  // neutral_chroma_indication, field_seq, frame_field_info_present
        if try r.bit() == 1 { for _ in 0..<4 { _ = try r.unsignedGolomb() } }  // default display window
        if try r.bit() == 1 {  // vui_timing_info_present_flag
            try r.skip(64)
            if try r.bit() == 1 { _ = try r.unsignedGolomb() }  // POC proportional to timing
            if try r.bit() == 1 { try Self.skipHRDParameters(&r, subLayersMinus1: subLayersMinus1) }
        }
        guard try r.bit() == 1 else { return }  // bitstream_restriction_flag
        try r.skip(3)  // tiles_fixed_structure, motion_vectors_over_pic_boundaries, restricted_ref_pic_lists
        let segmentation = try r.unsignedGolomb()
        guard segmentation < Self.noSpatialSegmentation else {
            throw H26xError(.invalidParameterSet, "H.265 SPS min_spatial_segmentation_idc \(segmentation)")
        }
        minSpatialSegmentation = min(minSpatialSegmentation, segmentation)
        for _ in 0..<4 { _ = try r.unsignedGolomb() }  // max bytes per picture, bits per CU, motion vector lengths
    }

    /// Section 7.3.4.
    static func skipScalingListData(_ r: inout BitReader) throws {
        for size in 0..<4 {
            for _ in stride(from: 0, to: 6, by: size == 3 ? 3 : 1) {
                if try r.bit() == 0 {
                    _ = try r.unsignedGolomb()  // scaling_list_pred_matrix_id_delta
                } else {
                    if size > 1 { _ = try r.signedGolomb() }  // scaling_list_dc_coef_minus8
                    for _ in 0..<min(64, 1 << (4 + (size << 1))) { _ = try r.signedGolomb() }
                }
            }
        }
    }

    /// Section 7.3.7, for each of the SPS's sets: a set predicted from the one before it has one entry per
    /// picture of that one (plus one), so each set's picture count is kept.
    static func skipShortTermReferenceSets(_ r: inout BitReader) throws {
        let count = Int(try r.unsignedGolomb())
        guard count <= maxShortTermSets else {
            throw H26xError(.invalidParameterSet, "H.265 SPS with \(count) short-term reference picture sets")
        }
        var pictures: [Int] = []
        for index in 0..<count {
            if index > 0, try r.bit() == 1 {  // inter_ref_pic_set_prediction_flag
                try r.skip(1)  // delta_rps_sign
                _ = try r.unsignedGolomb()  // abs_delta_rps_minus1
                var used = 0
                for _ in 0...pictures[index - 1] {
                    // used_by_curr_pic_flag, else use_delta_flag
                    if try r.bit() == 1 || r.bit() == 1 { used += 1 }
                }
                pictures.append(used)
            } else {
                let negative = Int(try r.unsignedGolomb())
                let positive = Int(try r.unsignedGolomb())
                guard negative + positive <= maxDeltaPictures else {
                    throw H26xError(.invalidParameterSet, "H.265 SPS reference picture set of \(negative + positive)")
                }
                for _ in 0..<(negative + positive) {
                    _ = try r.unsignedGolomb()  // delta_poc_s0/s1_minus1
                    try r.skip(1)  // used_by_curr_pic_s0/s1_flag
                }
                pictures.append(negative + positive)
            }
        }
    }

    /// Annex E.2.2 with commonInfPresentFlag 1.
    static func skipHRDParameters(_ r: inout BitReader, subLayersMinus1: Int) throws {
        let nal = try r.bit() == 1
        let vcl = try r.bit() == 1
        var subPicture = false
        if nal || vcl {
            subPicture = try r.bit() == 1
            if subPicture { try r.skip(8 + 5 + 1 + 5) }
            try r.skip(4 + 4)  // bit_rate_scale, cpb_size_scale
            if subPicture { try r.skip(4) }
            try r.skip(5 + 5 + 5)
        }
        for _ in 0...subLayersMinus1 {
            let fixedGeneral = try r.bit() == 1
            var fixedWithinSequence = true
            if !fixedGeneral { fixedWithinSequence = try r.bit() == 1 }
            var lowDelay = false
            if fixedWithinSequence { _ = try r.unsignedGolomb() } else { lowDelay = try r.bit() == 1 }
            var cpbCountMinus1: UInt32 = 0
            if !lowDelay { cpbCountMinus1 = try r.unsignedGolomb() }
            guard cpbCountMinus1 < 32 else {
                throw H26xError(.invalidParameterSet, "H.265 SPS HRD with \(cpbCountMinus1 + 1) CPB specifications")
            }
            for _ in 0..<((nal ? 1 : 0) + (vcl ? 1 : 0)) {
                for _ in 0...cpbCountMinus1 {
                    _ = (try r.unsignedGolomb(), try r.unsignedGolomb())  // bit rate, CPB size
                    if subPicture { _ = (try r.unsignedGolomb(), try r.unsignedGolomb()) }
                    try r.skip(1)  // cbr_flag
                }
            }
        }
    }
}
