/// An IPv4 multicast group a server sends a presentation to (RFC 2326 section 12.39, `Transport: RTP/AVP;multicast`):
/// every viewer that asks for multicast joins it, and each packet is sent once for all of them. Track `n` goes to
/// port `port + 2n`, its RTCP to the port after that (RFC 3550 section 11).
///
/// ```swift
/// let group = MulticastGroup(address: "239.0.0.1", port: 5004)   // nil: not a multicast address or an odd port
/// ```
public struct MulticastGroup: Sendable, Hashable, CustomStringConvertible {
    /// The group's address, dotted IPv4 in 224.0.0.0/4 (`239.0.0.1`).
    public let address: String
    /// The first track's RTP port (even).
    public let port: UInt16

    /// The group `address`:`port`; nil when `address` is not an IPv4 multicast address (224.0.0.0 to
    /// 239.255.255.255, four decimal numbers) or `port` is 0 or odd.
    public init?(address: String, port: UInt16) {
        let parts = address.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4,
            parts.allSatisfy({
                (1...3).contains($0.utf8.count)
                    && $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
                    && (Int($0).map { $0 <= 255 } ?? false)
            }),
            let first = Int(parts[0]), (224...239).contains(first), port > 0, port % 2 == 0
        else { return nil }
        self.address = address
        self.port = port
    }

    /// The group of `text`, `ADDRESS:PORT` (`239.0.0.1:5004`); nil when either part is not one ``init(address:port:)``
    /// takes.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else {
            return nil
        }
        self.init(address: String(text[..<colon]), port: port)
    }

    /// Track `index`'s RTP and RTCP ports; nil past the last port.
    public func ports(track index: Int) -> (rtp: UInt16, rtcp: UInt16)? {
        let rtp = Int(port) + 2 * index
        guard index >= 0, rtp + 1 <= Int(UInt16.max) else { return nil }
        return (UInt16(rtp), UInt16(rtp + 1))
    }

    /// `ADDRESS:PORT`.
    public var description: String { "\(address):\(port)" }
}
