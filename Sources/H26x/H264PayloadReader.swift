/// RFC 6184's payload structures taken apart into the depacketizer's core: single NAL units, STAP-A and
/// FU-A (packetization modes 0 and 1), and the interleaved mode 2's STAP-B, MTAP16, MTAP24 and FU-B, whose
/// NAL units carry their DON.
enum H264PayloadReader {
    /// Reads the payload of a packet into `core`, between `beginPacket` and `endPacket`; false if it is empty or a STAP-B too
    /// short for its DON (then the packet does not end an access unit, whatever its marker).
    static func read(_ payload: ArraySlice<UInt8>, into core: inout DepacketizerCore) -> Bool {
        guard let indicator = payload.first else {
            core.statistics.malformedPackets += 1
            return false
        }
        if indicator == 0 && AnnexB.startsWithStartCode(payload) {
            // Quirk: an Annex B stream (start codes and all) sent as if it were one NAL unit.
            core.statistics.quirks += 1
            core.nal(payload, don: nil)
            return true
        }
        let type = indicator & 0x1F
        if type != 28 && type != 29 && core.fragmentType != nil {
            // A fragmented NAL unit ended without its end bit and without loss (contiguous sequence numbers).
            core.statistics.quirks += 1
            core.endFragment()
        }
        switch type {
        case 1...23: core.nal(payload, don: nil)
        case 24: aggregation(payload, headerLength: 1, into: &core)
        case 25:
            guard let don = payload.u16(at: 1) else {
                malformed(&core)
                return false
            }
            aggregation(payload, headerLength: 3, firstDON: don, into: &core)
        case 26, 27: multiTime(payload, offsetLength: type == 26 ? 2 : 3, into: &core)
        case 28, 29: fragment(payload, withDON: type == 29, into: &core)
        default:
            core.statistics.malformedPackets += 1
        }
        return true
    }

    private static func malformed(_ core: inout DepacketizerCore) {
        core.statistics.malformedPackets += 1
    }

    /// STAP-A (and STAP-B, whose NAL units take consecutive DONs from the first).
    private static func aggregation(
        _ payload: ArraySlice<UInt8>, headerLength: Int, firstDON: UInt16? = nil, into core: inout DepacketizerCore
    ) {
        var offset = headerLength
        var don = firstDON
        guard offset < payload.count else { return malformed(&core) }  // an aggregation of nothing
        while offset < payload.count {
            guard let size = payload.u16(at: offset).map(Int.init),
                let nal = payload.bytes(at: offset + 2, length: size)
            else { return malformed(&core) }
            if size > 0 { core.nal(nal, don: don) }
            don = don.map { $0 &+ 1 }
            offset += 2 + size
        }
    }

    /// MTAP16 and MTAP24: each NAL unit with its DON difference and timestamp offset.
    private static func multiTime(
        _ payload: ArraySlice<UInt8>, offsetLength: Int, into core: inout DepacketizerCore
    ) {
        guard let base = payload.u16(at: 1), payload.count > 3 else { return malformed(&core) }
        var offset = 3
        let packetTimestamp = core.packetTimestamp
        while offset < payload.count {
            guard let size = payload.u16(at: offset).map(Int.init), size >= 1 + offsetLength,
                let dond = payload.bytes(at: offset + 2, length: 1)?.first,
                let tsOffset = payload.bytes(at: offset + 3, length: offsetLength),
                let nal = payload.bytes(at: offset + 3 + offsetLength, length: size - 1 - offsetLength)
            else { return malformed(&core) }
            let delta = tsOffset.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            core.nal(nal, don: base &+ UInt16(dond), timestamp: packetTimestamp + delta)
            offset += 2 + size
        }
    }

    /// FU-A and FU-B (FU-B carries the DON, in the first fragment only).
    private static func fragment(_ payload: ArraySlice<UInt8>, withDON: Bool, into core: inout DepacketizerCore) {
        guard payload.count >= (withDON ? 4 : 2) else { return malformed(&core) }
        let indicator = payload[payload.startIndex]
        let header = payload[payload.startIndex + 1]
        let start = header & 0x80 != 0
        let end = header & 0x40 != 0
        let type = header & 0x1F
        if start {
            let don = withDON ? payload.u16(at: 2) : nil
            core.beginFragment(type: type, header: indicator & 0xE0 | type, don: don)
        } else if core.fragmentType == nil {
            return  // the start of this NAL unit was lost: its other fragments are dropped
        } else if core.fragmentType != type {
            // Quirk (Tiandy cameras): the type in the FU header changes in continuation fragments. The
            // sequence numbers say nothing was lost in between, so the pieces belong together; the type is
            // the start fragment's, as GStreamer and FFmpeg take it.
            core.statistics.quirks += 1
        }
        core.appendFragment(payload, from: payload.startIndex + (withDON ? 4 : 2))  // in bounds: the guard above
        if end { core.endFragment() }
        if start && end { core.statistics.quirks += 1 }  // Quirk: one fragment with both bits set.
    }
}
