import RTP

/// Turns in-order RTP packets of an H.264 (RFC 6184) or H.265 (RFC 7798) stream into access units: the
/// inverse of ``H26xPacketizer``.
///
/// H.264: every packetization mode, single NAL units, STAP-A and FU-A (modes 0 and 1) and the interleaved
/// mode 2 (STAP-B, MTAP16, MTAP24, FU-B), whose NAL units are put back into decoding order by their DON.
/// H.265: single NAL unit packets, aggregation packets (AP) and fragmentation units (FU), with the DONL / DOND
/// fields when `sprop-max-don-diff` is above 0 (then NAL units are put back into decoding order by DON), and
/// PACI packets, whose payload is unwrapped and read as the packet it carries.
///
/// Feed it the output of a ``ReorderBuffer``: packets with ``push(_:)``, gaps with ``noteLoss(_:)``; after
/// each, take the access units it completed with ``nextAccessUnit()``:
///
/// ```swift
/// var depacketizer = H26xDepacketizer(codec: .h264)
/// depacketizer.push(packet)
/// while let accessUnit = depacketizer.nextAccessUnit() { print(accessUnit.timestamp, accessUnit.nalUnits.count) }
/// ```
///
/// A unit taken and let go of before the next push leaves its buffer to the next unit: in steady state
/// nothing is allocated. (A unit kept longer is safe; the next one then gets a new buffer.)
public struct H26xDepacketizer: Sendable {
    /// `.h264` or `.h265` (any other codec is taken as H.264, as ``H26xPacketizer`` takes it).
    public let codec: VideoCodec
    @usableFromInline var core: DepacketizerCore
    private var h265: H265PayloadReader

    /// A depacketizer for `codec`, starting from `parameterSets` (the SDP's: `sprop-parameter-sets`, or
    /// `sprop-vps`, `sprop-sps` and `sprop-pps`), if any. For H.264's `packetization-mode=2`, set
    /// ``DepacketizerConfiguration/deinterleavingDepth`` from `sprop-interleaving-depth` (at least 1).
    /// `maxDONDiff` is H.265's `sprop-max-don-diff` (0 when absent); when it is above 0 and the configuration
    /// names no depth, the depth is `maxDONDiff` (set it from `sprop-depack-buf-nalus` when the SDP gives it).
    public init(
        codec: VideoCodec, configuration: DepacketizerConfiguration = DepacketizerConfiguration(),
        parameterSets: ParameterSets? = nil, maxDONDiff: Int = 0
    ) {
        self.codec = codec == .h265 ? .h265 : .h264
        var configuration = configuration
        let decodingOrderNumbers = self.codec == .h265 && maxDONDiff > 0
        if decodingOrderNumbers && configuration.deinterleavingDepth == 0 {
            configuration.deinterleavingDepth = min(maxDONDiff, 32_767)
        }
        h265 = H265PayloadReader(usesDecodingOrderNumbers: decodingOrderNumbers)
        core = DepacketizerCore(
            codec: self.codec, configuration: configuration,
            parameterSets: parameterSets ?? ParameterSets(codec: self.codec))
    }

    /// H.265: whether DONL/DOND fields are present (`sprop-max-don-diff` > 0).
    public var usesDecodingOrderNumbers: Bool { h265.usesDecodingOrderNumbers }

    /// What was counted so far.
    public var statistics: DepacketizerStatistics {
        var s = core.statistics
        s.skippedAccessUnits = core.assembler.skippedAccessUnits
        s.quirks += core.assembler.parametersInsidePicture
        s.droppedNALUnits += core.assembler.unitsWithoutPictureNALs
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
        if codec == .h265 {
            h265.read(packet.payload, nested: false, into: &core)
        } else {
            // False for an empty payload or a STAP-B too short for its DON: then the packet does not end an
            // access unit, whatever its marker.
            guard H264PayloadReader.read(packet.payload, into: &core) else { return }
        }
        core.endPacket(packet)
    }
}
