import RTP

/// Groups the NAL units of an Annex B stream (a `.h264` or `.h265` file, an encoder's output) into access units,
/// where H.264 (section 7.4.1.2.3) and H.265 (section 7.4.2.4.4) say one ends: before an access unit delimiter,
/// a parameter set, a prefix SEI or another NAL unit that may only come first, and before the first slice of the
/// next picture (`first_mb_in_slice` 0, `first_slice_segment_in_pic_flag` 1), once the current one has a slice.
///
/// ```swift
/// for nalUnits in AccessUnitSplitter.accessUnits(in: fileBytes, codec: .h264) {
///     let unit = AccessUnit(codec: .h264, timestamp: ticks, nalUnits: nalUnits)
/// }
/// ```
public enum AccessUnitSplitter {
    /// Each access unit's NAL units (without start codes), in order. Bytes before the first start code are a NAL
    /// unit too; empty ones are left out.
    public static func accessUnits(in stream: [UInt8], codec: VideoCodec) -> [[ArraySlice<UInt8>]] {
        var units: [[ArraySlice<UInt8>]] = []
        var current: [ArraySlice<UInt8>] = []
        var hasSlice = false
        for range in AnnexB.split(stream[...]) {
            let nal = stream[range]
            let isSlice = isFirstOrOtherSlice(nal, codec: codec)
            if hasSlice && beginsAccessUnit(nal, codec: codec) {
                units.append(current)
                current = []
                hasSlice = false
            }
            current.append(nal)
            hasSlice = hasSlice || isSlice != nil
        }
        if !current.isEmpty { units.append(current) }
        return units
    }

    /// Whether `nal` is a slice (nil if not), and whether it is its picture's first.
    private static func isFirstOrOtherSlice(_ nal: ArraySlice<UInt8>, codec: VideoCodec) -> Bool? {
        let first = nal[nal.startIndex]
        switch codec {
        case .h265:
            guard (first >> 1) & 0x3F < 32, nal.count > 2 else { return nil }
            return nal[nal.startIndex + 2] & 0x80 != 0  // first_slice_segment_in_pic_flag
        default:
            guard [1, 5].contains(first & 0x1F), nal.count > 1 else { return nil }
            return nal[nal.startIndex + 1] & 0x80 != 0  // first_mb_in_slice ue(v) is 0: a single 1 bit
        }
    }

    /// Whether `nal`, after a picture's slice, starts the next access unit.
    private static func beginsAccessUnit(_ nal: ArraySlice<UInt8>, codec: VideoCodec) -> Bool {
        let first = nal[nal.startIndex]
        switch codec {
        case .h265:
            let type = (first >> 1) & 0x3F
            if type < 32 { return isFirstOrOtherSlice(nal, codec: codec) == true }
            // AUD, VPS, SPS, PPS, prefix SEI, and 41-44, 48-55 (reserved and unspecified that may come first).
            return (32...35).contains(type) || type == 39 || (41...44).contains(type) || (48...55).contains(type)
        default:
            let type = first & 0x1F
            if type == 1 || type == 5 { return isFirstOrOtherSlice(nal, codec: codec) == true }
            // SEI, SPS, PPS, AUD, and 14-18.
            return (6...9).contains(type) || (14...18).contains(type)
        }
    }
}
