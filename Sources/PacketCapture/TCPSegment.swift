import RTP

/// A TCP segment found in a capture.
@_spi(SansIO) public struct TCPSegment: Sendable {
    /// The TCP header flags this reader uses.
    public struct Flags: OptionSet, Hashable, Sendable {
        public let rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public static let fin = Flags(rawValue: 0x01)
        public static let syn = Flags(rawValue: 0x02)
        public static let rst = Flags(rawValue: 0x04)
        public static let ack = Flags(rawValue: 0x10)
    }

    /// The capture record it came from.
    public let recordIndex: Int
    public let time: ArrivalTime
    public let source: SocketAddress
    public let destination: SocketAddress
    public let sequenceNumber: UInt32
    public let flags: Flags
    /// The segment's data. When ``isTruncated`` is true this is only the part the capture kept.
    public let payload: ArraySlice<UInt8>
    /// Whether the capture's snaplen cut the segment short.
    public let isTruncated: Bool
}

/// A transport-layer packet found in a capture.
@_spi(SansIO) public enum TransportPacket: Sendable {
    case udp(UDPDatagram)
    case tcp(TCPSegment)
}
