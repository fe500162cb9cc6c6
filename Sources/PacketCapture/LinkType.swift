/// A capture's link-layer header type (the LINKTYPE_ values of pcap and pcapng).
package struct LinkType: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: UInt32
    package init(rawValue: UInt32) { self.rawValue = rawValue }

    /// BSD loopback: a 4-byte address family in the capturing host's byte order.
    package static let null = LinkType(rawValue: 0)
    /// Ethernet II, with or without 802.1Q / 802.1ad VLAN tags.
    package static let ethernet = LinkType(rawValue: 1)
    /// Raw IP (DLT_RAW on most systems).
    package static let raw = LinkType(rawValue: 101)
    /// Raw IP as some BSDs number it.
    package static let rawBSD = LinkType(rawValue: 12)
    /// OpenBSD loopback: a 4-byte address family in network byte order.
    package static let loop = LinkType(rawValue: 108)
    /// Linux "cooked" capture (tcpdump -i any), version 1.
    package static let linuxSLL = LinkType(rawValue: 113)
    /// Raw IPv4.
    package static let ipv4 = LinkType(rawValue: 228)
    /// Raw IPv6.
    package static let ipv6 = LinkType(rawValue: 229)
    /// Linux "cooked" capture, version 2.
    package static let linuxSLL2 = LinkType(rawValue: 276)

    package var description: String {
        switch self {
        case .null: return "NULL"
        case .ethernet: return "ETHERNET"
        case .raw, .rawBSD: return "RAW"
        case .loop: return "LOOP"
        case .linuxSLL: return "LINUX_SLL"
        case .ipv4: return "IPV4"
        case .ipv6: return "IPV6"
        case .linuxSLL2: return "LINUX_SLL2"
        default: return "LINKTYPE_\(rawValue)"
        }
    }

    /// The network-layer packet inside a frame of this link type: IPv4 or IPv6 bytes, `nil` for anything else.
    package enum Network: Sendable {
        case ipv4(ArraySlice<UInt8>)
        case ipv6(ArraySlice<UInt8>)
        case other
        case unsupportedLinkType
    }

    /// Strips the link-layer header.
    package func network(_ frame: ArraySlice<UInt8>) -> Network {
        switch self {
        case .ethernet:
            var offset = 12
            while let type = frame.u16(at: offset) {
                switch type {
                case 0x8100, 0x88A8, 0x9100: offset += 4  // VLAN tags, possibly stacked
                default: return Self.byEtherType(type, frame, offset + 2)
                }
            }
            return .other
        case .linuxSLL:
            guard let type = frame.u16(at: 14) else { return .other }
            return Self.byEtherType(type, frame, 16)
        case .linuxSLL2:
            guard let type = frame.u16(at: 0) else { return .other }
            return Self.byEtherType(type, frame, 20)
        case .null, .loop:
            // The family is in the capturing host's byte order for NULL; accept either.
            guard let big = frame.u32(at: 0), let little = frame.u32(at: 0, bigEndian: false) else { return .other }
            let family = self == .loop ? big : min(big, little)
            switch family {
            case 2: return Self.slice(frame, 4, v6: false)
            case 10, 24, 28, 30: return Self.slice(frame, 4, v6: true)  // Linux, NetBSD/OpenBSD, FreeBSD, macOS
            default: return .other
            }
        case .raw, .rawBSD:
            guard let first = frame.first else { return .other }
            switch first >> 4 {
            case 4: return .ipv4(frame)
            case 6: return .ipv6(frame)
            default: return .other
            }
        case .ipv4: return .ipv4(frame)
        case .ipv6: return .ipv6(frame)
        default: return .unsupportedLinkType
        }
    }

    private static func byEtherType(_ type: UInt16, _ frame: ArraySlice<UInt8>, _ offset: Int) -> Network {
        switch type {
        case 0x0800: return slice(frame, offset, v6: false)
        case 0x86DD: return slice(frame, offset, v6: true)
        default: return .other
        }
    }

    private static func slice(_ frame: ArraySlice<UInt8>, _ offset: Int, v6: Bool) -> Network {
        guard offset <= frame.count else { return .other }
        let rest = frame[(frame.startIndex + offset)...]
        return v6 ? .ipv6(rest) : .ipv4(rest)
    }
}
