import RTP

/// Turns in-order RTP packets of an H.265 stream (RFC 7798) into access units.
///
/// Takes single NAL unit packets, aggregation packets (AP) and fragmentation units (FU), with the DONL /
/// DOND fields when `sprop-max-don-diff` is above 0 (then NAL units are put back into decoding order by
/// DON), and PACI packets, whose payload is unwrapped (the header extension is skipped) and handled as
/// the packet it carries. Used as ``H264Depacketizer`` is: ``push(_:)`` each packet in sequence order,
/// ``noteLoss(_:)`` each gap, then take what completed with ``nextAccessUnit()``.
public struct H265Depacketizer: Sendable {
    @usableFromInline var core: DepacketizerCore
    /// Whether DONL/DOND fields are present (`sprop-max-don-diff` > 0).
    public let usesDecodingOrderNumbers: Bool
    private var lastDON: UInt16 = 0

    /// Creates a depacketizer. `parameterSets` come from `sprop-vps`, `sprop-sps` and `sprop-pps`.
    /// `maxDONDiff` is `sprop-max-don-diff` (0 when absent); when it is above 0, set
    /// ``DepacketizerConfiguration/deinterleavingDepth`` from `sprop-depack-buf-nalus` (at least 1).
    public init(
        configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        parameterSets: ParameterSets = ParameterSets(codec: .h265), maxDONDiff: Int = 0
    ) {
        var configuration = configuration
        if maxDONDiff > 0 && configuration.deinterleavingDepth == 0 {
            configuration.deinterleavingDepth = min(maxDONDiff, 32_767)
        }
        usesDecodingOrderNumbers = maxDONDiff > 0
        core = DepacketizerCore(codec: .h265, configuration: configuration, parameterSets: parameterSets)
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
        handle(packet.payload, nested: false)
        core.endPacket(packet)
    }

    private mutating func handle(_ payload: ArraySlice<UInt8>, nested: Bool) {
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
        case 0...47: single(payload)
        case 48: aggregation(payload)
        case 49: fragment(payload)
        case 50 where !nested: paci(payload)
        default:
            core.statistics.unsupportedPackets += 1
            core.lastError = H26xError(
                .unsupportedPacketization,
                nested
                    ? "H.265 PACI packet inside a PACI packet" : "H.265 payload type \(type) is not defined by RFC 7798"
            )
        }
    }

    private mutating func single(_ payload: ArraySlice<UInt8>) {
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

    private mutating func aggregation(_ payload: ArraySlice<UInt8>) {
        var offset = 2
        var first = true
        guard payload.count > 4 else { return malformed() }  // an aggregation of nothing
        while offset < payload.count {
            var don: UInt16?
            if usesDecodingOrderNumbers {
                if first {
                    guard let value = payload.u16(at: offset) else { return malformed() }
                    don = value
                    offset += 2
                } else {
                    guard let difference = payload.bytes(at: offset, length: 1)?.first else { return malformed() }
                    don = lastDON &+ UInt16(difference) &+ 1
                    offset += 1
                }
                lastDON = don ?? lastDON
            }
            guard let size = payload.u16(at: offset).map(Int.init),
                let nal = payload.bytes(at: offset + 2, length: size)
            else { return malformed() }
            if size > 0 { core.nal(nal, don: don) }
            offset += 2 + size
            first = false
        }
    }

    private mutating func malformed() {
        core.statistics.malformedPackets += 1
    }

    private mutating func fragment(_ payload: ArraySlice<UInt8>) {
        let header = payload[payload.startIndex + 2]
        let start = header & 0x80 != 0
        let end = header & 0x40 != 0
        let type = header & 0x3F
        var dataOffset = 3
        if start {
            var don: UInt16?
            if usesDecodingOrderNumbers {
                guard let value = payload.u16(at: 3) else { return malformed() }
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
    private mutating func paci(_ payload: ArraySlice<UInt8>) {
        guard let fields = payload.u16(at: 2) else { return malformed() }
        let carriedType = UInt8(fields >> 9 & 0x3F)
        let extensionLength = Int(fields >> 4 & 0x1F)
        guard payload.count > 4 + extensionLength else { return malformed() }
        var carried: [UInt8] = [payload[payload.startIndex] & 0x81 | carriedType << 1, payload[payload.startIndex + 1]]
        carried.append(contentsOf: payload.dropFirst(4 + extensionLength))
        handle(carried[...], nested: true)
    }
}

/// The H.265 depacketizer's former name.
@available(*, deprecated, renamed: "H265Depacketizer")
public typealias HEVCDepacketizer = H265Depacketizer
