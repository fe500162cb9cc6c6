import RTP
import Testing

@Suite struct Base64Tests {
    @Test func acceptsMissingPaddingAndTheURLAlphabet() {
        let pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]  // an H.264 PPS, as sprop-parameter-sets carry it
        #expect(Base64.decode("aM48gA") == pps)
        #expect(Base64.decode("aM48gA==") == pps)
        #expect(Base64.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64.decode("a") == nil)
        #expect(Base64.decode("aM==gA") == nil)
    }

    /// RFC 4648 section 10's test vectors, and back.
    @Test func encodesRFC4648sVectors() {
        let vectors = [
            "": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=",
            "foobar": "Zm9vYmFy",
        ]
        for (plain, encoded) in vectors {
            #expect(String(decoding: Base64.encode(Array(plain.utf8)), as: UTF8.self) == encoded)
            #expect(Base64.decode(Substring(encoded)) == Array(plain.utf8))
        }
        let all = (0...255).map(UInt8.init)
        #expect(Base64.decode(Substring(String(decoding: Base64.encode(all), as: UTF8.self))) == all)
    }
}
