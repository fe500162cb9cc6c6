/// Builds RTP packets: for tests, senders and tools. Every field has a default.
///
/// ```swift
/// let bytes = RTPPacketBuilder(payloadType: 96, sequenceNumber: 1, timestamp: 3000, ssrc: 7,
///                              payload: [0x65, 0x88]).bytes()
/// ```
public struct RTPPacketBuilder: Sendable {
    public var marker: Bool
    public var payloadType: UInt8
    public var sequenceNumber: UInt16
    public var timestamp: UInt32
    public var ssrc: UInt32
    public var csrcs: [UInt32]
    /// A header extension as (profile, data); data is padded with zeros to a multiple of 4 bytes.
    public var headerExtension: (profile: UInt16, data: [UInt8])?
    public var payload: [UInt8]
    /// Padding bytes to append (0 for none); the last padding byte holds the count.
    public var paddingLength: UInt8

    public init(
        marker: Bool = false, payloadType: UInt8 = 96, sequenceNumber: UInt16 = 0, timestamp: UInt32 = 0,
        ssrc: UInt32 = 0, csrcs: [UInt32] = [], headerExtension: (profile: UInt16, data: [UInt8])? = nil,
        payload: [UInt8] = [], paddingLength: UInt8 = 0
    ) {
        self.marker = marker
        self.payloadType = payloadType
        self.sequenceNumber = sequenceNumber
        self.timestamp = timestamp
        self.ssrc = ssrc
        self.csrcs = Array(csrcs.prefix(15))
        self.headerExtension = headerExtension
        self.payload = payload
        self.paddingLength = paddingLength
    }

    /// The packet's bytes.
    public func bytes() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(12 + csrcs.count * 4 + (headerExtension?.data.count ?? 0) + 8 + payload.count + 255)
        RTPHeaderWords(
            marker: marker, payloadType: payloadType, sequenceNumber: sequenceNumber, timestamp: timestamp, ssrc: ssrc,
            padding: paddingLength > 0, hasExtension: headerExtension != nil, csrcCount: csrcs.count
        ).append(to: &out)
        for csrc in csrcs { out.appendBigEndian(csrc) }
        if let (profile, data) = headerExtension {
            RTPHeaderExtension(profile: profile, data: data[...]).append(to: &out)
        }
        out.append(contentsOf: payload)
        if paddingLength > 0 {
            out.append(contentsOf: repeatElement(0, count: Int(paddingLength) - 1))
            out.append(paddingLength)
        }
        return out
    }

    /// The packet, parsed.
    public func packet() -> RTPPacket {
        // The builder only produces valid headers, so parsing cannot fail.
        guard let packet = try? RTPPacket(bytes()) else {
            preconditionFailure("RTPPacketBuilder made an invalid packet")
        }
        return packet
    }
}

extension Array where Element == UInt8 {
    package mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        var big = value.bigEndian
        Swift.withUnsafeBytes(of: &big) { append(contentsOf: $0) }
    }
}
