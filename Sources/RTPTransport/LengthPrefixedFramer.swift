/// Splits a byte stream of packets, each after a 4-byte big-endian length (the seed player's RTP over
/// HTTP), sans I/O: append bytes as they come, take packets while there are whole ones.
public struct LengthPrefixedFramer: Sendable {
    /// The largest packet accepted. Default 65,535 (no RTP packet is larger over UDP).
    public let maxPacketBytes: Int
    private var buffer: [UInt8] = []
    private var start = 0

    public init(maxPacketBytes: Int = 65_535) {
        self.maxPacketBytes = maxPacketBytes
    }

    /// Bytes received and not yet framed.
    public var pendingBytes: Int { buffer.count - start }

    public mutating func append<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next whole packet, or nil until more bytes arrive.
    ///
    /// - Throws: ``RTPTransportError`` with `.invalidLength` for a length of zero or above
    ///   ``maxPacketBytes``: the stream cannot be followed after that.
    public mutating func next() throws(RTPTransportError) -> [UInt8]? {
        guard buffer.count - start >= 4 else { return nil }
        let length =
            Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8
            | Int(buffer[start + 3])
        guard length > 0 else {
            throw RTPTransportError(.invalidLength, "a packet length of 0 in the stream (at byte \(start))")
        }
        guard length <= maxPacketBytes else {
            throw RTPTransportError(
                .invalidLength, "a packet length of \(length) bytes, above the limit of \(maxPacketBytes)")
        }
        guard buffer.count - start - 4 >= length else { return nil }
        let packet = Array(buffer[(start + 4)..<(start + 4 + length)])
        start += 4 + length
        return packet
    }
}
