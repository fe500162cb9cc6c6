/// Writes access units as an elementary stream: Annex B (start codes) or length-prefixed NAL units (the
/// avcC / hvcC sample format of MP4 and of Apple's VideoToolbox). JPEG pictures are written as their files,
/// one after the other (Motion JPEG, as players open it), whatever the framing.
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
        if let jpeg = unit.jpeg { return out.append(contentsOf: jpeg) }
        if needsParameterSets(unit) {
            for set in parameterSets.all { append(set.bytes, to: &out) }
        }
        if framing == .annexB, let bytes = unit.nalUnits.annexB {
            out.append(contentsOf: bytes)
            return
        }
        for nal in unit.nalUnits { append(nal.bytes, to: &out) }
    }

    /// Hands `unit` to `write` in as few pieces as it can: with Annex B framing, the access unit's own
    /// buffer (no copy), after the parameter sets when they are inserted. `parameterSets` are the
    /// depacketizer's (SDP and in band).
    public func write<E: Error>(
        _ unit: AccessUnit, parameterSets: ParameterSets, to write: (ArraySlice<UInt8>) throws(E) -> Void
    ) throws(E) {
        if let jpeg = unit.jpeg { return try write(jpeg) }
        guard framing == .annexB, let bytes = unit.nalUnits.annexB else {
            var out: [UInt8] = []
            self.write(unit, parameterSets: parameterSets, into: &out)
            try write(out[...])
            return
        }
        if needsParameterSets(unit) {
            var sets: [UInt8] = []
            for set in parameterSets.all { append(set.bytes, to: &sets) }
            try write(sets[...])
        }
        try write(bytes)
    }

    private func needsParameterSets(_ unit: AccessUnit) -> Bool {
        insertParameterSets && unit.isKeyframe && !carriesParameterSets(unit)
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
