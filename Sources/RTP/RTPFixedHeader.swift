/// The 12-byte fixed header of an RTP packet, read without looking at the rest.
///
/// For packets whose tail is missing (a capture's snaplen cut them), where ``RTPPacket`` cannot check
/// the CSRC list, extension and padding, but the header still identifies and counts the packet.
@_spi(SansIO) public struct RTPFixedHeader: Hashable, Sendable {
    public let marker: Bool
    public let payloadType: UInt8
    public let sequenceNumber: UInt16
    public let timestamp: UInt32
    public let ssrc: UInt32

    /// The fixed header of a packet already read.
    @inlinable
    public init(_ packet: RTPPacket) {
        (marker, payloadType, sequenceNumber) = (packet.marker, packet.payloadType, packet.sequenceNumber)
        (timestamp, ssrc) = (packet.timestamp, packet.ssrc)
    }

    /// Reads the fixed header at the start of `bytes`.
    ///
    /// - Throws: ``RTPError`` when fewer than 12 bytes are there or the version is not 2.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>) throws(RTPError) {
        guard bytes.count >= RTPPacket.fixedHeaderLength else {
            throw RTPError(.tooShort, value: bytes.count, limit: RTPPacket.fixedHeaderLength)
        }
        let base = bytes.startIndex
        guard bytes[base] >> 6 == 2 else { throw RTPError(.unsupportedVersion, value: Int(bytes[base] >> 6)) }
        marker = bytes[base + 1] & 0x80 != 0
        payloadType = bytes[base + 1] & 0x7F
        sequenceNumber = UInt16(bytes[base + 2]) << 8 | UInt16(bytes[base + 3])
        timestamp = RTPPacket.readUInt32(bytes, at: base + 4)
        ssrc = RTPPacket.readUInt32(bytes, at: base + 8)
    }
}
