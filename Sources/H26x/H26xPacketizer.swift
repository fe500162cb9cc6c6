import RTP

/// Splits H.264 (RFC 6184, packetization mode 1) and H.265 (RFC 7798) access units into RTP payloads: the
/// inverse of ``H26xDepacketizer``.
///
/// A NAL unit that fits a payload goes alone (single NAL unit packet); small NAL units that follow each other
/// (parameter sets, SEI, short slices) share one aggregation packet (STAP-A, AP); a NAL unit larger than a
/// payload is cut into fragmentation units (FU-A, FU) of at most ``maxPayloadSize`` bytes. The last payload of
/// an access unit is the one to carry the RTP marker bit. Parameter sets the packetizer has seen (from the
/// SDP or in band) go in front of a keyframe that comes without them, so a receiver that joins at any
/// keyframe can decode it.
///
/// ```swift
/// var packetizer = H26xPacketizer(codec: .h264)
/// packetizer.packetize(unit) { payload, isLast in send(payload, marker: isLast) }
/// ```
///
/// The payloads are written into one buffer that is reused for every payload: nothing is allocated per
/// packet once it has grown to the largest payload, as long as the closure does not keep the slice.
public struct H26xPacketizer: Sendable {
    public let codec: VideoCodec
    /// The largest payload it makes, in bytes (by default `RTPSender.defaultMaxPayloadSize`).
    public let maxPayloadSize: Int
    /// Whether keyframes that come without parameter sets get the known ones in front of them.
    public var insertsParameterSets: Bool
    /// The parameter sets seen so far (given at the start, then in band).
    public private(set) var parameterSets: ParameterSets
    /// The known parameter sets in decoding order, kept as the list they are sent as.
    private var parameterSetList: [[UInt8]] = []
    private var payload: [UInt8] = []

    /// The smallest ``maxPayloadSize`` accepted: room for a fragmentation unit's headers and some data.
    public static let minPayloadSize = 64

    /// A packetizer for `codec` (`.h264` or `.h265`), starting from `parameterSets` (the SDP's, when known).
    /// `maxPayloadSize` is raised to ``minPayloadSize`` when smaller.
    public init(
        codec: VideoCodec, maxPayloadSize: Int = RTPSender.defaultMaxPayloadSize, parameterSets: ParameterSets? = nil,
        insertsParameterSets: Bool = true
    ) {
        self.codec = codec
        self.maxPayloadSize = max(maxPayloadSize, Self.minPayloadSize)
        self.insertsParameterSets = insertsParameterSets
        self.parameterSets = parameterSets ?? ParameterSets(codec: codec)
        parameterSetList = self.parameterSets.all.map { Array($0.bytes) }
        payload.reserveCapacity(self.maxPayloadSize)
    }

    /// Calls `emit` with each payload of `unit`, in order; `isLast` is true for its last one (the one with the
    /// marker bit). NAL units no encoder makes are left out: empty ones, ones shorter than their header, ones
    /// with the forbidden bit, and those of the types the payload format keeps for itself (H.264 0 and 24-31,
    /// H.265 48-63); an access unit with none gives no payload.
    public mutating func packetize<E: Error>(
        _ unit: AccessUnit, _ emit: (_ payload: ArraySlice<UInt8>, _ isLast: Bool) throws(E) -> Void
    ) throws(E) {
        let headerLength = codec == .h265 ? 2 : 1
        var carriesParameterSets = false
        var changed = false
        for nal in unit.nalUnits where nal.isParameterSet {
            carriesParameterSets = true
            if parameterSets.update(nal) { changed = true }
        }
        if changed { parameterSetList = parameterSets.all.map { Array($0.bytes) } }
        let prefix = insertsParameterSets && unit.isKeyframe && !carriesParameterSets ? parameterSetList : []
        var sequence = NALSequence(prefix: prefix, unit: unit, headerLength: headerLength)
        // One NAL unit ahead, so that the last payload of the access unit is known when it is made.
        var pending: ArraySlice<UInt8>? = sequence.next()
        while let nal = pending {
            pending = sequence.next()
            if nal.count > maxPayloadSize {
                try fragment(nal, isLastNAL: pending == nil, emit)
                continue
            }
            payload.removeAll(keepingCapacity: true)
            if let next = pending, headerLength + 4 + nal.count + next.count <= maxPayloadSize {
                // The NAL units that follow while they fit share an aggregation packet, its header written
                // last (it depends on every member).
                payload.append(contentsOf: repeatElement(0, count: headerLength))
                var header = AggregationHeader()
                var member: ArraySlice<UInt8>? = nal
                while let current = member {
                    header.add(current, codec: codec)
                    payload.append(UInt8(current.count >> 8))
                    payload.append(UInt8(current.count & 0xFF))
                    payload.append(contentsOf: current)
                    member = nil
                    if let next = pending, payload.count + 2 + next.count <= maxPayloadSize {
                        member = next
                        pending = sequence.next()
                    }
                }
                header.write(into: &payload, codec: codec)
            } else {
                payload.append(contentsOf: nal)
            }
            try emit(payload[...], pending == nil)
        }
    }

