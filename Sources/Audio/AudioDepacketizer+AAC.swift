import RTP

/// AAC in RFC 3640's `mpeg4-generic`: an AU-headers section (its length in bits, then one header per access
/// unit, as the fmtp's lengths say), an optional auxiliary section, then the access units back to back.
extension AudioDepacketizer {
    struct AUHeader {
        var size: Int
        /// The AU's place after the previous one, in frames: 0 for the first, 1 + its index delta for the rest.
        var offset: Int
    }

    mutating func aac(_ packet: RTPPacket, timestamp: UInt64) {
        let payload = packet.payload
        guard let dataStart = readAUHeaders(payload) else { return statistics.malformedPackets += 1 }
        let headers = auHeaderBuffer
        var data = payload[dataStart...]
        // One header, and fewer bytes than its size (or a piece of the unit being put together): a fragment.
        if headers.count == 1, headers[0].size > data.count || fragment?.timestamp == timestamp {
            return aacFragment(data, size: headers[0].size, timestamp: timestamp, packet: packet)
        }
        if fragment != nil {  // a new unit began before the last one's pieces all came
            statistics.droppedFrames += 1
            fragment = nil
        }
        // Sizes are at most 2^32 each and at most 512 of them: the sum stays inside an Int.
        guard headers.reduce(0, { $0 + $1.size }) <= data.count else { return statistics.malformedPackets += 1 }
        // Each unit's time after the packet's: offsets (index deltas, up to 2^32) times the frame's ticks
        // (up to 2^34) can pass 64 bits, which no stream needs: such a packet is malformed.
        var span = 0
        for header in headers {
            let (step, stepOverflow) = header.offset.multipliedReportingOverflow(by: aacFrameTicks)
            let (sum, sumOverflow) = span.addingReportingOverflow(step)
            guard !stepOverflow, !sumOverflow, sum <= Self.maxPacketSpan else {
                return statistics.malformedPackets += 1
            }
            span = sum
        }
        // Index deltas above 0 interleave the stream: from then on its units are put back in time order.
        if !interleaving, headers.contains(where: { $0.offset > 1 }) { interleaving = true }
        var ticks: UInt64 = 0
        for header in headers {
            ticks += UInt64(header.offset * aacFrameTicks)
            let unit = data.prefix(header.size)
            data = data.dropFirst(header.size)
            emit(timestamp: timestamp &+ ticks, samples: frameSamples, bytes: unit, ssrc: packet.ssrc)
        }
        if interleaving { releaseInterleaved(all: false) }
    }

    var frameSamples: Int { audioSpecificConfig?.frameLength ?? 1024 }

    private mutating func aacFragment(_ data: ArraySlice<UInt8>, size: Int, timestamp: UInt64, packet: RTPPacket) {
        guard size > 0, size <= Self.maxFrameSize else { return statistics.malformedPackets += 1 }
        if fragment == nil, droppedFragment == timestamp { return }  // the rest of a unit already left out
        if let current = fragment, current.timestamp != timestamp || current.size != size {
            statistics.droppedFrames += 1  // the rest of the last one never came
            fragment = nil
        }
        var current = fragment ?? (timestamp, size, [])
        fragment = nil  // the buffer moves out and back: appended in place
        current.bytes.append(contentsOf: data)
        guard current.bytes.count < size else {
            if current.bytes.count > size { return statistics.malformedPackets += 1 }
            return emit(timestamp: timestamp, samples: frameSamples, bytes: current.bytes[...], ssrc: packet.ssrc)
        }
        if packet.marker {  // the last fragment, and the unit is still short: a piece is missing
            statistics.droppedFrames += 1
            return
        }
        fragment = current
    }

    /// Reads the AU headers of a payload into ``auHeaderBuffer`` and returns where its access units begin;
    /// nil when they do not fit in it.
    mutating func readAUHeaders(_ payload: ArraySlice<UInt8>) -> Int? {
        let f = format
        auHeaderBuffer.removeAll(keepingCapacity: true)
        if let constant = f.constantSize, f.sizeLength == 0, f.indexLength == 0 {
            // No AU headers at all: units of a constant size, back to back.
            guard constant > 0, payload.count >= constant else { return nil }
            for index in 0..<payload.count / constant {
                auHeaderBuffer.append(AUHeader(size: constant, offset: index == 0 ? 0 : 1))
            }
            return payload.startIndex
        }
        guard payload.count >= 2 else { return nil }
        let lengthBits = Int(payload[payload.startIndex]) << 8 | Int(payload[payload.startIndex + 1])
        let headerBytes = (lengthBits + 7) / 8
        guard lengthBits > 0, 2 + headerBytes <= payload.count else { return nil }
        var reader = BitReader(payload.dropFirst(2).prefix(headerBytes))
        while reader.position < lengthBits {
            let first = auHeaderBuffer.isEmpty
            var size = f.constantSize ?? 0
            if f.sizeLength > 0 { size = Int(reader.read(f.sizeLength)) }
            let index = Int(reader.read(first ? f.indexLength : f.indexDeltaLength))
            if !first, f.ctsDeltaLength > 0, reader.flag() { reader.skip(f.ctsDeltaLength) }
            if f.dtsDeltaLength > 0, reader.flag() { reader.skip(f.dtsDeltaLength) }
            if f.randomAccessIndication { reader.skip(1) }
            reader.skip(f.streamStateIndication)
            guard reader.position <= lengthBits, auHeaderBuffer.count < Self.maxAUHeaders else { return nil }
            auHeaderBuffer.append(AUHeader(size: size, offset: first ? 0 : index + 1))
        }
        var start = payload.startIndex + 2 + headerBytes
        if f.auxiliaryDataSizeLength > 0 {
            var aux = BitReader(payload[start...])
            let auxBits = Int(aux.read(f.auxiliaryDataSizeLength))
            start += (f.auxiliaryDataSizeLength + auxBits + 7) / 8
            guard start <= payload.endIndex else { return nil }
        }
        return auHeaderBuffer.isEmpty ? nil : start
    }

    /// The most AU headers a packet may hold (a 1500-byte packet holds far fewer AAC units).
    static let maxAUHeaders = 512
    /// The longest a packet's units may span, in ticks: 2^40, days at any audio clock.
    static let maxPacketSpan = 1 << 40

    // MARK: De-interleaving (RFC 3640 section 3.2.3.2)

    /// A frame of an interleaved stream: held, in timestamp order, until the frames before it have come.
    mutating func holdInterleaved(_ frame: AudioFrame) {
        if let next = nextInterleavedTimestamp, frame.timestamp < next { return statistics.droppedFrames += 1 }
        let index = interleaved.firstIndex { $0.timestamp > frame.timestamp } ?? interleaved.endIndex
        if index > 0, interleaved[index - 1].timestamp == frame.timestamp { return }  // a duplicate
        interleaved.insert(frame, at: index)
    }

    /// Hands on the held frames that are next in line (all of them at the end, or when too many are held).
    mutating func releaseInterleaved(all: Bool) {
        while let first = interleaved.first {
            let inLine = nextInterleavedTimestamp.map { first.timestamp == $0 } ?? true
            let overflow = interleaved.count > Self.maxInterleaved
            guard all || inLine || overflow else { break }
            if overflow && !inLine { statistics.deinterleavingOverflows += 1 }
            completed.append(interleaved.removeFirst())
            nextInterleavedTimestamp = first.timestamp &+ UInt64(aacFrameTicks)
        }
    }
}
