/// An RTP fixed header (RFC 3550 section 5.1) as its three 32-bit words, in host order: written big-endian, they
/// are its 12 bytes. The library writes every RTP header it sends through this one type (``RTPSender``'s
/// packets, a NAT's opening packet, ``RTPPacketBuilder``'s); the CSRCs, extension and payload follow it.
package struct RTPHeaderWords: Sendable, Hashable {
    /// Version, padding, extension, CSRC count, marker, payload type and sequence number.
    package let first: UInt32
    package let timestamp: UInt32
    package let ssrc: UInt32

    /// The header of version 2 with these fields; `csrcCount` is cut to 15, `payloadType` to 7 bits.
    package init(
        marker: Bool, payloadType: UInt8, sequenceNumber: UInt16, timestamp: UInt32, ssrc: UInt32,
        padding: Bool = false, hasExtension: Bool = false, csrcCount: Int = 0
    ) {
        let flags = UInt32(0x80) | (padding ? 0x20 : 0) | (hasExtension ? 0x10 : 0) | UInt32(min(max(csrcCount, 0), 15))
        let second = UInt32(marker ? 0x80 : 0) | UInt32(payloadType & 0x7F)
        first = flags << 24 | second << 16 | UInt32(sequenceNumber)
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// The header of these three words as they are.
    package init(first: UInt32, timestamp: UInt32, ssrc: UInt32) {
        self.first = first
        self.timestamp = timestamp
        self.ssrc = ssrc
    }

    /// The header's bytes.
    package static let size = 12

    /// Calls `body` with the 12 bytes, big-endian, on the stack (no allocation).
    @inlinable
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        var words = (first.bigEndian, timestamp.bigEndian, ssrc.bigEndian)
        return try Swift.withUnsafeBytes(of: &words) { try body($0) }
    }

    /// The 12 bytes, appended to `out`.
    package func append(to out: inout [UInt8]) {
        withBytes { out.append(contentsOf: $0) }
    }
}
