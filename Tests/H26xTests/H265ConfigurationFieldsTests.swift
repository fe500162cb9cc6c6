import Testing

@testable import H26x

/// The hvcC record's parameter-set parser on sets written bit by bit: the syntax no fixture's encoder
/// produced (predicted reference picture sets, spatial segmentation, tiles and wavefronts), and each of its
/// limits. ConfigurationRecordTests compares whole records with FFmpeg's on real streams.
@Suite struct H265ConfigurationFieldsTests {
    /// What the written SPS holds; the defaults make a small valid one.
    struct SPS {
        var pocLSBBitsMinus4: UInt32 = 4
        /// Each set: nil for one predicted from the set before it, else (negative, positive) pictures.
        var shortTermSets: [(negative: UInt32, positive: UInt32)?] = [(2, 0)]
        var longTermPictures: UInt32? = nil
        var cpbCountMinus1: UInt32 = 0
        var segmentation: UInt32? = nil

        func nal() -> NALUnit {
            var w = BitWriter()
            w.bits(0, 4)  // sps_video_parameter_set_id
            w.bits(0, 3)  // sps_max_sub_layers_minus1
            w.flag(true)  // sps_temporal_id_nesting_flag
            H265ConfigurationFieldsTests.profileTierLevel(&w)
            w.ue(0)  // sps_seq_parameter_set_id
            w.ue(1)  // chroma_format_idc
            w.ue(64)
            w.ue(64)
            w.flag(false)  // conformance_window_flag
            w.ue(0)
            w.ue(0)  // bit depths
            w.ue(pocLSBBitsMinus4)
            w.flag(true)  // sps_sub_layer_ordering_info_present_flag
            w.ue(1)
            w.ue(0)
            w.ue(0)
            for value: UInt32 in [0, 1, 0, 1, 0, 0] { w.ue(value) }  // block sizes, hierarchy depths
            w.flag(false)  // scaling_list_enabled_flag
            w.flag(false)
            w.flag(false)  // amp, sao
            w.flag(false)  // pcm_enabled_flag
            w.ue(UInt32(shortTermSets.count))
            var previousPictures = 0
            for (index, set) in shortTermSets.enumerated() {
                if index > 0 { w.flag(set == nil) }  // inter_ref_pic_set_prediction_flag
                if let set {
                    w.ue(set.negative)
                    w.ue(set.positive)
                    for _ in 0..<(set.negative + set.positive) {
                        w.ue(0)
                        w.flag(true)
                    }
                    previousPictures = Int(set.negative + set.positive)
                } else {
                    w.flag(false)  // delta_rps_sign
                    w.ue(0)  // abs_delta_rps_minus1
                    // Entries alternate: used; not used but kept (use_delta_flag); dropped.
                    var kept = 0
                    for entry in 0...previousPictures {
                        w.flag(entry % 3 == 0)
                        if entry % 3 != 0 { w.flag(entry % 3 == 1) }
                        if entry % 3 != 2 { kept += 1 }
                    }
                    previousPictures = kept
                }
            }
            w.flag(longTermPictures != nil)
            if let longTermPictures {
                w.ue(longTermPictures)
                for _ in 0..<longTermPictures {
                    w.bits(0, Int(pocLSBBitsMinus4) + 4)
                    w.flag(true)
                }
            }
            w.flag(true)
            w.flag(false)  // temporal MVP, strong intra smoothing
            w.flag(true)  // vui_parameters_present_flag
            for _ in 0..<3 { w.flag(false) }  // aspect ratio, overscan, video signal type
            w.flag(false)  // chroma_loc_info_present_flag
            for _ in 0..<3 { w.flag(false) }  // neutral chroma, field seq, frame field info
            w.flag(false)  // default_display_window_flag
            w.flag(true)  // vui_timing_info_present_flag
            w.bits(1, 32)
            w.bits(25, 32)
            w.flag(false)  // vui_poc_proportional_to_timing_flag
            w.flag(true)  // vui_hrd_parameters_present_flag
            w.flag(true)
            w.flag(false)  // NAL HRD, no VCL HRD
            w.flag(false)  // sub_pic_hrd_params_present_flag
            w.bits(0, 8)  // bit_rate_scale, cpb_size_scale
            w.bits(23, 5)
            w.bits(23, 5)
            w.bits(23, 5)
            w.flag(false)
            w.flag(false)  // fixed_pic_rate_general, within_cvs
            w.flag(false)  // low_delay_hrd_flag
            w.ue(cpbCountMinus1)
            for _ in 0...cpbCountMinus1 {
                w.ue(1000)
                w.ue(2000)
                w.flag(false)
            }
            w.flag(segmentation != nil)  // bitstream_restriction_flag
            if let segmentation {
                w.bits(0, 3)
                w.ue(segmentation)
                for value: UInt32 in [0, 0, 15, 15] { w.ue(value) }
            }
            w.flag(false)  // sps_extension_present_flag
            return NALUnit(codec: .h265, bytes: w.nal(header: [0x42, 0x01])[...])
        }
    }

    static func profileTierLevel(_ w: inout BitWriter) {
        w.bits(0, 2)
        w.flag(false)
        w.bits(1, 5)  // Main
        w.bits(0x6000_0000, 32)
        w.bits(0x9000_0000_0000, 48)
        w.bits(93, 8)  // level 3.1
    }

    static func vps() -> NALUnit {
        var w = BitWriter()
        w.bits(0, 4)
        w.bits(3, 2)
        w.bits(0, 6)
        w.bits(0, 3)
        w.flag(true)
        w.bits(0xFFFF, 16)
        profileTierLevel(&w)
        return NALUnit(codec: .h265, bytes: w.nal(header: [0x40, 0x01])[...])
    }

