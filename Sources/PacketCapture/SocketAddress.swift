/// An IPv4 or IPv6 address, stored inline (no allocation).
public enum IPAddress: Hashable, Sendable, CustomStringConvertible {
    case v4(UInt32)
    case v6(high: UInt64, low: UInt64)

    /// The address in its usual text form (dotted quad, or RFC 5952 compressed IPv6).
    public var description: String {
        switch self {
        case .v4(let a):
            return "\(a >> 24).\(a >> 16 & 0xFF).\(a >> 8 & 0xFF).\(a & 0xFF)"
        case .v6(let high, let low):
            let groups = (0..<8).map { i -> UInt16 in
                let word = i < 4 ? high : low
                return UInt16(truncatingIfNeeded: word >> (UInt64(3 - i % 4) * 16))
            }
            // The longest run of two or more zero groups becomes "::".
            var bestStart = -1
            var bestLength = 1
            var i = 0
            while i < 8 {
                if groups[i] == 0 {
                    var j = i
                    while j < 8 && groups[j] == 0 { j += 1 }
                    if j - i > bestLength {
                        bestStart = i
                        bestLength = j - i
                    }
                    i = j
                } else {
                    i += 1
                }
            }
            let hex = groups.map { String($0, radix: 16) }
            if bestStart < 0 { return hex.joined(separator: ":") }
            let head = hex[..<bestStart].joined(separator: ":")
            let tail = hex[(bestStart + bestLength)...].joined(separator: ":")
            return head + "::" + tail
        }
    }
}

/// An IP address and a port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    public let address: IPAddress
    public let port: UInt16

    public init(address: IPAddress, port: UInt16) {
        self.address = address
        self.port = port
    }

    /// `1.2.3.4:5004` or `[::1]:5004`.
    public var description: String {
        if case .v6 = address { return "[\(address)]:\(port)" }
        return "\(address):\(port)"
    }
}
