import RTP

/// What the H.264 and H.265 depacketizers share: timestamps, loss, the marker bit, de-interleaving and
/// access-unit assembly. The codec-specific parts only take payloads apart.
@usableFromInline
struct DepacketizerCore: Sendable {
    let configuration: DepacketizerConfiguration
    @usableFromInline var assembler: AccessUnitAssembler
    var statistics = DepacketizerStatistics()
    var lastError: H26xError?
    private var timestamps = TimestampExtender()
    private var pendingLoss = 0
    private var seenMarker = false
    var deinterleaver: Deinterleaver?
    /// Whether there is a ``deinterleaver``: asked several times per packet, and comparing the optional with
    /// nil copied it out (a retain and a release of its storage) each time.
    let deinterleaving: Bool
    /// A fragmented NAL unit being received: its type, and its DON when de-interleaving.
    var fragmentType: UInt8?
    var fragmentDON: UInt16?
    /// Bytes of a fragmented NAL unit when it must go through the de-interleaver.
    var fragmentBytes: [UInt8] = []
    /// The packet being handled: its extended timestamp.
    private(set) var packetTimestamp: UInt64 = 0

    init(codec: VideoCodec, configuration: DepacketizerConfiguration, parameterSets: ParameterSets) {
        self.configuration = configuration
        self.assembler = AccessUnitAssembler(
            codec: codec, parameterSets: parameterSets, maxNALSize: configuration.maxNALSize,
            maxAccessUnitSize: configuration.maxAccessUnitSize,
            waitForKeyframeAfterLoss: configuration.waitForKeyframeAfterLoss)
        deinterleaving = configuration.deinterleavingDepth > 0
        if deinterleaving {
            deinterleaver = Deinterleaver(
                depth: configuration.deinterleavingDepth, maxBytes: configuration.deinterleavingBytes)
        }
    }

    var parameterSets: ParameterSets { assembler.parameterSets }

    /// The oldest completed access unit not yet taken. Asked after every packet, and mostly nothing is ready:
    /// that answer is inlined into the caller (in another module too).
    @inlinable
    mutating func nextAccessUnit() -> AccessUnit? {
        assembler.completed.isEmpty ? nil : assembler.nextCompleted()
    }

    /// Packets were lost before the next one: a fragmented NAL unit in progress is dropped, never spliced.
    mutating func noteLoss(_ count: Int) {
        guard count > 0 else { return }
        pendingLoss += count
        dropFragment()
    }

    mutating func dropFragment() {
        if fragmentType != nil || assembler.isInNAL {
            statistics.droppedNALUnits += 1
        }
        assembler.abortNAL()
        fragmentType = nil
        fragmentDON = nil
        fragmentBytes.removeAll(keepingCapacity: true)
    }

    /// Called first for every packet: extends its timestamp, charges pending loss to the right access
    /// unit, and ends the current access unit when the timestamp moves on (not when de-interleaving: there
    /// NAL units carry their own timestamps).
    /// Whether `packet` is of the stream's payload type (when the configuration names one); another is
    /// counted and skipped by the caller, before `beginPacket`.
    mutating func admits(_ packet: RTPPacket) -> Bool {
        guard let expected = configuration.payloadType, packet.payloadType != expected else { return true }
        statistics.otherPayloadTypePackets += 1
        return false
    }

    mutating func beginPacket(_ packet: RTPPacket) {
        packetTimestamp = timestamps.extend(packet.timestamp)
        if packet.marker { seenMarker = true }
        guard !deinterleaving else {
            assembler.ssrc = packet.ssrc
            if pendingLoss > 0 { assembler.addLoss(pendingLoss) }
            pendingLoss = 0
            return
        }
        let changes = assembler.timestamp != nil && assembler.timestamp != packetTimestamp && !assembler.isEmpty
        if pendingLoss > 0 && changes && seenMarker {
            // The marker packet that would have ended the current access unit is among the lost; the
            // rest belonged to the new one.
            assembler.addLoss(1)
            pendingLoss -= 1
        } else if pendingLoss > 0 && !changes {
            assembler.addLoss(pendingLoss)
            pendingLoss = 0
        }
        setTimestamp(packetTimestamp)
        assembler.ssrc = packet.ssrc  // after the timestamp change: what that completed was the last source's
        if pendingLoss > 0 {
            assembler.addLoss(pendingLoss)
            pendingLoss = 0
        }
    }