    static func pps(tiles: Bool, wavefronts: Bool) -> NALUnit {
        var w = BitWriter()
        w.ue(0)
        w.ue(0)
        w.bits(0, 7)  // dependent slices ... cabac_init_present_flag
        w.ue(0)
        w.ue(0)
        w.se(0)
        w.bits(0, 2)
        w.flag(false)  // cu_qp_delta_enabled_flag
        w.se(0)
        w.se(0)
        w.bits(0, 4)
        w.flag(tiles)
        w.flag(wavefronts)
        return NALUnit(codec: .h265, bytes: w.nal(header: [0x44, 0x01])[...])
    }

    static func fields(_ sps: SPS, tiles: Bool = false, wavefronts: Bool = false) throws(H26xError)
        -> H265ConfigurationFields
    {
        var fields = H265ConfigurationFields()
        try fields.add(vps())
        try fields.add(sps.nal())
        try fields.add(pps(tiles: tiles, wavefronts: wavefronts))
        fields.finish()
        return fields
    }

    @Test func aPredictedReferencePictureSetIsWalkedToTheEnd() throws {
        var sps = SPS()
        sps.shortTermSets = [(3, 1), nil, nil, (1, 0), nil]
        sps.longTermPictures = 2
        var fields = H265ConfigurationFields()
        try fields.add(sps.nal())
        #expect(fields.lastSPSEndedAtTrailingBits)
        #expect(fields.level == 93 && fields.profile == 1 && fields.temporalLayers == 1)
    }

    @Test(arguments: [(false, false, UInt8(1)), (true, false, 2), (false, true, 3), (true, true, 0)])
    func theParallelismTypeComesFromThePPSWhenTheSPSPromisesSegmentation(
        tiles: Bool, wavefronts: Bool, expected: UInt8
    ) throws {
        var sps = SPS()
        sps.segmentation = 200
        let fields = try Self.fields(sps, tiles: tiles, wavefronts: wavefronts)
        #expect(fields.minSpatialSegmentation == 200)
        #expect(fields.parallelismType == expected)
        // Without the promise there is no parallelism to speak of (ISO/IEC 14496-15, and FFmpeg).
        let unpromised = try Self.fields(SPS(), tiles: tiles, wavefronts: wavefronts)
        #expect(unpromised.minSpatialSegmentation == 0)
        #expect(unpromised.parallelismType == 0)
    }

    @Test func theRecordCarriesTheSegmentationAndParallelism() throws {
        var sps = SPS()
        sps.segmentation = 0x123
        var sets = ParameterSets(codec: .h265)
        for nal in [Self.vps(), sps.nal(), Self.pps(tiles: false, wavefronts: true)] { sets.update(nal) }
        let record = try sets.decoderConfigurationRecord()
        #expect(Array(record[13...15]) == [0xF1, 0x23, 0xFC | 3])
    }

    /// The parser's limits, each set just inside or just outside.
    enum Limit: CaseIterable, Sendable {
        case shortTermSets, picturesInASet, longTermPictures, pocLSBBits, cpbSpecifications, segmentation

        /// What the error says.
        var reason: String {
            switch self {
            case .shortTermSets: "short-term reference picture sets"
            case .picturesInASet: "reference picture set of"
            case .longTermPictures: "long-term pictures"
            case .pocLSBBits: "POC LSB"
            case .cpbSpecifications: "CPB specifications"
            case .segmentation: "min_spatial_segmentation_idc"
            }
        }

        func sps(beyond: Bool) -> SPS {
            var sps = SPS()
            switch self {
            case .shortTermSets: sps.shortTermSets = Array(repeating: (1, 0), count: beyond ? 65 : 64)
            case .picturesInASet: sps.shortTermSets = [(16, beyond ? 17 : 16)]
            case .longTermPictures: sps.longTermPictures = beyond ? 33 : 32
            case .pocLSBBits: sps.pocLSBBitsMinus4 = beyond ? 13 : 12
            case .cpbSpecifications: sps.cpbCountMinus1 = beyond ? 32 : 31
            case .segmentation: sps.segmentation = beyond ? 4096 : 4095
            }
            return sps
        }
    }

    /// Each limit of the parser: just inside, the SPS parses to its end; just outside, a named error.
    @Test(arguments: Limit.allCases)
    func limits(limit: Limit) throws {
        var fields = H265ConfigurationFields()
        try fields.add(limit.sps(beyond: false).nal())
        #expect(fields.lastSPSEndedAtTrailingBits)
        do {
            var beyond = H265ConfigurationFields()
            try beyond.add(limit.sps(beyond: true).nal())
            Issue.record("no error beyond the limit of \(limit.reason)")
        } catch {
            #expect(error.code == .invalidParameterSet)
            #expect(error.reason.contains(limit.reason))
        }
    }

    @Test func aParameterSetTooLargeForTheRecordIsRefused() {
        var sets = ParameterSets(codec: .h265)
        var sps = SPS()
        sps.segmentation = 1
        for nal in [Self.vps(), sps.nal(), Self.pps(tiles: false, wavefronts: false)] { sets.update(nal) }
        #expect((try? sets.decoderConfigurationRecord()) != nil)
        // 65,536 bytes: as large as ParameterSets keeps, one more than a record's 16-bit length holds.
        let pps = Self.pps(tiles: false, wavefronts: false).bytes
        let huge = pps + [UInt8](repeating: 0x80, count: 65_536 - pps.count)
        sets.update(NALUnit(codec: .h265, bytes: huge[...]))
        #expect(throws: H26xError.self) { try sets.decoderConfigurationRecord() }
    }
}
