import RTP

/// Turns in-order RTP packets of an H.264 stream (RFC 6184) into access units.
///
/// Takes every packetization mode: single NAL units, STAP-A and FU-A (modes 0 and 1), and the
/// interleaved mode 2 (STAP-B, MTAP16, MTAP24, FU-B), whose NAL units are put back into decoding order
/// by their DON. Feed it the output of a ``ReorderBuffer``: packets with ``push(_:)``, gaps with
/// ``noteLoss(_:)``; after each, take the access units it completed with ``nextAccessUnit()``:
///
/// ```swift
/// var depacketizer = H264Depacketizer()
/// depacketizer.push(packet)
/// while let accessUnit = depacketizer.nextAccessUnit() { print(accessUnit.timestamp, accessUnit.nalUnits.count) }
/// ```
///
/// A unit taken and let go of before the next push leaves its buffer to the next unit: in steady state
/// nothing is allocated. (A unit kept longer is safe; the next one then gets a new buffer.)
public struct H264Depacketizer: Sendable {
    @usableFromInline var core: DepacketizerCore

    /// Creates a depacketizer. `parameterSets` are those from the SDP (`sprop-parameter-sets`), if any.
    /// For `packetization-mode=2`, set ``DepacketizerConfiguration/deinterleavingDepth`` from
    /// `sprop-interleaving-depth` (at least 1).
    public init(
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        parameterSets: ParameterSets = ParameterSets(codec: .h264)
    ) {
        core = DepacketizerCore(codec: .h264, configuration: configuration, parameterSets: parameterSets)
    }

    /// What was counted so far.
    public var statistics: DepacketizerStatistics {
        var s = core.statistics
        s.skippedAccessUnits = core.assembler.skippedAccessUnits
        s.quirks += core.assembler.parametersInsidePicture
        return s
    }

    /// Every parameter set seen, from the SDP and in band.
    public var parameterSets: ParameterSets { core.parameterSets }

    /// The most recent payload this depacketizer refused, and why.
    public var lastError: H26xError? { core.lastError }

    /// Tells the depacketizer that `count` packets before the next one were lost.
    public mutating func noteLoss(_ count: Int) {
        core.noteLoss(count)
    }

    /// Ends the stream: completes what is still held.
    public mutating func flush() {
        core.flush()
    }

    /// Ends the stream where it broke (a reconnect, a new source): completes what is held, and a unit whose
    /// end never came (its marker packet, or the rest of a fragmented NAL unit) counts a lost packet.
    public mutating func cutOff() {
        core.cutOff()
    }

    /// The oldest access unit completed and not yet taken; nil until the next push, loss or flush.
    @inlinable
    public mutating func nextAccessUnit() -> AccessUnit? {
        core.nextAccessUnit()
    }

    /// Takes the next packet in sequence order.
    public mutating func push(_ packet: RTPPacket) {
        guard core.admits(packet) else { return }
        core.beginPacket(packet)
        // The payload borrowed from the packet, not bound to a local: that copied the packet (a retain and a
        // release of its bytes' storage).
        guard handle(packet.payload) else { return }
        core.endPacket(packet)
    }

    /// The payload of a packet, between `beginPacket` and `endPacket`; false if it is empty or a STAP-B too
    /// short for its DON (then the packet does not end an access unit, whatever its marker).
    private mutating func handle(_ payload: ArraySlice<UInt8>) -> Bool {
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
        case 24: aggregation(payload, headerLength: 1)
        case 25:
            guard let don = payload.u16(at: 1) else {
                malformed()
                return false
            }
            aggregation(payload, headerLength: 3, firstDON: don)
        case 26, 27: multiTime(payload, offsetLength: type == 26 ? 2 : 3)
        case 28, 29: fragment(payload, withDON: type == 29)
        default:
            core.statistics.malformedPackets += 1
        }
        return true
    }

    private mutating func malformed() {
        core.statistics.malformedPackets += 1
    }

    /// STAP-A (and STAP-B, whose NAL units take consecutive DONs from the first).
    private mutating func aggregation(
        _ payload: ArraySlice<UInt8>, headerLength: Int, firstDON: UInt16? = nil
    ) {
        var offset = headerLength
        var don = firstDON
        guard offset < payload.count else { return malformed() }  // an aggregation of nothing
        while offset < payload.count {
            guard let size = payload.u16(at: offset).map(Int.init),
                let nal = payload.bytes(at: offset + 2, length: size)
            else { return malformed() }
            if size > 0 { core.nal(nal, don: don) }
            don = don.map { $0 &+ 1 }
            offset += 2 + size
        }
    }

    /// MTAP16 and MTAP24: each NAL unit with its DON difference and timestamp offset.
    private mutating func multiTime(_ payload: ArraySlice<UInt8>, offsetLength: Int) {
        guard let base = payload.u16(at: 1), payload.count > 3 else { return malformed() }
        var offset = 3
        let packetTimestamp = core.packetTimestamp
        while offset < payload.count {
            guard let size = payload.u16(at: offset).map(Int.init), size >= 1 + offsetLength,
                let dond = payload.bytes(at: offset + 2, length: 1)?.first,
                let tsOffset = payload.bytes(at: offset + 3, length: offsetLength),
                let nal = payload.bytes(at: offset + 3 + offsetLength, length: size - 1 - offsetLength)
            else { return malformed() }
            let delta = tsOffset.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            core.nal(nal, don: base &+ UInt16(dond), timestamp: packetTimestamp + delta)
            offset += 2 + size
        }
    }

    /// FU-A and FU-B (FU-B carries the DON, in the first fragment only).
    private mutating func fragment(_ payload: ArraySlice<UInt8>, withDON: Bool) {
        guard payload.count >= (withDON ? 4 : 2) else { return malformed() }
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
