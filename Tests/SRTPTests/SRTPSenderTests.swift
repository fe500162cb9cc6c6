import RTP
import SRTP
import Testing

/// The sender against the receiver, each suite: what one protects the other unprotects, and a packet changed on
/// the way fails. (FFmpeg's own SRTP reads what the server sends: ServeCommandTests.)
@Suite struct SRTPSenderTests {
    static let rtp: [UInt8] = [0x80, 0xE0, 0x12, 0x34, 0, 0, 0x0B, 0xB8, 0xCA, 0xFE, 0, 1] + Array(0..<200)
    static let rtcp: [UInt8] = [0x80, 200, 0, 6, 0xCA, 0xFE, 0, 1] + [UInt8](repeating: 7, count: 20)

    @Test(arguments: SRTPSuite.allCases)
    func whatTheSenderProtectsTheReceiverUnprotects(suite: SRTPSuite) throws {
        let key = SRTPKey.random(suite: suite)
        let sender = try SRTPSender(key: key)
        let receiver = try SRTPReceiver(key: try SRTPKey(cryptoAttribute: key.cryptoAttribute))
        let packet = try sender.protect(Self.rtp)
        #expect(packet.count > Self.rtp.count && packet.prefix(12).elementsEqual(Self.rtp.prefix(12)))
        #expect(packet[12...].prefix(200).elementsEqual(Self.rtp[12...]) == false)
        #expect(try receiver.unprotect(packet) == Self.rtp)
        #expect(try receiver.unprotectRTCP(try sender.protectRTCP(Self.rtcp)) == Self.rtcp)
        var changed = try sender.protect(Self.rtp.enumerated().map { $0.offset == 3 ? 0x35 : $0.element })
        changed[20] ^= 1
        #expect(throws: SRTPError.self) { try receiver.unprotect(changed) }
        #expect(receiver.authenticationFailures == 1)
    }

    /// Protected where it lies (what a WebRTC viewer's writer does with each packet), a packet is the same as
    /// protected into a new array by a sender with the same key; and a protection with no in-place way of its
    /// own gets the same through the protocol's copy.
    @Test(arguments: SRTPSuite.allCases)
    func protectingInPlaceGivesTheSamePacket(suite: SRTPSuite) throws {
        let key = SRTPKey.random(suite: suite)
        let expected = try SRTPSender(key: key).protect(Self.rtp)
        var buffer = Self.rtp + [UInt8](repeating: 0, count: SRTPSender.maxTrailerLength)
        let inPlace = try SRTPSender(key: key)
        let length = try buffer.withUnsafeMutableBytes { try inPlace.protectRTP(inPlace: $0, length: Self.rtp.count) }
        #expect(Array(buffer.prefix(length)) == expected)
        var copied = Self.rtp + [UInt8](repeating: 0, count: SRTPSender.maxTrailerLength)
        let other = CopyingProtection(try SRTPSender(key: key))
        let copiedLength = try copied.withUnsafeMutableBytes {
            try other.protectRTP(inPlace: $0, length: Self.rtp.count)
        }
        #expect(Array(copied.prefix(copiedLength)) == expected)
        var tooSmall = Self.rtp
        #expect(throws: SRTPError.self) {
            try tooSmall.withUnsafeMutableBytes { try inPlace.protectRTP(inPlace: $0, length: Self.rtp.count) }
        }
    }

    /// A key announces itself as RFC 4568 writes it, and reads back the same.
    @Test func aKeyAnnouncesItselfAsRFC4568Writes() throws {
        let key = SRTPKey.random()
        #expect(key.cryptoAttribute.hasPrefix("1 AES_CM_128_HMAC_SHA1_80 inline:"))
        #expect(try SRTPKey(cryptoAttribute: key.cryptoAttribute) == key)
        #expect(SRTPKey.random() != key)
        #expect(!"\(key)".contains(key.cryptoAttribute.split(separator: ":").last ?? "x"))
    }
}

/// A protection that only protects into a new array: the protocol's in-place default serves it.
final class CopyingProtection: PacketProtection {
    let sender: SRTPSender
    init(_ sender: SRTPSender) { self.sender = sender }
    func protectedRTP(_ packet: [UInt8]) throws -> [UInt8] { try sender.protect(packet) }
    func protectedRTCP(_ packet: [UInt8]) throws -> [UInt8] { try sender.protectRTCP(packet) }
}
