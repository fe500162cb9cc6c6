@_spi(SansIO) import ICE
import PacketCapture
import Testing

/// RFC 5769's test vectors (sections 2.1 to 2.3, the bytes as the RFC prints them): each reads, its
/// MESSAGE-INTEGRITY checks with the RFC's password and no other, its FINGERPRINT checks, its address unmasks to
/// the RFC's; and what we write of the same message is the RFC's bytes.
@Suite struct STUNVectorTests {
    static let password = Array("VOkJxbRl1RmTxUk/WvJxBt".utf8)
    static let transactionID: [UInt8] = [0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86, 0xfa, 0x87, 0xdf, 0xae]

    /// 2.1: a request with SOFTWARE "STUN test client", PRIORITY, ICE-CONTROLLED, USERNAME "evtj:h6vY".
    static let request: [UInt8] = [
        0x00, 0x01, 0x00, 0x58, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86,
        0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x10, 0x53, 0x54, 0x55, 0x4e, 0x20, 0x74, 0x65, 0x73,
        0x74, 0x20, 0x63, 0x6c, 0x69, 0x65, 0x6e, 0x74, 0x00, 0x24, 0x00, 0x04, 0x6e, 0x00, 0x01, 0xff,
        0x80, 0x29, 0x00, 0x08, 0x93, 0x2f, 0xf9, 0xb1, 0x51, 0x26, 0x3b, 0x36, 0x00, 0x06, 0x00, 0x09,
        0x65, 0x76, 0x74, 0x6a, 0x3a, 0x68, 0x36, 0x76, 0x59, 0x20, 0x20, 0x20, 0x00, 0x08, 0x00, 0x14,
        0x9a, 0xea, 0xa7, 0x0c, 0xbf, 0xd8, 0xcb, 0x56, 0x78, 0x1e, 0xf2, 0xb5, 0xb2, 0xd3, 0xf2, 0x49,
        0xc1, 0xb5, 0x71, 0xa2, 0x80, 0x28, 0x00, 0x04, 0xe5, 0x7a, 0x3b, 0xcf,
    ]
    /// 2.2: a success response, SOFTWARE "test vector", XOR-MAPPED-ADDRESS 192.0.2.1:32853.
    static let responseV4: [UInt8] = [
        0x01, 0x01, 0x00, 0x3c, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86,
        0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63,
        0x74, 0x6f, 0x72, 0x20, 0x00, 0x20, 0x00, 0x08, 0x00, 0x01, 0xa1, 0x47, 0xe1, 0x12, 0xa6, 0x43,
        0x00, 0x08, 0x00, 0x14, 0x2b, 0x91, 0xf5, 0x99, 0xfd, 0x9e, 0x90, 0xc3, 0x8c, 0x74, 0x89, 0xf9,
        0x2a, 0xf9, 0xba, 0x53, 0xf0, 0x6b, 0xe7, 0xd7, 0x80, 0x28, 0x00, 0x04, 0xc0, 0x7d, 0x4c, 0x96,
    ]
    /// 2.3: the same with XOR-MAPPED-ADDRESS [2001:db8:1234:5678:11:2233:4455:6677]:32853.
    static let responseV6: [UInt8] = [
        0x01, 0x01, 0x00, 0x48, 0x21, 0x12, 0xa4, 0x42, 0xb7, 0xe7, 0xa7, 0x01, 0xbc, 0x34, 0xd6, 0x86,
        0xfa, 0x87, 0xdf, 0xae, 0x80, 0x22, 0x00, 0x0b, 0x74, 0x65, 0x73, 0x74, 0x20, 0x76, 0x65, 0x63,
        0x74, 0x6f, 0x72, 0x20, 0x00, 0x20, 0x00, 0x14, 0x00, 0x02, 0xa1, 0x47, 0x01, 0x13, 0xa9, 0xfa,
        0xa5, 0xd3, 0xf1, 0x79, 0xbc, 0x25, 0xf4, 0xb5, 0xbe, 0xd2, 0xb9, 0xd9, 0x00, 0x08, 0x00, 0x14,
        0xa3, 0x82, 0x95, 0x4e, 0x4b, 0xe6, 0x7b, 0xf1, 0x17, 0x84, 0xc9, 0x7c, 0x82, 0x92, 0xc2, 0x75,
        0xbf, 0xe3, 0xed, 0x41, 0x80, 0x28, 0x00, 0x04, 0xc8, 0xfb, 0x0b, 0x4c,
    ]

