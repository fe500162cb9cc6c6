/// Source description items (RFC 3550 section 6.5), per source.
public struct RTCPSourceDescription: Hashable, Sendable {
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
public struct RTCPGoodbye: Hashable, Sendable {
    public var ssrcs: [UInt32]
    public var reason: String?
    public init(ssrcs: [UInt32], reason: String? = nil) {
        self.ssrcs = ssrcs
        self.reason = reason
    }
}

/// An application-defined packet (RFC 3550 section 6.7).
public struct RTCPApplication: Hashable, Sendable {
    public var subtype: UInt8
    public var ssrc: UInt32
    /// Four ASCII characters.
    public var name: [UInt8]
    public var data: ArraySlice<UInt8>
}

/// A transport-layer (205) or payload-specific (206) feedback message (RFC 4585), kept opaque.
public struct RTCPFeedback: Hashable, Sendable {
    /// 205 (RTPFB) or 206 (PSFB).
    public var packetType: UInt8
    /// The feedback message type (FMT): for 206, 1 is PLI, 4 FIR.
    public var format: UInt8
    public var senderSSRC: UInt32
    public var mediaSSRC: UInt32
    /// Feedback control information.
    public var controlInformation: ArraySlice<UInt8>
}
