import PacketCapture
import RTP

/// A STUN message (RFC 8489), read from a datagram or made to be sent: its class, method, transaction id and
/// attributes, with the bytes it was read from so that MESSAGE-INTEGRITY and FINGERPRINT can be checked.
///
/// ```swift
/// let request = try STUNMessage(parsing: datagram)
/// guard request.isBindingRequest, request.fingerprintIsValid, request.integrityIsValid(key: Array(password.utf8))
/// else { return }
/// ```
///
/// Reading is bounded: a message is at most ``maxLength`` bytes of at most ``maxAttributes`` attributes, its
/// length a multiple of 4 that the datagram holds; nothing but FINGERPRINT may follow MESSAGE-INTEGRITY, and
/// nothing may follow FINGERPRINT (RFC 8489 sections 14.5 and 14.7). What breaks a rule is a ``STUNError``.
@_spi(SansIO) public struct STUNMessage: Sendable, Hashable {
    /// A message's class (RFC 8489 section 5).
    public enum Class: UInt16, Sendable, Hashable {
        case request = 0b00
        case indication = 0b01
        case successResponse = 0b10
        case errorResponse = 0b11
    }

    /// The magic cookie every RFC 5389 / 8489 message carries in its header.
    public static let magicCookie: UInt32 = 0x2112_A442
    /// The Binding method, the only one ICE uses.
    public static let binding: UInt16 = 0x001
    /// The largest message read: a datagram's worth on the paths ICE runs over.
    public static let maxLength = 1500
    /// The most attributes read in one message.
    public static let maxAttributes = 32

    public var messageClass: Class
    /// The method's 12 bits.
    public var method: UInt16
    /// The 96-bit transaction id.
    public var transactionID: [UInt8]
    /// The attributes in order, each its type and value (without padding).
    public var attributes: [STUNAttribute]
    /// The bytes it was read from (empty for one made here).
    let bytes: [UInt8]
    /// Where each attribute's header starts in ``bytes``, by index.
    let offsets: [Int]

    /// A message to send.
    public init(
        _ messageClass: Class, method: UInt16 = STUNMessage.binding, transactionID: [UInt8],
        attributes: [STUNAttribute] = []
    ) {
        self.messageClass = messageClass
        self.method = method & 0x0FFF
        self.transactionID = transactionID
        self.attributes = attributes
        bytes = []
        offsets = []
    }

    /// Whether `bytes` look like STUN at all (RFC 7983's first-byte rule, 0 to 3, and the magic cookie): what a
    /// socket shared with DTLS and SRTP asks of each datagram first.
    public static func looksLikeSTUN(_ bytes: some Collection<UInt8>) -> Bool {
        guard bytes.count >= 20 else { return false }
        var index = bytes.startIndex
        guard bytes[index] < 4 else { return false }
        index = bytes.index(index, offsetBy: 4)
        var cookie: UInt32 = 0
        for _ in 0..<4 {
            cookie = cookie << 8 | UInt32(bytes[index])
            index = bytes.index(after: index)
        }
        return cookie == magicCookie
    }

    /// Reads a message (a whole datagram).
    public init(parsing datagram: some Collection<UInt8>) throws(STUNError) {
        guard datagram.count <= Self.maxLength else {
            throw STUNError("a message of \(datagram.count) bytes (at most \(Self.maxLength))")
        }
        let bytes = Array(datagram)
        guard bytes.count >= 20 else { throw STUNError("\(bytes.count) bytes: shorter than a STUN header (20)") }
        let type = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
        guard type & 0xC000 == 0 else { throw STUNError("the first two bits are not zero: not STUN") }
        let length = Int(bytes[2]) << 8 | Int(bytes[3])
        guard RTPPacket.readUInt32(bytes[...], at: 4) == Self.magicCookie else {
            throw STUNError("no magic cookie: not RFC 5389 STUN")
        }
        guard length % 4 == 0 else { throw STUNError("a length of \(length), not a multiple of 4") }
        guard 20 + length == bytes.count else {
            throw STUNError(
                "a length of \(length) in a datagram of \(bytes.count) bytes (the header says \(20 + length))")
        }
        messageClass = Class(rawValue: (type >> 4) & 0b01 | (type >> 7) & 0b10) ?? .request
        method = (type & 0x000F) | (type >> 1) & 0x0070 | (type >> 2) & 0x0F80
        transactionID = Array(bytes[8..<20])
        var attributes: [STUNAttribute] = []
        var offsets: [Int] = []
        var at = 20
        var sawIntegrity = false
        var sawFingerprint = false
        while at < bytes.count {
            guard attributes.count < Self.maxAttributes else {
                throw STUNError("more than \(Self.maxAttributes) attributes")
            }
            guard at + 4 <= bytes.count else { throw STUNError("an attribute header cut off at byte \(at)") }
            let attributeType = UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
            let valueLength = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            let padded = (valueLength + 3) & ~3
            guard at + 4 + padded <= bytes.count else {
                throw STUNError(
                    "attribute 0x\(String(attributeType, radix: 16)) of \(valueLength) bytes runs past the message")
            }
            guard !sawFingerprint else { throw STUNError("an attribute after FINGERPRINT") }
            if sawIntegrity && attributeType != STUNAttribute.fingerprint {
                throw STUNError("an attribute other than FINGERPRINT after MESSAGE-INTEGRITY")
            }
            if attributeType == STUNAttribute.messageIntegrity {
                guard valueLength == 20 else { throw STUNError("MESSAGE-INTEGRITY of \(valueLength) bytes (20)") }
                sawIntegrity = true
            }
            if attributeType == STUNAttribute.fingerprint {
                guard valueLength == 4 else { throw STUNError("FINGERPRINT of \(valueLength) bytes (4)") }
                sawFingerprint = true
            }
            offsets.append(at)
            attributes.append(
                STUNAttribute(type: attributeType, value: Array(bytes[(at + 4)..<(at + 4 + valueLength)])))
            at += 4 + padded
        }
        self.attributes = attributes
        self.offsets = offsets
        self.bytes = bytes
    }

