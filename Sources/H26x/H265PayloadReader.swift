/// RFC 7798's payload structures taken apart into the depacketizer's core: single NAL unit packets,
/// aggregation packets (AP) and fragmentation units (FU), with their DONL / DOND fields when
/// `sprop-max-don-diff` is above 0, and PACI packets, unwrapped (the header extension skipped) and read as the
/// packet they carry.
struct H265PayloadReader: Sendable {
    /// Whether DONL/DOND fields are present (`sprop-max-don-diff` > 0).
    let usesDecodingOrderNumbers: Bool
    private var lastDON: UInt16 = 0

    init(usesDecodingOrderNumbers: Bool) { self.usesDecodingOrderNumbers = usesDecodingOrderNumbers }

    mutating func read(_ payload: ArraySlice<UInt8>, nested: Bool, into core: inout DepacketizerCore) {
        guard payload.count >= 3 else {
            core.statistics.malformedPackets += 1
            return
        }
        if !nested && AnnexB.startsWithStartCode(payload) {
            // Quirk: an Annex B stream (start codes and all) sent as if it were one NAL unit.
            core.statistics.quirks += 1
            core.nal(payload, don: nil)
            return
        }
        let type = (payload[payload.startIndex] >> 1) & 0x3F
        if type != 49 && core.fragmentType != nil {
            core.statistics.quirks += 1  // a fragmented NAL unit ended without its end bit, without loss
            core.endFragment()
        }
        switch type {
        case 0...47: single(payload, into: &core)
        case 48: aggregation(payload, into: &core)
        case 49: fragment(payload, into: &core)
        case 50 where !nested: paci(payload, into: &core)
        default:
            core.statistics.unsupportedPackets += 1
            core.lastError = H26xError(
                .unsupportedPacketization,
                nested
                    ? "H.265 PACI packet inside a PACI packet" : "H.265 payload type \(type) is not defined by RFC 7798"
            )
        }
    }

    private mutating func single(_ payload: ArraySlice<UInt8>, into core: inout DepacketizerCore) {
        guard usesDecodingOrderNumbers else {
            core.nal(payload, don: nil)
            return
        }
        guard let don = payload.u16(at: 2), payload.count > 4 else {
            core.statistics.malformedPackets += 1
            return
        }
        // The NAL unit is the payload header followed by the data after the DONL field.
        var nal = Array(payload.prefix(2))
        nal.append(contentsOf: payload.dropFirst(4))
        lastDON = don
        core.nal(nal[...], don: don)
    }

    private mutating func aggregation(_ payload: ArraySlice<UInt8>, into core: inout DepacketizerCore) {
        var offset = 2
        var first = true
        guard payload.count > 4 else { return malformed(&core) }  // an aggregation of nothing
        while offset < payload.count {
            var don: UInt16?
            if usesDecodingOrderNumbers {
                if first {
                    guard let value = payload.u16(at: offset) else { return malformed(&core) }
                    don = value
                    offset += 2
                } else {
                    guard let difference = payload.bytes(at: offset, length: 1)?.first else { return malformed(&core) }
                    don = lastDON &+ UInt16(difference) &+ 1
                    offset += 1
                }
                lastDON = don ?? lastDON
            }
            guard let size = payload.u16(at: offset).map(Int.init),
                let nal = payload.bytes(at: offset + 2, length: size)
            else { return malformed(&core) }
            if size > 0 { core.nal(nal, don: don) }
            offset += 2 + size
            first = false
        }
    }

    private func malformed(_ core: inout DepacketizerCore) {
        core.statistics.malformedPackets += 1
    }

    private mutating func fragment(_ payload: ArraySlice<UInt8>, into core: inout DepacketizerCore) {
        let header = payload[payload.startIndex + 2]
        let start = header & 0x80 != 0
        let end = header & 0x40 != 0
        let type = header & 0x3F
        var dataOffset = 3
        if start {
            var don: UInt16?
            if usesDecodingOrderNumbers {
                guard let value = payload.u16(at: 3) else { return malformed(&core) }
                don = value
                lastDON = value
                dataOffset = 5
            }
            let first = payload[payload.startIndex] & 0x81 | type << 1
            core.beginFragment(type: type, header: first, payload[payload.startIndex + 1], don: don)
        } else if core.fragmentType == nil {
            return
        } else if core.fragmentType != type {
            // Quirk (Tiandy cameras), as in H.264: a continuation fragment's FU type differs from the start's;
            // nothing was lost between them, so the NAL unit goes on with the start fragment's type.
            core.statistics.quirks += 1
        }
        // In bounds: push admits 3 bytes or more, and a DONL was read only if 5 are there.
        core.appendFragment(payload, from: payload.startIndex + dataOffset)
        if end { core.endFragment() }
        if start && end { core.statistics.quirks += 1 }
    }

    /// PACI (RFC 7798 section 4.4.4): the carried packet's payload header is the PACI header with the
    /// type replaced by cType; the PHES header extension is skipped.
    private mutating func paci(_ payload: ArraySlice<UInt8>, into core: inout DepacketizerCore) {
        guard let fields = payload.u16(at: 2) else { return malformed(&core) }
        let carriedType = UInt8(fields >> 9 & 0x3F)
        let extensionLength = Int(fields >> 4 & 0x1F)
        guard payload.count > 4 + extensionLength else { return malformed(&core) }
        var carried: [UInt8] = [payload[payload.startIndex] & 0x81 | carriedType << 1, payload[payload.startIndex + 1]]
        carried.append(contentsOf: payload.dropFirst(4 + extensionLength))
        read(carried[...], nested: true, into: &core)
    }
}