    /// Called last for every packet.
    mutating func endPacket(_ packet: RTPPacket) {
        guard packet.marker, !deinterleaving else { return }
        if fragmentType != nil {
            // Quirk (some cameras): the last fragment carries the marker but not the FU end bit.
            statistics.quirks += 1
            endFragment()
        }
        if assembler.holdsPicture { finish() }
    }

    mutating func setTimestamp(_ timestamp: UInt64) {
        assembler.setTimestamp(timestamp)
    }

    /// A complete NAL unit from the payload, with its DON when de-interleaving.
    mutating func nal(_ bytes: ArraySlice<UInt8>, don: UInt16?, timestamp: UInt64? = nil) {
        if deinterleaving, let don {
            // In place: a copy taken out of the optional would copy every held NAL unit on each insert.
            deinterleaver?.insert(.init(don: don, timestamp: timestamp ?? packetTimestamp, bytes: Array(bytes)))
            release(all: false)
            return
        }
        assembler.addNAL(bytes)
    }

    /// The start of a fragmented NAL unit, given its reconstructed header.
    /// `second` is the second header byte, for H.265's two-byte NAL header.
    mutating func beginFragment(type: UInt8, header first: UInt8, _ second: UInt8? = nil, don: UInt16?) {
        if fragmentType != nil { dropFragment() }
        fragmentType = type
        fragmentDON = don
        if deinterleaving {
            fragmentBytes.removeAll(keepingCapacity: true)
            fragmentBytes.append(first)
            if let second { fragmentBytes.append(second) }
        } else {
            assembler.beginNAL()
            assembler.append(first)
            if let second { assembler.append(second) }
        }
    }

    /// Appends `payload[start...]`, a fragment's data. (Taken by index and through a buffer pointer: slicing
    /// the payload first retained and released its storage per packet.)
    mutating func appendFragment(_ payload: ArraySlice<UInt8>, from start: Int) {
        payload.withUnsafeBufferPointer { all in
            appendFragment(UnsafeBufferPointer(rebasing: all[(start - payload.startIndex)...]))
        }
    }

    private mutating func appendFragment(_ bytes: UnsafeBufferPointer<UInt8>) {
        if deinterleaving {
            guard fragmentBytes.count + bytes.count <= configuration.maxNALSize else {
                dropFragment()
                return
            }
            fragmentBytes.append(contentsOf: bytes)
        } else {
            assembler.append(bytes)
            if !assembler.isInNAL {
                statistics.droppedNALUnits += 1
                fragmentType = nil
            }
        }
    }

    mutating func endFragment() {
        guard fragmentType != nil else { return }
        fragmentType = nil
        if deinterleaving {
            let bytes = fragmentBytes
            fragmentBytes.removeAll(keepingCapacity: true)
            nal(bytes[...], don: fragmentDON ?? 0)
        } else {
            assembler.endNAL()
        }
        fragmentDON = nil
    }

    /// Releases de-interleaved NAL units into access units.
    mutating func release(all: Bool) {
        while let entry = deinterleaver?.next(all: all) {
            setTimestamp(entry.timestamp)
            assembler.addNAL(entry.bytes[...])
        }
    }

    mutating func finish() {
        assembler.finish()
    }

    /// Ends the stream where it broke: as ``flush()``, and the unit in progress lost a packet when its end
    /// did not come (a fragment cut, or no marker yet in a stream that marks its units' ends).
    mutating func cutOff() {
        if fragmentType != nil || assembler.isInNAL || (seenMarker && !assembler.isEmpty) { pendingLoss += 1 }
        flush()
    }

    /// Ends the stream: releases everything held and completes the last access unit.
    mutating func flush() {
        dropFragment()
        release(all: true)
        if pendingLoss > 0 {
            assembler.addLoss(pendingLoss)
            pendingLoss = 0
        }
        finish()
    }
}
