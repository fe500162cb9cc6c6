/// A parsed RTP packet (RFC 3550 section 5.1): a view into the bytes it arrived in.
///
/// Parsing validates the header and computes offsets; it copies nothing and allocates nothing. The
/// payload is a slice of the original buffer, so keeping a packet keeps that buffer alive.
///
/// ```swift
/// let packet = try RTPPacket(datagram)
/// print(packet.sequenceNumber, packet.timestamp, packet.payload.count)
/// ```
public struct RTPPacket: Sendable {
    /// The smallest valid packet: the 12-byte fixed header.
    public static let fixedHeaderLength = 12

    /// The whole packet, header included, exactly as received.
    public let bytes: ArraySlice<UInt8>
    /// The marker bit. For video, it usually ends a frame.
    public let marker: Bool
    /// The payload type (0...127).
    public let payloadType: UInt8
    /// The 16-bit sequence number.
    public let sequenceNumber: UInt16
    /// The 32-bit media timestamp, in the payload type's clock rate.
    public let timestamp: UInt32
    /// The synchronization source identifier.
    public let ssrc: UInt32
    /// The number of contributing sources (0...15).
    public let csrcCount: UInt8
    /// The number of padding bytes at the end, counted in ``bytes`` but not in ``payload``.
    public let paddingLength: UInt8
    @usableFromInline let extensionStart: Int32  // index in `bytes` of the 4-byte extension header, or -1
    @usableFromInline let payloadStart: Int
    @usableFromInline let payloadEnd: Int

    /// Parses `bytes` as an RTP packet.
    ///
    /// - Throws: ``RTPError`` naming the first problem: too short, version other than 2, a CSRC list or
    ///   header extension running past the end, or a padding count that does not fit the packet.
    @inlinable
    public init(_ bytes: ArraySlice<UInt8>) throws(RTPError) {
        let count = bytes.count
        guard count >= Self.fixedHeaderLength else {
            throw RTPError(.tooShort, value: count, limit: Self.fixedHeaderLength)
        }
        let base = bytes.startIndex
        // The fixed header in one go, by loads from the buffer (in bounds: 12 bytes or more, checked above)
        // rather than byte by byte, each byte checked against the slice's bounds.
        let (b0, b1, sequenceNumber, timestamp, ssrc) = bytes.withUnsafeBytes { raw in
            (
                raw[0], raw[1], UInt16(bigEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt16.self)),
                UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self)),
                UInt32(bigEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            )
        }
        guard b0 >> 6 == 2 else { throw RTPError(.unsupportedVersion, value: Int(b0 >> 6)) }
        let csrcs = b0 & 0x0F
        var offset = Self.fixedHeaderLength + Int(csrcs) * 4
        guard offset <= count else { throw RTPError(.csrcListTruncated, value: Int(csrcs) * 4, limit: count) }
        var extensionStart: Int32 = -1
        if b0 & 0x10 != 0 {
            guard offset + 4 <= count else { throw RTPError(.extensionTruncated, value: 4, limit: count - offset) }
            let words = Int(bytes[base + offset + 2]) << 8 | Int(bytes[base + offset + 3])
            guard offset + 4 + words * 4 <= count else {
                throw RTPError(.extensionTruncated, value: 4 + words * 4, limit: count - offset)
            }
            extensionStart = Int32(offset)
            offset += 4 + words * 4
        }
        var padding: UInt8 = 0
        if b0 & 0x20 != 0 {
            padding = bytes[base + count - 1]
            guard padding > 0, Int(padding) <= count - offset else {
                throw RTPError(.invalidPadding, value: Int(padding), limit: count - offset)
            }
        }
        self.bytes = bytes
        self.marker = b1 & 0x80 != 0
        self.payloadType = b1 & 0x7F
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcCount = csrcs
        self.paddingLength = padding
        self.extensionStart = extensionStart
        self.payloadStart = offset
        self.payloadEnd = count - Int(padding)
    }

    /// Parses a whole array as an RTP packet.
    @inlinable
    public init(_ bytes: [UInt8]) throws(RTPError) {
        try self.init(bytes[...])
    }

    /// The RTP version; always 2 for a parsed packet.
    public var version: UInt8 { 2 }

    /// Whether the padding bit was set.
    public var hasPadding: Bool { paddingLength > 0 }

    /// The media payload: after the header, CSRCs and extension, before any padding.
    @inlinable
    public var payload: ArraySlice<UInt8> {
        bytes[(bytes.startIndex + payloadStart)..<(bytes.startIndex + payloadEnd)]
    }

    /// The contributing source identifiers.
    public var csrcs: [UInt32] {
        (0..<Int(csrcCount)).map { Self.readUInt32(bytes, at: bytes.startIndex + 12 + $0 * 4) }
    }

    /// Whether the X bit is set: a header extension follows the CSRCs.
    @inlinable
    public var hasExtension: Bool { extensionStart >= 0 }

    /// The header extension, if the X bit was set.
    public var headerExtension: RTPHeaderExtension? {
        guard extensionStart >= 0 else { return nil }
        let start = bytes.startIndex + Int(extensionStart)
        let profile = UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
        return RTPHeaderExtension(profile: profile, data: bytes[(start + 4)..<(bytes.startIndex + payloadStart)])
    }

    @inlinable
    package static func readUInt32(_ bytes: ArraySlice<UInt8>, at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8
            | UInt32(bytes[index + 3])
    }
}

extension RTPPacket {
    /// Whether the first bytes of a datagram look like RTCP rather than RTP (RFC 5761 section 4: packet
    /// types 192...223 share the second byte's range with RTP payload types 64...95 with the marker set).
    @inlinable
    public static func looksLikeRTCP(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard bytes.count >= 2 else { return false }
        let type = bytes[bytes.startIndex + 1]
        return type >= 192 && type <= 223
    }
}
