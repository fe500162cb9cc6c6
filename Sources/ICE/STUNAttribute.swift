import PacketCapture
import RTP

/// One attribute of a STUN message: its type and its value (without the padding to 4 bytes).
@_spi(SansIO) public struct STUNAttribute: Sendable, Hashable {
    public var type: UInt16
    public var value: [UInt8]

    public init(type: UInt16, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    // The types ICE uses (RFC 8489 section 18.3, RFC 8445 section 16.1).
    public static let xorMappedAddress: UInt16 = 0x0020
    public static let username: UInt16 = 0x0006
    public static let messageIntegrity: UInt16 = 0x0008
    public static let errorCode: UInt16 = 0x0009
    public static let priority: UInt16 = 0x0024
    public static let useCandidate: UInt16 = 0x0025
    public static let software: UInt16 = 0x8022
    public static let fingerprint: UInt16 = 0x8028
    public static let iceControlled: UInt16 = 0x8029
    public static let iceControlling: UInt16 = 0x802A
    static let fingerprintXOR: UInt32 = 0x5354_554E

    /// USERNAME.
    public static func username(_ text: String) -> STUNAttribute {
        STUNAttribute(type: username, value: Array(text.utf8))
    }

    /// SOFTWARE.
    public static func software(_ text: String) -> STUNAttribute {
        STUNAttribute(type: software, value: Array(text.utf8))
    }

    /// XOR-MAPPED-ADDRESS of `address`, masked with the cookie (and, for IPv6, the transaction id).
    public static func xorMappedAddress(_ address: SocketAddress, transactionID: [UInt8]) -> STUNAttribute {
        let port = address.port ^ UInt16(STUNMessage.magicCookie >> 16)
        var value: [UInt8] = [0, 0, UInt8(port >> 8), UInt8(port & 0xFF)]
        var ip: [UInt8] = []
        switch address.address {
        case .v4(let v4):
            value[1] = 0x01
            ip.appendBigEndian(v4)
        case .v6(let high, let low):
            value[1] = 0x02
            ip.appendBigEndian(high)
            ip.appendBigEndian(low)
        }
        value += zip(ip, mask(transactionID)).map { $0 ^ $1 }
        return STUNAttribute(type: xorMappedAddress, value: value)
    }

    /// ERROR-CODE (RFC 8489 section 14.8): 400 Bad Request, 401 Unauthorized, 487 Role Conflict...
    public static func errorCode(_ code: Int, reason: String) -> STUNAttribute {
        let code = min(max(code, 300), 699)
        return STUNAttribute(
            type: errorCode, value: [0, 0, UInt8(code / 100), UInt8(code % 100)] + Array(reason.utf8.prefix(128)))
    }

    static func unmaskAddress(_ value: [UInt8], transactionID: [UInt8]) -> SocketAddress? {
        guard value.count >= 8 else { return nil }
        let port = (UInt16(value[2]) << 8 | UInt16(value[3])) ^ UInt16(STUNMessage.magicCookie >> 16)
        let ip = zip(value[4...], mask(transactionID)).map { $0 ^ $1 }[...]
        func word(_ at: Int) -> UInt64 { UInt64(RTPPacket.readUInt32(ip, at: at)) }
        switch (value[1], value.count) {
        case (0x01, 8):
            return SocketAddress(address: .v4(RTPPacket.readUInt32(ip, at: 0)), port: port)
        case (0x02, 20) where transactionID.count == 12:
            return SocketAddress(address: .v6(high: word(0) << 32 | word(4), low: word(8) << 32 | word(12)), port: port)
        default:
            return nil
        }
    }

    /// What an address is masked with (RFC 8489 section 14.2): the magic cookie, then the transaction id.
    static func mask(_ transactionID: [UInt8]) -> [UInt8] {
        var mask: [UInt8] = []
        mask.appendBigEndian(STUNMessage.magicCookie)
        return mask + transactionID
    }
}
