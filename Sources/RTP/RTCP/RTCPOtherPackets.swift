/// Source description items (RFC 3550 section 6.5), per source.
@_spi(SansIO) public struct RTCPSourceDescription: Hashable, Sendable {
    /// One SDES item: type 1 is CNAME, 2 NAME, 3 EMAIL, 4 PHONE, 5 LOC, 6 TOOL, 7 NOTE, 8 PRIV.
    public struct Item: Hashable, Sendable {
        public var type: UInt8
        public var value: [UInt8]
        public init(type: UInt8, value: [UInt8]) {
            self.type = type
            self.value = value
        }
        /// The value as UTF-8 text (invalid sequences replaced).
        public var text: String { String(decoding: value, as: UTF8.self) }
    }

    public struct Chunk: Hashable, Sendable {
        public var ssrc: UInt32
        public var items: [Item]
        public init(ssrc: UInt32, items: [Item]) {
            self.ssrc = ssrc
            self.items = items
        }
        /// The CNAME item's text, if present.
        public var canonicalName: String? { items.first { $0.type == 1 }?.text }
    }

    public var chunks: [Chunk]
    public init(chunks: [Chunk]) { self.chunks = chunks }
}

/// A goodbye packet (RFC 3550 section 6.6): these sources are leaving.
@_spi(SansIO) public struct RTCPGoodbye: Hashable, Sendable {
    public var ssrcs: [UInt32]
    public var reason: String?
    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }
}

/// An application-defined packet (RFC 3550 section 6.7).
@_spi(SansIO) public struct RTCPApplication: Hashable, Sendable {
    public var subtype: UInt8
    public var ssrc: UInt32
    /// Four ASCII characters.
    public var name: [UInt8]
    public var data: ArraySlice<UInt8>
}

/// A transport-layer (205) or payload-specific (206) feedback message (RFC 4585), kept opaque.
@_spi(SansIO) public struct RTCPFeedback: Hashable, Sendable {
    /// 205 (RTPFB) or 206 (PSFB).
    public var packetType: UInt8
    /// The feedback message type (FMT): for 206, 1 is PLI, 4 FIR.
    public var format: UInt8
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Feedback control information.
    public var controlInformation: ArraySlice<UInt8>

    public init(
        packetType: UInt8, format: UInt8, senderSSRC: UInt32, mediaSSRC: UInt32,
        controlInformation: ArraySlice<UInt8> = []
    ) {
        self.packetType = packetType
        self.format = format
        self.senderSSRC = senderSSRC
        self.mediaSSRC = mediaSSRC
        self.controlInformation = controlInformation
    }

    /// A Generic NACK (RFC 4585 section 6.2.1: RTPFB, FMT 1) asking again for `sequenceNumbers`, packed as
    /// PID + BLP pairs.
    public static func negativeAcknowledgement(senderSSRC: UInt32, mediaSSRC: UInt32, sequenceNumbers: [UInt16])
        -> RTCPFeedback
    {
        var information: [UInt8] = []
        var remaining = sequenceNumbers[...]
        while let first = remaining.first {
            var mask: UInt16 = 0
            remaining = remaining.dropFirst()
            while let next = remaining.first, next &- first >= 1, next &- first <= 16 {
                mask |= 1 << (next &- first - 1)
                remaining = remaining.dropFirst()
            }
            information += [UInt8(first >> 8), UInt8(first & 0xFF), UInt8(mask >> 8), UInt8(mask & 0xFF)]
        }
        return RTCPFeedback(
            packetType: 205, format: 1, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC,
            controlInformation: information[...])
    }

    /// A Picture Loss Indication (RFC 4585 section 6.3.1: PSFB, FMT 1).
    public static func pictureLossIndication(senderSSRC: UInt32, mediaSSRC: UInt32) -> RTCPFeedback {
        RTCPFeedback(packetType: 206, format: 1, senderSSRC: senderSSRC, mediaSSRC: mediaSSRC)
    }

    /// The sequence numbers a Generic NACK asks for (each PID, and PID + i + 1 for each bit i of its BLP); nil for
    /// another message. At most 64 PID + BLP pairs are read (1,088 packets).
    public var negativelyAcknowledged: [UInt16]? {
        guard packetType == 205, format == 1 else { return nil }
        var numbers: [UInt16] = []
        var index = controlInformation.startIndex
        var pairs = 0
        while index + 4 <= controlInformation.endIndex, pairs < 64 {
            let pid = UInt16(controlInformation[index]) << 8 | UInt16(controlInformation[index + 1])
            let mask = UInt16(controlInformation[index + 2]) << 8 | UInt16(controlInformation[index + 3])
            numbers.append(pid)
            for bit in 0..<16 where mask & (1 << bit) != 0 { numbers.append(pid &+ UInt16(bit) &+ 1) }
            index += 4
            pairs += 1
        }
        return numbers
    }

    /// Whether it asks for a keyframe: a PLI (PSFB FMT 1) or a FIR (PSFB FMT 4).
    public var requestsKeyframe: Bool { packetType == 206 && (format == 1 || format == 4) }
}
