extension ParameterSets {
    /// The decoder configuration record of MP4 (ISO/IEC 14496-15) for these parameter sets, with 4-byte
    /// NAL unit lengths (``ElementaryStreamWriter/Framing/lengthPrefixed(_:)`` with 4): the payload of the
    /// `avcC` box for H.264 (section 5.3.3.1), of the `hvcC` box for H.265 (section 8.3.3.1).
    ///
    /// Every known set goes in, VPS, SPS, PPS, each by id. For H.265 each array says it may be incomplete
    /// (`array_completeness` 0), since the stream's access units keep their own parameter sets; the fields
    /// read from the sets are found as FFmpeg's MP4 muxer finds them (see the tests' references).
    ///
    /// - Throws: ``H26xError`` `.invalidParameterSet` when a needed set is missing (an SPS and a PPS; for
    ///   H.265 a VPS too) or cannot be read.
    public func decoderConfigurationRecord() throws(H26xError) -> [UInt8] {
        if let large = all.first(where: { $0.bytes.count > 0xFFFF }) {
            throw H26xError(
                .invalidParameterSet,
                "a \(large.typeName) of \(large.bytes.count) bytes does not fit a configuration record (at most 65,535)"
            )
        }
        return codec == .h264 ? try avcDecoderConfigurationRecord() : try hevcDecoderConfigurationRecord()
    }

    private func sets(ofType type: UInt8) -> [NALUnit] { all.filter { $0.type == type } }

    private func avcDecoderConfigurationRecord() throws(H26xError) -> [UInt8] {
        let sps = sets(ofType: 7)
        let pps = sets(ofType: 8)
        guard let first = sps.first, first.bytes.count >= 4, !pps.isEmpty else {
            throw H26xError(.invalidParameterSet, "an avcC record needs an SPS and a PPS; the stream has not sent both")
        }
        let profile = first.bytes[first.bytes.startIndex + 1]
        var record: [UInt8] = [
            1, profile, first.bytes[first.bytes.startIndex + 2], first.bytes[first.bytes.startIndex + 3],
            0xFC | 3, 0xE0 | UInt8(min(sps.count, 31)),
        ]
        for set in sps.prefix(31) { Self.appendWithLength(set, to: &record) }
        record.append(UInt8(min(pps.count, 255)))
        for set in pps.prefix(255) { Self.appendWithLength(set, to: &record) }
        // Every profile but Baseline, Main and Extended (the High profiles) adds the chroma format and bit
        // depths (the 2014 and later editions; FFmpeg writes them the same way).
        if ![66, 77, 88].contains(profile) {
            let parsed = try SequenceParameterSet(first)
            record += [
                0xFC | parsed.chromaFormat, 0xF8 | (parsed.bitDepthLuma - 8), 0xF8 | (parsed.bitDepthChroma - 8),
                0,  // numOfSequenceParameterSetExt
            ]
        }
        return record
    }

    private func hevcDecoderConfigurationRecord() throws(H26xError) -> [UInt8] {
        let arrays = [sets(ofType: 32), sets(ofType: 33), sets(ofType: 34)]
        guard arrays.allSatisfy({ !$0.isEmpty }) else {
            throw H26xError(
                .invalidParameterSet, "an hvcC record needs a VPS, an SPS and a PPS; the stream has not sent all three")
        }
        var fields = H265ConfigurationFields()
        for set in arrays.joined() { try fields.add(set) }
        fields.finish()
        var record: [UInt8] = [1, fields.profileSpace << 6 | fields.tier << 5 | fields.profile]
        Self.appendBigEndian(UInt64(fields.compatibilityFlags), bytes: 4, to: &record)
        Self.appendBigEndian(fields.constraintFlags, bytes: 6, to: &record)
        record.append(fields.level)
        Self.appendBigEndian(0xF000 | UInt64(fields.minSpatialSegmentation), bytes: 2, to: &record)
        record += [
            0xFC | fields.parallelismType, 0xFC | fields.chromaFormat,
            0xF8 | fields.bitDepthLumaMinus8, 0xF8 | fields.bitDepthChromaMinus8,
            0, 0,  // avgFrameRate: not given
            // constantFrameRate 0, numTemporalLayers, temporalIdNested, lengthSizeMinusOne 3
            fields.temporalLayers << 3 | fields.temporalIDNested << 2 | 3,
            UInt8(arrays.count),
        ]
        for array in arrays {
            record.append(array[0].type)  // array_completeness 0, reserved 0, NAL_unit_type
            Self.appendBigEndian(UInt64(array.count), bytes: 2, to: &record)
            for set in array { Self.appendWithLength(set, to: &record) }
        }
        return record
    }

    private static func appendWithLength(_ nal: NALUnit, to record: inout [UInt8]) {
        appendBigEndian(UInt64(nal.bytes.count), bytes: 2, to: &record)
        record += nal.bytes
    }

    private static func appendBigEndian(_ value: UInt64, bytes: Int, to record: inout [UInt8]) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            record.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
}
