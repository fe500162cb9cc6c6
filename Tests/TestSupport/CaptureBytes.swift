/// Builds capture files and frames byte by byte, for tests of link layers, formats and traffic that no
/// fixture covers. Field layouts follow the pcap, pcapng, IPv4, IPv6 and UDP specifications.
public enum CaptureBytes {
    public static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
    public static func be32(_ v: UInt32) -> [UInt8] { be16(UInt16(v >> 16)) + be16(UInt16(v & 0xFFFF)) }
    public static func le16(_ v: UInt16) -> [UInt8] { be16(v).reversed() }
    public static func le32(_ v: UInt32) -> [UInt8] { be32(v).reversed() }
    public static func u16(_ v: UInt16, big: Bool) -> [UInt8] { big ? be16(v) : le16(v) }
    public static func u32(_ v: UInt32, big: Bool) -> [UInt8] { big ? be32(v) : le32(v) }

    public static func udp(sourcePort: UInt16, destinationPort: UInt16, payload: [UInt8]) -> [UInt8] {
        be16(sourcePort) + be16(destinationPort) + be16(UInt16(8 + payload.count)) + [0, 0] + payload
    }

    /// An IPv4 packet; `options` must be a multiple of 4 bytes.
    public static func ipv4(
        source: UInt32 = 0x0A00_0001, destination: UInt32 = 0x0A00_0002, protocolNumber: UInt8 = 17,
        payload: [UInt8], options: [UInt8] = [], id: UInt16 = 1, moreFragments: Bool = false, fragmentOffset: Int = 0,
        totalLength: Int? = nil
    ) -> [UInt8] {
        let headerLength = 20 + options.count
        let flags = UInt16(moreFragments ? 0x2000 : 0) | UInt16(fragmentOffset / 8)
        return [0x40 | UInt8(headerLength / 4), 0] + be16(UInt16(totalLength ?? headerLength + payload.count))
            + be16(id) + be16(flags) + [64, protocolNumber, 0, 0] + be32(source) + be32(destination) + options + payload
    }

    public static let loopback6: (UInt64, UInt64) = (0, 1)

    /// An IPv6 packet with optional extension headers already encoded in `extensions` (first next-header given).
    public static func ipv6(nextHeader: UInt8 = 17, extensions: [UInt8] = [], payload: [UInt8]) -> [UInt8] {
        [0x60, 0, 0, 0] + be16(UInt16(extensions.count + payload.count)) + [nextHeader, 64]
            + [UInt8](repeating: 0, count: 15) + [1] + [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [5]
            + extensions + payload
    }

    public static func ethernet(_ payload: [UInt8], etherType: UInt16 = 0x0800, vlans: [UInt16] = []) -> [UInt8] {
        var frame = [UInt8](repeating: 0xAA, count: 12)
        for vlan in vlans { frame += be16(0x8100) + be16(vlan) }
        return frame + be16(etherType) + payload
    }

    public static func sll(_ payload: [UInt8], protocolType: UInt16 = 0x0800) -> [UInt8] {
        [0, 0, 3, 4, 0, 6] + [UInt8](repeating: 1, count: 8) + be16(protocolType) + payload
    }

    public static func sll2(_ payload: [UInt8], protocolType: UInt16 = 0x0800) -> [UInt8] {
        be16(protocolType) + [0, 0] + be32(1) + [0, 1, 0, 6] + [UInt8](repeating: 1, count: 8) + payload
    }

    public struct Record {
        public var seconds: UInt32
        public var fraction: UInt32
        public var frame: [UInt8]
        public var originalLength: Int?

        public init(seconds: UInt32, fraction: UInt32, frame: [UInt8], originalLength: Int? = nil) {
            self.seconds = seconds
            self.fraction = fraction
            self.frame = frame
            self.originalLength = originalLength
        }
    }

    public static func pcap(
        _ records: [Record], linkType: UInt32 = 1, bigEndian: Bool = false, nanoseconds: Bool = false
    )
        -> [UInt8]
    {
        let magic: UInt32 = nanoseconds ? 0xA1B2_3C4D : 0xA1B2_C3D4
        var out = u32(magic, big: bigEndian) + u16(2, big: bigEndian) + u16(4, big: bigEndian)
        out +=
            u32(0, big: bigEndian) + u32(0, big: bigEndian) + u32(65535, big: bigEndian) + u32(linkType, big: bigEndian)
        for r in records {
            out += u32(r.seconds, big: bigEndian) + u32(r.fraction, big: bigEndian)
            out += u32(UInt32(r.frame.count), big: bigEndian)
            out += u32(UInt32(r.originalLength ?? r.frame.count), big: bigEndian) + r.frame
        }
        return out
    }

    // pcapng blocks (little-endian unless told otherwise).
    public static func block(_ type: UInt32, _ body: [UInt8], big: Bool = false) -> [UInt8] {
        let padded = body + [UInt8](repeating: 0, count: (4 - body.count % 4) % 4)
        let length = UInt32(12 + padded.count)
        return u32(type, big: big) + u32(length, big: big) + padded + u32(length, big: big)
    }

    public static func sectionHeader(big: Bool = false) -> [UInt8] {
        block(
            0x0A0D_0D0A,
            u32(0x1A2B_3C4D, big: big) + u16(1, big: big) + u16(0, big: big) + [UInt8](repeating: 0xFF, count: 8),
            big: big)
    }

    /// An interface description; `resolution` is the if_tsresol byte (nil: default microseconds).
    public static func interface(
        linkType: UInt16, resolution: UInt8? = nil, offsetSeconds: UInt64? = nil, big: Bool = false
    )
        -> [UInt8]
    {
        var body = u16(linkType, big: big) + [0, 0] + u32(0, big: big)
        if let resolution { body += u16(9, big: big) + u16(1, big: big) + [resolution, 0, 0, 0] }
        if let offsetSeconds {
            let high = u32(UInt32(offsetSeconds >> 32), big: big)
            let low = u32(UInt32(offsetSeconds & 0xFFFF_FFFF), big: big)
            body += u16(14, big: big) + u16(8, big: big) + (big ? high + low : low + high)
        }
        body += [0, 0, 0, 0]
        return block(1, body, big: big)
    }

    public static func enhancedPacket(interface: UInt32, units: UInt64, frame: [UInt8], big: Bool = false) -> [UInt8] {
        block(
            6,
            u32(interface, big: big) + u32(UInt32(units >> 32), big: big) + u32(UInt32(units & 0xFFFF_FFFF), big: big)
                + u32(UInt32(frame.count), big: big) + u32(UInt32(frame.count), big: big) + frame, big: big)
    }

    public static func simplePacket(frame: [UInt8]) -> [UInt8] {
        block(3, le32(UInt32(frame.count)) + frame)
    }
}
