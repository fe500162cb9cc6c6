import RTP

/// Decodes IPv4 and IPv6 packets down to UDP and TCP, reassembling fragments, and counts what it skips.
struct IPDecoder: Sendable {
    var reassembler = FragmentReassembler()
    var warnings = CaptureWarnings()

    /// The UDP datagram or TCP segment inside a network-layer packet, if there is one.
    mutating func decode(_ network: LinkType.Network, record: CaptureRecord) -> TransportPacket? {
        switch network {
        case .ipv4(let packet): return ipv4(packet, record: record)
        case .ipv6(let packet): return ipv6(packet, record: record)
        case .other:
            warnings.notIP += 1
            return nil
        case .unsupportedLinkType:
            warnings.unsupportedLinkType += 1
            return nil
        }
    }

    private mutating func ipv4(_ packet: ArraySlice<UInt8>, record: CaptureRecord) -> TransportPacket? {
        guard let first = packet.first, first >> 4 == 4, let totalLength = packet.u16(at: 2).map(Int.init),
            let flags = packet.u16(at: 6), let id = packet.u16(at: 4), let source = packet.u32(at: 12),
            let destination = packet.u32(at: 16)
        else { return malformed() }
        let headerLength = Int(first & 0x0F) * 4
        guard headerLength >= 20, totalLength >= headerLength else { return malformed() }
        let available = min(totalLength, packet.count)  // Ethernet may pad past the IP length.
        guard available >= headerLength else { return malformed() }
        let truncated = totalLength > packet.count
        let payload = packet[(packet.startIndex + headerLength)..<(packet.startIndex + available)]
        let protocolNumber = packet[packet.startIndex + 9]
        let src = IPAddress.v4(source)
        let dst = IPAddress.v4(destination)
        let more = flags & 0x2000 != 0
        let fragmentOffset = Int(flags & 0x1FFF) * 8
        if more || fragmentOffset > 0 {
            guard !truncated else {
                warnings.fragmentsDropped += 1
                return nil
            }
            let key = FragmentReassembler.Key(
                source: src, destination: dst, identification: UInt32(id), protocolNumber: protocolNumber)
            return reassembled(key, offset: fragmentOffset, more: more, payload: payload, record: record)
        }
        return transport(protocolNumber, payload, source: src, destination: dst, truncated: truncated, record: record)
    }

    private mutating func ipv6(_ packet: ArraySlice<UInt8>, record: CaptureRecord) -> TransportPacket? {
        guard let first = packet.first, first >> 4 == 6, let payloadLength = packet.u16(at: 4).map(Int.init),
            let srcHigh = packet.u64(at: 8), let srcLow = packet.u64(at: 16), let dstHigh = packet.u64(at: 24),
            let dstLow = packet.u64(at: 32)
        else { return malformed() }
        guard payloadLength > 0 else { return malformed() }  // jumbograms are not used for RTP
        let truncated = 40 + payloadLength > packet.count
        let end = min(40 + payloadLength, packet.count)
        let src = IPAddress.v6(high: srcHigh, low: srcLow)
        let dst = IPAddress.v6(high: dstHigh, low: dstLow)
        var next = packet[packet.startIndex + 6]
        var offset = 40
        while true {
            switch next {
            case 17, 6:
                let payload = packet[(packet.startIndex + offset)..<(packet.startIndex + end)]
                return transport(next, payload, source: src, destination: dst, truncated: truncated, record: record)
            case 0, 43, 60:  // hop-by-hop, routing, destination options
                guard let header = packet.bytes(at: offset, length: 2),
                    offset + 8 * (Int(header[header.startIndex + 1]) + 1) <= end
                else { return malformed() }
                next = header[header.startIndex]
                offset += 8 * (Int(header[header.startIndex + 1]) + 1)
            case 51:  // authentication header
                guard let header = packet.bytes(at: offset, length: 2),
                    offset + 4 * (Int(header[header.startIndex + 1]) + 2) <= end
                else { return malformed() }
                next = header[header.startIndex]
                offset += 4 * (Int(header[header.startIndex + 1]) + 2)
            case 44:  // fragment
                guard let header = packet.bytes(at: offset, length: 2), let field = packet.u16(at: offset + 2),
                    let id = packet.u32(at: offset + 4), offset + 8 <= end
                else { return malformed() }
                guard !truncated else {
                    warnings.fragmentsDropped += 1
                    return nil
                }
                let key = FragmentReassembler.Key(
                    source: src, destination: dst, identification: id, protocolNumber: header[header.startIndex])
                let payload = packet[(packet.startIndex + offset + 8)..<(packet.startIndex + end)]
                let more = field & 1 != 0
                let fragmentOffset = Int(field & 0xFFF8)
                guard header.first == 17 || fragmentOffset > 0 else {
                    warnings.notUDP += 1
                    return nil
                }
                return reassembled(key, offset: fragmentOffset, more: more, payload: payload, record: record, v6: true)
            default:
                warnings.notUDP += 1
                return nil
            }
        }
    }