    /// A NAL unit too large for one payload as fragmentation units: FU-A (type 28) or FU (type 49).
    private mutating func fragment<E: Error>(
        _ nal: ArraySlice<UInt8>, isLastNAL: Bool, _ emit: (ArraySlice<UInt8>, Bool) throws(E) -> Void
    ) throws(E) {
        let isH265 = codec == .h265
        let headerLength = isH265 ? 2 : 1
        let first = nal[nal.startIndex]
        let type = isH265 ? (first >> 1) & 0x3F : first & 0x1F
        let fragmentSize = maxPayloadSize - headerLength - 1
        var offset = nal.startIndex + headerLength
        while offset < nal.endIndex {
            let end = min(offset + fragmentSize, nal.endIndex)
            payload.removeAll(keepingCapacity: true)
            if isH265 {
                payload.append(first & 0x81 | 49 << 1)
                payload.append(nal[nal.startIndex + 1])
            } else {
                payload.append(first & 0xE0 | 28)
            }
            let start: UInt8 = offset == nal.startIndex + headerLength ? 0x80 : 0
            let stop: UInt8 = end == nal.endIndex ? 0x40 : 0
            payload.append(start | stop | type)
            payload.append(contentsOf: nal[offset..<end])
            try emit(payload[...], isLastNAL && end == nal.endIndex)
            offset = end
        }
    }
}

/// The header of a STAP-A (type 24, the highest NRI of its members) or an AP (type 48, their lowest layer
/// and temporal ids).
private struct AggregationHeader {
    var nri: UInt8 = 0
    var layer: UInt8 = 0x3F
    var temporal: UInt8 = 7

    mutating func add(_ nal: ArraySlice<UInt8>, codec: VideoCodec) {
        let first = nal[nal.startIndex]
        if codec == .h265 {
            let second = nal[nal.startIndex + 1]
            layer = min(layer, (first & 0x01) << 5 | second >> 3)
            temporal = min(temporal, second & 0x07)
        } else {
            nri = max(nri, first & 0x60)
        }
    }

    func write(into payload: inout [UInt8], codec: VideoCodec) {
        if codec == .h265 {
            payload[0] = 48 << 1 | layer >> 5
            payload[1] = (layer & 0x1F) << 3 | temporal
        } else {
            payload[0] = nri | 24
        }
    }
}

/// The NAL units an access unit is sent as: the parameter sets put in front of it, then its own, leaving out
/// the ones too short to have a header.
private struct NALSequence {
    let prefix: [[UInt8]]
    let unit: AccessUnit
    let headerLength: Int
    var index = 0

    init(prefix: [[UInt8]], unit: AccessUnit, headerLength: Int) {
        self.prefix = prefix
        self.unit = unit
        self.headerLength = headerLength
    }

    mutating func next() -> ArraySlice<UInt8>? {
        while index < prefix.count + unit.nalUnits.count {
            defer { index += 1 }
            let nal = index < prefix.count ? prefix[index][...] : unit.nalUnits[index - prefix.count].bytes
            if nal.count > headerLength && Self.isSendable(nal, headerLength: headerLength) { return nal }
        }
        return nil
    }

    /// Whether a NAL unit can go in a packet as it is: not one whose type the payload format takes for its own
    /// structures (H.264 24-31: STAP, MTAP, FU; H.265 48-63: AP, FU, PACI), nor one with the forbidden bit set.
    /// An encoder makes neither; a receiver would read them as something else.
    static func isSendable(_ nal: ArraySlice<UInt8>, headerLength: Int) -> Bool {
        let first = nal[nal.startIndex]
        guard first & 0x80 == 0 else { return false }
        return headerLength == 2 ? (first >> 1) & 0x3F < 48 : (1...23).contains(first & 0x1F)
    }
}
