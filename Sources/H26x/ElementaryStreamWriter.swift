/// Writes access units as an elementary stream: Annex B (start codes) or length-prefixed NAL units (the
/// avcC / hvcC sample format of MP4 and of Apple's VideoToolbox).
public struct ElementaryStreamWriter: Sendable {
    /// How NAL units are delimited.
    public enum Framing: Sendable, Hashable {
        /// 00 00 00 01 before each NAL unit.
        case annexB
        /// A big-endian length of `size` bytes (1, 2 or 4) before each NAL unit.
        case lengthPrefixed(size: Int)
    }

    public let framing: Framing
    /// Put the known parameter sets before a keyframe that does not carry them itself (streams that
    /// send them only in the SDP, or only once). Default true.
    public let insertParameterSets: Bool

    public init(framing: Framing = .annexB, insertParameterSets: Bool = true) {
        self.framing = framing
        self.insertParameterSets = insertParameterSets
    }

    /// Appends `unit` to `out`. `parameterSets` are the depacketizer's (SDP and in band).
    public func write(_ unit: AccessUnit, parameterSets: ParameterSets, into out: inout [UInt8]) {
        if insertParameterSets && unit.isKeyframe && !carriesParameterSets(unit) {
            for set in parameterSets.all { append(set.bytes, to: &out) }
        }
        for nal in unit.nalUnits { append(nal.bytes, to: &out) }
    }

    /// Whether the access unit holds an SPS and a PPS (and a VPS, for H.265).
    func carriesParameterSets(_ unit: AccessUnit) -> Bool {
        var types: UInt64 = 0  // a bit per NAL unit type seen (no Set: this runs for every keyframe)
        for nal in unit.nalUnits where nal.isParameterSet { types |= 1 << UInt64(nal.type) }
        let needed: UInt64 = unit.codec == .h264 ? (1 << 7 | 1 << 8) : (1 << 32 | 1 << 33 | 1 << 34)
        return types & needed == needed
    }

    func append(_ nal: ArraySlice<UInt8>, to out: inout [UInt8]) {
        switch framing {
        case .annexB:
            out.append(contentsOf: [0, 0, 0, 1])
        case .lengthPrefixed(let size):
            for shift in stride(from: (size - 1) * 8, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: nal.count >> shift))
            }
        }
        out.append(contentsOf: nal)
    }
}

extension ParameterSets {
    /// The AVCDecoderConfigurationRecord (ISO/IEC 14496-15 section 5.3.3.1, the `avcC` box) for an H.264
    /// stream, with 4-byte NAL lengths; nil without an SPS and a PPS.
    public var avcDecoderConfigurationRecord: [UInt8]? {
        guard codec == .h264 else { return nil }
        let sps = all.filter { $0.type == 7 }
        let pps = all.filter { $0.type == 8 }
        guard let first = sps.first, first.bytes.count >= 4, !pps.isEmpty else { return nil }
        let profile = first.bytes[first.bytes.startIndex + 1]
        let compatibility = first.bytes[first.bytes.startIndex + 2]
        let level = first.bytes[first.bytes.startIndex + 3]
        var record: [UInt8] = [1, profile, compatibility, level, 0xFF, 0xE0 | UInt8(min(sps.count, 31))]
        for set in sps.prefix(31) {
            record += [UInt8(set.bytes.count >> 8 & 0xFF), UInt8(set.bytes.count & 0xFF)] + set.bytes
        }
        record.append(UInt8(min(pps.count, 255)))
        for set in pps.prefix(255) {
            record += [UInt8(set.bytes.count >> 8 & 0xFF), UInt8(set.bytes.count & 0xFF)] + set.bytes
        }
        return record
    }
}