    private mutating func reassembled(
        _ key: FragmentReassembler.Key, offset: Int, more: Bool, payload: ArraySlice<UInt8>, record: CaptureRecord,
        v6: Bool = false
    ) -> TransportPacket? {
        let before = reassembler.dropped
        defer { warnings.fragmentsDropped += reassembler.dropped - before }
        guard let whole = reassembler.add(key, offset: offset, more: more, data: payload, time: record.time) else {
            return nil
        }
        warnings.fragmentsReassembled += 1
        return transport(
            key.protocolNumber, whole[...], source: key.source, destination: key.destination, truncated: false,
            record: record)
    }

    private mutating func transport(
        _ protocolNumber: UInt8, _ segment: ArraySlice<UInt8>, source: IPAddress, destination: IPAddress,
        truncated: Bool, record: CaptureRecord
    ) -> TransportPacket? {
        switch protocolNumber {
        case 17:
            return udp(segment, source: source, destination: destination, truncated: truncated, record: record).map(
                TransportPacket.udp)
        case 6:
            return tcp(segment, source: source, destination: destination, truncated: truncated, record: record).map(
                TransportPacket.tcp)
        default:
            warnings.notUDP += 1
            return nil
        }
    }

    private mutating func tcp(
        _ segment: ArraySlice<UInt8>, source: IPAddress, destination: IPAddress, truncated: Bool, record: CaptureRecord
    ) -> TCPSegment? {
        guard let sourcePort = segment.u16(at: 0), let destinationPort = segment.u16(at: 2),
            let sequence = segment.u32(at: 4), let offsetByte = segment.bytes(at: 12, length: 2)
        else {
            if truncated { warnings.snaplenTruncated += 1 } else { warnings.malformed += 1 }
            return nil
        }
        let headerLength = Int(offsetByte[offsetByte.startIndex] >> 4) * 4
        guard headerLength >= 20, headerLength <= segment.count else {
            if truncated { warnings.snaplenTruncated += 1 } else { warnings.malformed += 1 }
            return nil
        }
        if truncated { warnings.snaplenTruncated += 1 }
        return TCPSegment(
            recordIndex: record.index, time: record.time, source: SocketAddress(address: source, port: sourcePort),
            destination: SocketAddress(address: destination, port: destinationPort), sequenceNumber: sequence,
            flags: TCPSegment.Flags(rawValue: offsetByte[offsetByte.startIndex + 1] & 0x17),
            payload: segment[(segment.startIndex + headerLength)...], isTruncated: truncated)
    }

    private mutating func udp(
        _ segment: ArraySlice<UInt8>, source: IPAddress, destination: IPAddress, truncated: Bool, record: CaptureRecord
    ) -> UDPDatagram? {
        // The whole 8-byte header, not only the fields read: the payload starts after it.
        guard segment.count >= 8, let sourcePort = segment.u16(at: 0), let destinationPort = segment.u16(at: 2),
            let length = segment.u16(at: 4).map(Int.init), length >= 8
        else {
            if truncated {
                warnings.snaplenTruncated += 1
                return nil
            }
            return malformed()
        }
        let cut = length > segment.count
        guard !cut || truncated else { return malformed() }
        if cut { warnings.snaplenTruncated += 1 }
        let end = min(length, segment.count)
        return UDPDatagram(
            recordIndex: record.index, time: record.time, source: SocketAddress(address: source, port: sourcePort),
            destination: SocketAddress(address: destination, port: destinationPort),
            payload: segment[(segment.startIndex + 8)..<(segment.startIndex + end)], isTruncated: cut)
    }

    private mutating func malformed<T>() -> T? {
        warnings.malformed += 1
        return nil
    }
}
