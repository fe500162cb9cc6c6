import RTP

/// The common case of a capture record, taken in one step: a classic pcap record that holds, whole, an
/// IPv4 packet without fragmentation carrying a UDP datagram, behind Ethernet (no VLAN tag), Linux
/// cooked (SLL, SLL2) or no link header. Everything else (and any inconsistency) is left to the general
/// path (`PcapReader.next` → `LinkType.network` → `IPDecoder`), which counts and explains it.
///
/// Both paths give the same datagram for such a record; the general one slices the record four times on
/// the way down (record, network packet, IP payload, UDP payload) where this one reads the headers in
/// place and slices once. Tests and the capture fuzzer compare the two on every record.
extension PcapReader {
    /// Where the IPv4 header starts in a frame of `linkType`, if the frame says it carries IPv4.
    /// (Static: calling a method of `self` inside the closure below copied the whole reader per record.)
    private static func ipv4Offset(_ frame: UnsafeRawBufferPointer, linkType: LinkType) -> Int? {
        func etherType(at offset: Int) -> UInt16? {
            guard offset + 2 <= frame.count else { return nil }
            return UInt16(bigEndian: frame.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        }
        switch linkType {
        case .ethernet: return etherType(at: 12) == 0x0800 ? 14 : nil
        case .linuxSLL: return etherType(at: 14) == 0x0800 ? 16 : nil
        case .linuxSLL2: return etherType(at: 0) == 0x0800 ? 20 : nil
        case .raw, .rawBSD, .ipv4: return 0
        default: return nil
        }
    }

    /// The next record as a UDP datagram if it is the plain case described above; nil, with nothing read,
    /// if it is not (or if it is not all in memory yet).
    mutating func nextPlainDatagram() -> UDPDatagram? {
        guard let record = plainRecord() else { return nil }
        let datagram = UDPDatagram(
            recordIndex: index, time: record.time, source: record.source, destination: record.destination,
            payload: window.data[record.payload], isTruncated: false)
        window.offset += record.length
        index += 1
        return datagram
    }

    /// A plain record at the read position: the payload's range in `window.data`, the addresses, the
    /// record's length and its time.
    private typealias PlainRecord = (
        payload: Range<Int>, source: SocketAddress, destination: SocketAddress, length: Int, time: ArrivalTime
    )

    private func plainRecord() -> PlainRecord? {
        let data = window.data
        let at = window.offset
        guard data.count - at >= 16 else { return nil }
        let (bigEndian, nanosecondResolution, linkType) = (bigEndian, nanosecondResolution, linkType)
        return data.withUnsafeBytes { raw -> PlainRecord? in
            func u32(_ offset: Int) -> UInt32 {
                let value = raw.loadUnaligned(fromByteOffset: at + offset, as: UInt32.self)
                return bigEndian ? UInt32(bigEndian: value) : UInt32(littleEndian: value)
            }
            let captured = Int(u32(8))
            guard captured == Int(u32(12)), captured <= Self.maxRecordLength, data.count - at - 16 >= captured
            else { return nil }
            let frame = UnsafeRawBufferPointer(rebasing: raw[(at + 16)..<(at + 16 + captured)])
            guard let ip = Self.ipv4Offset(frame, linkType: linkType), frame.count - ip >= 20 else { return nil }
            func be16(_ offset: Int) -> UInt16 {
                UInt16(bigEndian: frame.loadUnaligned(fromByteOffset: ip + offset, as: UInt16.self))
            }
            func be32(_ offset: Int) -> UInt32 {
                UInt32(bigEndian: frame.loadUnaligned(fromByteOffset: ip + offset, as: UInt32.self))
            }
            let first = frame[ip]
            let headerLength = Int(first & 0x0F) * 4
            let totalLength = Int(be16(2))
            // IPv4, a sane header, not cut by the snaplen, not a fragment, UDP.
            guard first >> 4 == 4, headerLength >= 20, totalLength >= headerLength + 8,
                totalLength <= frame.count - ip, be16(6) & 0x3FFF == 0, frame[ip + 9] == 17
            else { return nil }
            let udp = ip + headerLength
            let udpLength = Int(UInt16(bigEndian: frame.loadUnaligned(fromByteOffset: udp + 4, as: UInt16.self)))
            guard udpLength >= 8, udpLength <= totalLength - headerLength else { return nil }
            let sourcePort = UInt16(bigEndian: frame.loadUnaligned(fromByteOffset: udp, as: UInt16.self))
            let destinationPort = UInt16(bigEndian: frame.loadUnaligned(fromByteOffset: udp + 2, as: UInt16.self))
            let start = data.startIndex + at + 16 + udp + 8
            let nanos = nanosecondResolution ? Int64(u32(4)) : Int64(u32(4)) * 1000
            return (
                start..<(start + udpLength - 8),
                SocketAddress(address: .v4(be32(12)), port: sourcePort),
                SocketAddress(address: .v4(be32(16)), port: destinationPort),
                16 + captured,
                ArrivalTime(nanoseconds: Int64(u32(0)) * 1_000_000_000 + nanos)
            )
        }
    }
}