    /// Whether it is a Binding request (what ICE checks are).
    public var isBindingRequest: Bool { messageClass == .request && method == Self.binding }

    /// The first attribute of `type`'s value.
    public func value(of type: UInt16) -> [UInt8]? { attributes.first { $0.type == type }?.value }

    /// USERNAME, as UTF-8 text (nil without one, or one that is not UTF-8).
    public var username: String? {
        value(of: STUNAttribute.username).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// XOR-MAPPED-ADDRESS (RFC 8489 section 14.2), unmasked.
    public var xorMappedAddress: SocketAddress? {
        value(of: STUNAttribute.xorMappedAddress).flatMap {
            STUNAttribute.unmaskAddress($0, transactionID: transactionID)
        }
    }

    /// PRIORITY (RFC 8445 section 16.1).
    public var priority: UInt32? {
        value(of: STUNAttribute.priority).flatMap { $0.count == 4 ? RTPPacket.readUInt32($0[...], at: 0) : nil }
    }

    /// Whether USE-CANDIDATE is present (the controlling agent nominates the pair).
    public var useCandidate: Bool { value(of: STUNAttribute.useCandidate) != nil }

    /// ICE-CONTROLLING's tie-breaker, when present.
    public var iceControlling: UInt64? { value(of: STUNAttribute.iceControlling).flatMap(Self.doubleWord) }

    /// ICE-CONTROLLED's tie-breaker, when present.
    public var iceControlled: UInt64? { value(of: STUNAttribute.iceControlled).flatMap(Self.doubleWord) }

    /// ERROR-CODE's code (300 to 699) and reason.
    public var errorCode: (code: Int, reason: String)? {
        guard let value = value(of: STUNAttribute.errorCode), value.count >= 4 else { return nil }
        let code = Int(value[2] & 0x07) * 100 + Int(value[3])
        return (code, String(decoding: value[4...], as: UTF8.self))
    }

    /// Whether FINGERPRINT is present and right (CRC-32 of what precedes it, XOR 0x5354554E).
    public var fingerprintIsValid: Bool {
        guard let index = attributes.lastIndex(where: { $0.type == STUNAttribute.fingerprint }), !bytes.isEmpty else {
            return false
        }
        let at = offsets[index]
        var covered = Array(bytes[..<at])
        Self.setLength(&covered, at + 8 - 20)
        return CRC32.checksum(covered) ^ STUNAttribute.fingerprintXOR
            == RTPPacket.readUInt32(attributes[index].value[...], at: 0)
    }

    /// Whether MESSAGE-INTEGRITY is present and right for `key` (for ICE, the short-term credential: the
    /// password's bytes), compared in constant time.
    public func integrityIsValid(key: [UInt8]) -> Bool {
        guard let index = attributes.firstIndex(where: { $0.type == STUNAttribute.messageIntegrity }), !bytes.isEmpty
        else {
            return false
        }
        let at = offsets[index]
        var covered = Array(bytes[..<at])
        Self.setLength(&covered, at + 24 - 20)
        let expected = STUNIntegrity.code(covered, key: key)
        let given = attributes[index].value
        return expected.count == given.count && zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    static func doubleWord(_ bytes: [UInt8]) -> UInt64? {
        guard bytes.count == 8 else { return nil }
        return UInt64(RTPPacket.readUInt32(bytes[...], at: 0)) << 32 | UInt64(RTPPacket.readUInt32(bytes[...], at: 4))
    }

    /// Sets a message's length field (bytes 2 and 3).
    static func setLength(_ bytes: inout [UInt8], _ length: Int) {
        bytes[2] = UInt8(truncatingIfNeeded: length >> 8)
        bytes[3] = UInt8(truncatingIfNeeded: length)
    }
}