    @Test func theSampleRequestReadsAndChecks() throws {
        let message = try STUNMessage(parsing: Self.request)
        #expect(message.isBindingRequest)
        #expect(message.transactionID == Self.transactionID)
        #expect(message.username == "evtj:h6vY")
        #expect(message.priority == 0x6e00_01ff)
        #expect(message.iceControlled == 0x932f_f9b1_5126_3b36)
        #expect(message.fingerprintIsValid)
        #expect(message.integrityIsValid(key: Self.password))
        #expect(!message.integrityIsValid(key: Array("VOkJxbRl1RmTxUk/WvJxBT".utf8)))
        #expect(STUNMessage.looksLikeSTUN(Self.request))
    }

    @Test func theSampleResponsesReadAndCheck() throws {
        let v4 = try STUNMessage(parsing: Self.responseV4)
        #expect(v4.messageClass == .successResponse && v4.method == STUNMessage.binding)
        #expect(v4.xorMappedAddress == SocketAddress(address: .v4(0xC000_0201), port: 32853))
        #expect(v4.fingerprintIsValid && v4.integrityIsValid(key: Self.password))
        let v6 = try STUNMessage(parsing: Self.responseV6)
        #expect(v6.xorMappedAddress?.description == "[2001:db8:1234:5678:11:2233:4455:6677]:32853")
        #expect(v6.fingerprintIsValid && v6.integrityIsValid(key: Self.password))
    }

    /// What we write of the RFC's messages is the RFC's bytes. (The RFC pads text with spaces, we with zeros as
    /// RFC 8489 asks, so the SOFTWARE and USERNAME padding is set to the RFC's before comparing: the integrity
    /// and fingerprint cover the padding, so they are computed over the RFC's.)
    @Test func whatWeWriteIsTheRFCsBytes() throws {
        let response = STUNMessage(
            .successResponse, transactionID: Self.transactionID,
            attributes: [
                .software("test vector"),
                .xorMappedAddress(
                    SocketAddress(address: .v4(0xC000_0201), port: 32853), transactionID: Self.transactionID),
            ])
        var written = response.serialized(integrityKey: nil, fingerprint: false)
        written[35] = 0x20  // the RFC's space after "test vector"
        #expect(written == Array(Self.responseV4[..<48]).withLength(48 - 20))
        // Integrity and fingerprint over the RFC's first 48 bytes give the RFC's last 32.
        let reread = try STUNMessage(parsing: written)
        #expect(reread.xorMappedAddress == SocketAddress(address: .v4(0xC000_0201), port: 32853))
        let sealed = STUNMessage.seal(written, integrityKey: Self.password, fingerprint: true)
        #expect(sealed == Self.responseV4)
    }

    /// Each rule of reading breaks into its own error, never a trap.
    @Test func malformedMessagesAreRefusedWithTheirReason() {
        func reason(_ bytes: [UInt8]) -> String? {
            do {
                _ = try STUNMessage(parsing: bytes)
                return nil
            } catch { return error.reason }
        }
        #expect(reason(Array(Self.request[..<19]))?.contains("shorter than a STUN header") == true)
        var noCookie = Self.request
        noCookie[4] = 0
        #expect(reason(noCookie)?.contains("magic cookie") == true)
        var longer = Self.request
        longer[3] = 0x5C
        #expect(reason(longer)?.contains("length of 92") == true)
        var odd = Self.request
        odd[3] = 0x57
        #expect(reason(odd)?.contains("multiple of 4") == true)
        // USERNAME's length made to run past the end.
        var overrun = Self.request
        overrun[62] = 0x00
        overrun[63] = 0x50
        #expect(reason(overrun)?.contains("runs past the message") == true)
        // An attribute after FINGERPRINT.
        var after = Self.request + [0x80, 0x22, 0x00, 0x00]
        after[3] = 0x5C
        #expect(reason(after)?.contains("after FINGERPRINT") == true)
        #expect(reason([UInt8](repeating: 0, count: 1501))?.contains("at most 1500") == true)
        #expect(!STUNMessage.looksLikeSTUN([0x80] + Self.request.dropFirst()))
    }

    /// Random bytes and random mutations of the vectors never trap, and a tampered message never checks.
    @Test func mutationsNeverTrapAndNeverCheck() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = Self.request
            let index = Int.random(in: 20..<bytes.count - 8, using: &generator)
            bytes[index] ^= UInt8.random(in: 1...255, using: &generator)
            if let message = try? STUNMessage(parsing: bytes) {
                #expect(!(message.integrityIsValid(key: Self.password) && message.fingerprintIsValid))
            }
            let random = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            _ = try? STUNMessage(parsing: random)
        }
    }
}

extension Array where Element == UInt8 {
    /// The bytes with their STUN length field set to `length`.
    func withLength(_ length: Int) -> [UInt8] {
        var bytes = self
        bytes[2] = UInt8(length >> 8)
        bytes[3] = UInt8(length & 0xFF)
        return bytes
    }
}
