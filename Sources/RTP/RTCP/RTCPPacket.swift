/// One packet of an RTCP compound packet (RFC 3550 section 6).
@_spi(SansIO) public enum RTCPPacket: Hashable, Sendable {
    case senderReport(RTCPSenderReport)
    case receiverReport(RTCPReceiverReport)
    case sourceDescription(RTCPSourceDescription)
    case goodbye(RTCPGoodbye)
    case application(RTCPApplication)
    case feedback(RTCPFeedback)
    /// A packet type this library does not interpret (XR and others), with its header's count field.
    case other(packetType: UInt8, count: UInt8, body: ArraySlice<UInt8>)

    /// Parses a compound packet into its parts.
    ///
    /// - Throws: ``RTPError`` when a part's header is not version 2, its length runs past the end, its
    ///   padding is invalid, or its body is shorter than its count field announces.
    public static func parseCompound(_ bytes: ArraySlice<UInt8>) throws(RTPError) -> [RTCPPacket] {
        var packets: [RTCPPacket] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let left = bytes.endIndex - offset
            guard left >= 4 else { throw RTPError(.rtcpTruncated, value: left) }
            let b0 = bytes[offset]
            guard b0 >> 6 == 2 else { throw RTPError(.unsupportedVersion, value: Int(b0 >> 6)) }
            let length = ((Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])) + 1) * 4
            guard length <= left else { throw RTPError(.rtcpLengthExceedsData, value: length, limit: left) }
            var end = offset + length
            if b0 & 0x20 != 0 {
                let padding = Int(bytes[end - 1])
                guard padding > 0, padding <= length - 4 else {
                    throw RTPError(.invalidPadding, value: padding, limit: length - 4)
                }
                end -= padding
            }
            packets.append(try parseOne(type: bytes[offset + 1], count: b0 & 0x1F, body: bytes[(offset + 4)..<end]))
            offset += length
        }
        return packets
    }

    /// Parses a compound packet held in an array.
    public static func parseCompound(_ bytes: [UInt8]) throws(RTPError) -> [RTCPPacket] {
        try parseCompound(bytes[...])
    }

    static func parseOne(type: UInt8, count: UInt8, body: ArraySlice<UInt8>) throws(RTPError) -> RTCPPacket {
        func need(_ n: Int) throws(RTPError) {
            guard body.count >= n else { throw RTPError(.rtcpBodyTooShort, value: n, limit: body.count) }
        }
        func word(_ i: Int) -> UInt32 { RTPPacket.readUInt32(body, at: body.startIndex + i) }
        func blocks(from start: Int) -> [RTCPReportBlock] {
            (0..<Int(count)).map { i in
                let at = body.startIndex + start + i * RTCPReportBlock.length
                return RTCPReportBlock(body[at..<(at + RTCPReportBlock.length)])
            }
        }
        switch type {
        case 200:
            try need(24 + Int(count) * RTCPReportBlock.length)
            return .senderReport(
                RTCPSenderReport(
                    ssrc: word(0), ntpTimestamp: UInt64(word(4)) << 32 | UInt64(word(8)), rtpTimestamp: word(12),
                    packetCount: word(16), octetCount: word(20), reportBlocks: blocks(from: 24)))
        case 201:
            try need(4 + Int(count) * RTCPReportBlock.length)
            return .receiverReport(RTCPReceiverReport(ssrc: word(0), reportBlocks: blocks(from: 4)))
        case 202:
            return .sourceDescription(try parseSourceDescription(count: Int(count), body: body))
        case 203:
            try need(Int(count) * 4)
            let ssrcs = (0..<Int(count)).map { word($0 * 4) }
            var reason: String?
            let at = body.startIndex + Int(count) * 4
            if at < body.endIndex {
                let length = Int(body[at])
                try need(Int(count) * 4 + 1 + length)
                reason = String(decoding: body[(at + 1)..<(at + 1 + length)], as: UTF8.self)
            }
            return .goodbye(RTCPGoodbye(ssrcs: ssrcs, reason: reason))
        case 204:
            try need(8)
            return .application(
                RTCPApplication(
                    subtype: count, ssrc: word(0), name: Array(body[(body.startIndex + 4)..<(body.startIndex + 8)]),
                    data: body[(body.startIndex + 8)...]))
        case 205, 206:
            try need(8)
            return .feedback(
                RTCPFeedback(
                    packetType: type, format: count, senderSSRC: word(0), mediaSSRC: word(4),
                    controlInformation: body[(body.startIndex + 8)...]))
        default:
            return .other(packetType: type, count: count, body: body)
        }
    }

    static func parseSourceDescription(count: Int, body: ArraySlice<UInt8>) throws(RTPError) -> RTCPSourceDescription {
        var chunks: [RTCPSourceDescription.Chunk] = []
        var at = body.startIndex
        for _ in 0..<count {
            guard body.endIndex - at >= 4 else { throw RTPError(.rtcpBodyTooShort, value: at + 4, limit: body.count) }
            let ssrc = RTPPacket.readUInt32(body, at: at)
            at += 4
            var items: [RTCPSourceDescription.Item] = []
            // Items until a zero type byte; the chunk then pads to a 32-bit boundary.
            while at < body.endIndex, body[at] != 0 {
                guard at + 2 <= body.endIndex, at + 2 + Int(body[at + 1]) <= body.endIndex else {
                    throw RTPError(.rtcpBodyTooShort, value: at + 2 - body.startIndex, limit: body.count)
                }
                let length = Int(body[at + 1])
                items.append(.init(type: body[at], value: Array(body[(at + 2)..<(at + 2 + length)])))
                at += 2 + length
            }
            at += 1
            at = body.startIndex + ((at - body.startIndex) + 3) / 4 * 4
            chunks.append(.init(ssrc: ssrc, items: items))
        }
        return RTCPSourceDescription(chunks: chunks)
    }
}
