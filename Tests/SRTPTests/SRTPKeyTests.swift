import SRTP
import Testing

@Suite struct SRTPKeyTests {
    @Test func aCryptoAttributeFromRFC4568() throws {
        // RFC 4568 section 9.1's example (its key is 40 base64 characters: 30 bytes).
        let key = try SRTPKey(
            cryptoAttribute: "1 AES_CM_128_HMAC_SHA1_80 inline:WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz|2^20|1:4")
        #expect(key.suite == .aesCM128HMACSHA1_80)
        #expect(!key.description.contains("WVNf"))
        #expect(key.description.contains("30 bytes"))
    }

    @Test func keyLengthsFollowTheSuite() throws {
        #expect(SRTPSuite.aesCM128HMACSHA1_32.keyLength == 30)
        #expect(SRTPSuite.aeadAES128GCM.keyLength == 28)
        #expect(SRTPSuite.aeadAES256GCM.keyLength == 44)
        let error = #expect(throws: SRTPError.self) {
            try SRTPKey(suite: .aeadAES256GCM, material: [UInt8](repeating: 0, count: 30))
        }
        #expect(error?.code == .invalidKey)
        #expect(error?.description.contains("44") == true)
    }

    @Test func badInputSaysWhat() {
        let notBase64 = #expect(throws: SRTPError.self) { try SRTPKey(suite: .aeadAES128GCM, base64: "not base64!") }
        #expect(notBase64?.code == .invalidKey)
        let suite = #expect(throws: SRTPError.self) {
            try SRTPKey(cryptoAttribute: "1 F8_128_HMAC_SHA1_80 inline:AAAA")
        }
        #expect(suite?.code == .unsupportedSuite)
        let short = #expect(throws: SRTPError.self) { try SRTPKey(cryptoAttribute: "1 AES_CM_128_HMAC_SHA1_80") }
        #expect(short?.code == .invalidKey)
        let uri = #expect(throws: SRTPError.self) { try SRTPKey(cryptoAttribute: "1 AES_CM_128_HMAC_SHA1_80 uri:x") }
        #expect(uri?.code == .invalidKey)
    }

    @Test(arguments: SRTPSuite.allCases)
    func libsrtpSetsUpEverySuite(suite: SRTPSuite) throws {
        let key = try SRTPKey(suite: suite, material: [UInt8](repeating: 3, count: suite.keyLength))
        let receiver = try SRTPReceiver(key: key)
        #expect(receiver.suite == suite)
        // Too short to be SRTP: refused without reaching libsrtp.
        let short = #expect(throws: SRTPError.self) { try receiver.unprotect([0x80, 96]) }
        #expect(short?.code == .malformed)
        // Well-formed but not protected with this key.
        let forged: [UInt8] = [0x80, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 9] + [UInt8](repeating: 0xAB, count: 40)
        let failed = #expect(throws: SRTPError.self) { try receiver.unprotect(forged) }
        #expect(failed?.code == .authenticationFailed)
        #expect(receiver.authenticationFailures == 1)
    }
}
